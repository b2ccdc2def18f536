"""The `bufferlab study` commands: list the studies, run one (or all) and write its page."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from bufferlab.cli.format import output_console, print_fitted
from bufferlab.study.spec import (
    TINY_ENV,
    StudyError,
    child_file,
    list_studies,
    repo_root,
    studies_dir,
)

# The study library (execution, claims, figures, pages) is imported by the commands that use
# it, so that every other command starts without loading it.

study_app = typer.Typer(
    help="Reproduce the seed papers (studies/NAME) and compare with their published numbers.",
    no_args_is_help=True,
)

StudiesOpt = Annotated[
    Path | None,
    typer.Option(
        "--studies",
        help="The studies folder (default: ./studies or $BUFFERLAB_STUDIES).",
        show_default=False,
    ),
]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _plain(x: Any) -> str:
    """A study file's text for the terminal: no control characters (an escape sequence in a
    title would reach the terminal), and rich's markup escaped (``[/]`` in a title is text)."""
    from rich.markup import escape

    return escape(_CONTROL.sub(" ", str(x)))


def _fail(msg: str) -> typer.Exit:
    sys.stdout.flush()
    print(f"error: {' '.join(_CONTROL.sub(' ', str(msg)).split())}", file=sys.stderr)
    return typer.Exit(2)


@study_app.command("list")
def list_cmd(studies: StudiesOpt = None) -> None:
    """List the studies with their paper and the number of runs per mode."""
    from bufferlab.study.plan import n_runs

    try:
        sts = list_studies(studies_dir(studies))
    except StudyError as e:
        raise _fail(str(e)) from None
    if not sts:
        print(f"no studies in {studies_dir(studies)}")
        return
    console = output_console(100)
    columns = ["study", "runs full", "runs quick", "runs tiny", "tables", "figures", "claims"]
    rows = [
        [_plain(s.name), *(str(n_runs(s, m)) for m in ("full", "quick", "tiny")),
         str(len(s.tables)), str(len(s.figures)), str(len(s.claims))]
        for s in sts
    ]  # fmt: skip
    print_fitted(console, "Studies", columns, rows)
    for s in sts:
        # Titles and citations are prose: wrapped at the console's width, never cut.
        console.print(f"[bold]{_plain(s.name)}[/]: {_plain(s.title)}", highlight=False)
        console.print(f"  paper: {_plain(s.paper)}", highlight=False)


@study_app.command("run")
def run_cmd(
    name: Annotated[
        str, typer.Argument(help="A study name (see `bufferlab study list`) or `all`.")
    ],
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer replications, shorter runs.")
    ] = False,
    tiny: Annotated[
        bool,
        typer.Option(
            "--tiny",
            help=f"Smoke test: a few simulated seconds, 1 replication (also ${TINY_ENV}=1).",
        ),
    ] = False,
    out: Annotated[Path, typer.Option("--out", help="Where figures and per-run data go.")] = Path(
        "study-out"
    ),
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="Parallel runs (default: all cores).", show_default=False
        ),
    ] = None,
    docs: Annotated[
        bool | None,
        typer.Option(
            "--docs/--no-docs",
            help="Write the study page NAME.md (default: yes for a full run; a --quick or --tiny "
            "page goes to --out, never to docs/studies).",
            show_default=False,
        ),
    ] = None,
    docs_dir: Annotated[
        Path | None,
        typer.Option(
            "--docs-dir",
            help="Folder of the study pages (default: docs/studies next to studies/).",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="Results database the runs go to (default: OUT/studies.duckdb); a run already "
            "recorded there is not run again.",
            show_default=False,
        ),
    ] = None,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="Run every run again (forget what --db recorded for the study)."
        ),
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Run on a Dask cluster (scheduler address, e.g. tcp://host:8786).",
            show_default=False,
        ),
    ] = None,
    studies: StudiesOpt = None,
) -> None:
    """Run a study (or all): its tables beside the paper's, its figures and its page.

    Its runs go to a results database like a sweep's (one sweep per experiment, named
    study:NAME:MODE:EXPERIMENT): an interrupted study resumes, and `bufferlab results` queries
    its runs."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from bufferlab.study.claims import check_claims
    from bufferlab.study.execute import forget_study, run_study
    from bufferlab.study.figures import draw_figure
    from bufferlab.study.page import save_outcome, write_index, write_markdown, write_run_sample
    from bufferlab.study.plan import n_runs
    from bufferlab.study.tables import build_table, label_columns

    tiny = tiny or os.environ.get(TINY_ENV, "") not in ("", "0")
    mode = "tiny" if tiny else ("quick" if quick else "full")
    sdir = studies_dir(studies)
    try:
        all_studies = list_studies(sdir)
    except StudyError as e:
        raise _fail(str(e)) from None
    if name == "all":
        chosen = all_studies
    else:
        chosen = [s for s in all_studies if s.name == name]
        if not chosen:
            names = ", ".join(s.name for s in all_studies) or "none"
            raise _fail(f"no study named {name!r} in {sdir} (studies: {names}, or `all`)")
    # Only a full run writes the tracked pages (docs/studies): a quick or tiny run's numbers come
    # from shorter runs and would contradict the page's discussion. Asked for, its page goes to
    # --out (or an explicit --docs-dir), marked as a preview.
    write_docs = (mode == "full") if docs is None else docs
    ddir = docs_dir or (repo_root(sdir) / "docs" / "studies" if mode == "full" else out)
    # Wide tables: do not wrap them at 80 columns when the output is not a terminal.
    console = output_console(240)
    command = (
        "bufferlab study run " + name + {"full": "", "quick": " --quick", "tiny": " --tiny"}[mode]
    )
    db_path = db or out / "studies.duckdb"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    failed = 0
    for st in chosen:
        console.rule()
        console.print(f"[bold]{_plain(st.name)}[/]: {_plain(st.title)}", highlight=False)
        n = n_runs(st, mode)
        with Progress(
            "{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as prog:
            task = prog.add_task(f"{st.name} ({mode})", total=n)
            try:
                if fresh:
                    forget_study(db_path, f"study:{st.name}:{mode}:")
                res = run_study(
                    st,
                    mode,
                    jobs,
                    lambda d, t, task=task: prog.update(task, completed=d),
                    db=db_path,
                    cluster=cluster,
                )
            except StudyError as e:
                raise _fail(str(e)) from None
        ok = sum(1 for r in res.records if r.get("ok"))
        console.print(f"{ok}/{len(res.records)} runs ok in {res.wall_s:.1f} s ({mode})")
        for k, v in res.errors.items():
            console.print(f"[yellow]warning[/]: {_plain(k)}: {_plain(v)}")
        failed += len(res.records) - ok
        tabs = []
        for spec in st.tables:
            t = build_table(res, spec)
            tabs.append(t)
            title = f"{spec.get('id', '')}: {spec.get('title', '')}".strip(": ")
            n = max(1, label_columns(t))
            print_fitted(
                console,
                _plain(title),
                [_plain(h) for h in t.header],
                [[_plain(c) for c in r] for r in t.rows],
                key=n,
                left=n,
            )
        figs = []
        for spec in st.figures:
            try:
                p = draw_figure(res, spec, out)
            except StudyError as e:
                raise _fail(str(e)) from None
            if p is not None:
                figs.append((spec, p))
                console.print(f"figure {_plain(spec.get('id'))}: {_plain(p)}")
        claims = check_claims(res)
        for i, c in enumerate(claims, 1):
            head = c["verdict"].split(";")[0]
            colour = {"holds": "green", "does not hold": "red"}.get(head, "yellow")
            console.print(
                f"{i}. {_plain(c['claim'])} -> [{colour}]{_plain(c['verdict'])}[/] "
                f"{_plain(c['evidence'])}"
            )
        try:
            save_outcome(res, tabs, claims, out)
            page = child_file(ddir, st.name, ".md") if write_docs else None
        except StudyError as e:
            raise _fail(str(e)) from None
        if page is not None:
            p = write_markdown(res, tabs, figs, claims, page, command)
            console.print(f"page: {_plain(p)}")
            if mode == "full":
                write_run_sample(res, ddir)
                console.print(f"index: {write_index(ddir)}")
    if failed:
        console.print(f"[yellow]{failed} runs failed[/] (see the warnings above)")
