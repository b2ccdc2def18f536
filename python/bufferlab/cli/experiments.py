"""The experiment commands of `bufferlab`: sweep, results, plot, report, advise.

Registered on the main typer app of :mod:`bufferlab.cli._app`. Same contract as the other commands:
errors are one `error:` line on stderr and exit code 2 (3 for a bug). Heavy libraries (duckdb,
matplotlib, dask) are imported inside the commands, so `bufferlab run` starts as fast as before.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from bufferlab.cli._app import AllowPython, _errors, _fail, _quantity, app
from bufferlab.cli.format import output_console, print_fitted
from bufferlab.display import literal_figure_text, markup, printable, text

DbOpt = Annotated[
    Path,
    typer.Option("--db", help="Results database (DuckDB file).", show_default=True),
]


@contextmanager
def _exp_errors() -> Iterator[None]:
    """The experiment modules' own errors are user errors (exit 2), like ScenarioError."""
    from bufferlab.experiments.metrics import MetricError
    from bufferlab.experiments.spec import SweepError
    from bufferlab.experiments.store import StoreError

    with _errors():
        try:
            yield
        except (SweepError, StoreError, MetricError) as e:
            _fail(str(e))


def _console() -> Console:
    return output_console(160)


# -- sweep ------------------------------------------------------------------------------------


@app.command()
def sweep(
    file: Annotated[Path, typer.Argument(help="Sweep file (TOML).", metavar="FILE")],
    db: DbOpt = Path("results.duckdb"),
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", min=1, help="Parallel runs (default: all cores).", show_default=False
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster",
            help="Run on a Dask cluster: scheduler address tcp://host:8786.",
            show_default=False,
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            help="Local workers: auto (processes for more than one worker and more than 8 "
            "runs, else threads), thread or process.",
        ),
    ] = "auto",
    quick: Annotated[
        bool, typer.Option("--quick", help="One replication per grid point (a first look).")
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=0, help="Stop after this many runs (resume later).", show_default=False
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    max_wall: Annotated[
        str | None,
        typer.Option(
            "--max-wall", help="Fail a run that takes longer (e.g. 10min).", show_default=False
        ),
    ] = None,
    max_memory: Annotated[
        str | None,
        typer.Option(
            "--max-memory",
            help="Fail a run when its process holds more (e.g. 4GB; "
            "default 80% of the machine's; 0 for no limit).",
            show_default=False,
        ),
    ] = None,
    allow_python: AllowPython = False,
) -> None:
    """Run a parameter sweep; results go to the database. Rerunning resumes: only runs not
    yet recorded as ok are run."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from bufferlab.experiments.execute import (
        EXECUTORS,
        default_jobs,
        local_executor,
        run_sweep,
    )
    from bufferlab.experiments.spec import load_sweep

    with _exp_errors():
        if executor not in EXECUTORS:
            _fail(f"--executor: expected auto, thread or process, got {executor!r}")
        run_limits: dict[str, Any] = {}
        if max_wall is not None:
            run_limits["max_wall"] = _quantity(max_wall, "s", "--max-wall", "10min")
        if max_memory is not None:
            run_limits["max_memory"] = int(_quantity(max_memory, "bytes", "--max-memory", "4GB"))
        if allow_python:
            run_limits["allow_python"] = True
        sw = load_sweep(file)
        n_runs = len(sw.points()) * (1 if quick else sw.replications)
        progress = Progress(
            TextColumn("{task.description}", style="bold", markup=False),  # the sweep's name
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[red]{task.fields[failed]} failed"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            disable=quiet,
            transient=False,
        )
        state: dict[str, Any] = {"t0": time.perf_counter(), "task": None}

        def on_progress(event: str, done: int, failed: int, total: int, skipped: int) -> None:
            if event == "start":
                if skipped:
                    print(f"resuming: {skipped} of {total + skipped} runs already in "
                          f"{printable(db)}", file=sys.stderr)  # fmt: skip
                state["task"] = progress.add_task(
                    printable(sw.name), total=total, failed=0, rate=""
                )
                state["t0"] = time.perf_counter()
                return
            el = max(time.perf_counter() - state["t0"], 1e-9)
            progress.update(state["task"], completed=done + failed, failed=failed,
                            rate=f"{(done + failed) / el:.2f} runs/s")  # fmt: skip

        kind = local_executor(executor, jobs or default_jobs(), n_runs)
        where = f"on {cluster}" if cluster else f"{jobs or 'all'} {kind} workers"
        print(
            f"sweep {printable(sw.name)}: {len(sw.points())} points, {n_runs} runs, "
            f"{printable(where)}",
            file=sys.stderr,
        )
        with progress:
            out = run_sweep(
                sw,
                db=db,
                jobs=jobs,
                cluster=cluster,
                executor=executor,
                replications=1 if quick else None,
                progress=on_progress,
                limit=limit,
                run_limits=run_limits,
            )
        rate = out.ran / out.wall_s if out.wall_s > 0 else 0.0
        parts = [f"{out.done} ok", f"{out.failed} failed"]
        if out.skipped:
            parts.append(f"{out.skipped} already done")
        if out.left:
            parts.append(f"{out.left} left for a later call (--limit)")
        print(
            f"{printable(out.sweep)}: {', '.join(parts)}, {out.total} in all ({rate:.2f} runs/s); "
            f"results in {printable(db)}",
            file=sys.stderr,
        )
        if out.done and (sw.replications > 1 and not quick):
            from bufferlab.experiments import identical
            from bufferlab.experiments.stats import aggregate
            from bufferlab.experiments.store import Store

            store = Store(db, read_only=True)
            try:
                agg = aggregate(store, sw.name)
                base = store.sweep_info(sw.name)["base_scenario"]
            finally:
                store.close()
            for line in identical.notes(agg, base, sw.axes):
                print(f"note: {line}", file=sys.stderr)
        if out.first_error:
            print(
                printable(
                    f"first failure: {out.first_error} (all failures: bufferlab results "
                    f"{out.sweep} --db {db})"
                ),
                file=sys.stderr,
            )


# -- results ----------------------------------------------------------------------------------


def _print_df(console: Console, df: Any, title: str = "", max_rows: int = 200) -> None:
    """A data frame as terminal tables whose every value is whole at the console's width
    (wide frames are split into parts that repeat the first column). Names and values are
    shown as they are (never read as markup), control characters as escapes."""
    import math

    rows = []
    for row in df.head(max_rows).itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append("-" if math.isnan(v) else f"{v:.4g}")
            else:
                cells.append("-" if v is None else text(v))
        rows.append(cells)
    left = sum(1 for c in df.columns if df[c].dtype == object) and 1
    print_fitted(console, markup(title), [text(c) for c in df.columns], rows, left=left)


@app.command()
def results(
    sweep_name: Annotated[
        str | None,
        typer.Argument(
            help="Sweep name (omit to list the sweeps).", metavar="SWEEP", show_default=False
        ),
    ] = None,
    db: DbOpt = Path("results.duckdb"),
    table: Annotated[
        str | None,
        typer.Option(
            "--table",
            help="Show or export the raw rows: runs, flows, queues or links (default: one row "
            "per grid point, each metric's mean ± 95% CI).",
            show_default=False,
        ),
    ] = None,
    aggregate: Annotated[
        list[str] | None,
        typer.Option(
            "--aggregate",
            "-a",
            help="Aggregate a metric over replications "
            "(e.g. flows.goodput_bps; repeatable; 'all' = the sweep's metrics).",
            show_default=False,
        ),
    ] = None,
    csv: Annotated[
        Path | None, typer.Option("--csv", help="Export to CSV.", show_default=False)
    ] = None,
    parquet: Annotated[
        Path | None, typer.Option("--parquet", help="Export to Parquet.", show_default=False)
    ] = None,
) -> None:
    """List the sweeps in the database; show a sweep as one row per grid point with each
    metric's mean ± 95% confidence interval in human units; show one metric in detail (-a);
    show or export the raw rows (--table) or the aggregates (--csv, --parquet)."""
    from bufferlab.experiments import identical
    from bufferlab.experiments import tables as views
    from bufferlab.experiments.labels import si_unit
    from bufferlab.experiments.stats import aggregate as agg_fn
    from bufferlab.experiments.store import Store

    with _exp_errors():
        store = Store(db, read_only=True)
        try:
            console = _console()
            if sweep_name is None:
                df = store.list_sweeps()
                _print_df(console, df, f"Sweeps in {db}")
                return
            info = store.sweep_info(sweep_name)
            axes: list[str] = info["axes"]
            if table is not None:
                df = store.runs(sweep_name, table)
            else:
                metrics = None if not aggregate or aggregate == ["all"] else aggregate
                df = agg_fn(store, sweep_name, metrics)
                df.insert(list(df.columns).index("metric") + 1, "unit",
                          df["metric"].map(si_unit))  # fmt: skip
            if csv is not None or parquet is not None:
                export = views.numeric_axes(df, axes)
                for path, write in ((csv, export.to_csv), (parquet, export.to_parquet)):
                    if path is not None:
                        write(path, index=False)
                        print(f"wrote {len(export)} rows to {printable(path)}", file=sys.stderr)
                return
            if table is not None:
                if table == "runs":
                    drop = ["sweep_id", "scenario_hash", "bufferlab_version"]
                    df = df.drop(columns=drop, errors="ignore")
                _print_df(console, df, f"{sweep_name}: {table}")
                return
            if aggregate:
                for m, g in df.groupby("metric", sort=False):
                    title, heads, rows = views.detail(g, axes, str(m))
                    print_fitted(console, markup(f"{sweep_name}: {title}"),
                                 [text(h) for h in heads], rows, left=1 + len(axes))  # fmt: skip
            else:
                metrics_shown = list(dict.fromkeys(df["metric"].tolist()))
                heads, rows, notes = views.summary(df, axes, metrics_shown)
                reps = int(info["replications"])
                title = f"{sweep_name}: mean ± 95% CI over {reps} replications per point"
                print_fitted(console, markup(title), [text(h) for h in heads], rows,
                             left=1 + len(axes))  # fmt: skip
                for line in notes + identical.notes(df, info["base_scenario"], axes):
                    console.print(text(f"note: {line}"))
                console.print(
                    "-a METRIC shows n, std and the interval's ends; --table runs shows each run."
                )
        finally:
            store.close()


# -- plot -------------------------------------------------------------------------------------


@app.command()
def plot(
    sweep_name: Annotated[str, typer.Argument(help="Sweep name.", metavar="SWEEP")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Figure file: .png, .svg or .pdf.")],
    db: DbOpt = Path("results.duckdb"),
    kind: Annotated[
        str,
        typer.Option("--kind", "-k", help="metric, queue, flows, flow-series or cwnd."),
    ] = "metric",
    metric: Annotated[
        str | None,
        typer.Option(
            "--metric",
            "-m",
            help="Metric for --kind metric (default: the sweep's first).",
            show_default=False,
        ),
    ] = None,
    x: Annotated[
        str | None,
        typer.Option(
            "--x", help="Axis for the x axis (default: the buffer size axis).", show_default=False
        ),
    ] = None,
    run_key: Annotated[
        str | None,
        typer.Option(
            "--run",
            help="Run key for queue/flows/cwnd (default: the first ok run).",
            show_default=False,
        ),
    ] = None,
    point: Annotated[
        int | None,
        typer.Option("--point", help="Grid point index for queue/flows/cwnd.", show_default=False),
    ] = None,
) -> None:
    """Draw a figure from a sweep's results."""
    from bufferlab.experiments import figures as pl
    from bufferlab.experiments.stats import aggregate as agg_fn
    from bufferlab.experiments.store import Store

    with _exp_errors(), literal_figure_text():  # a "$" in a name is text, not mathtext
        if out.suffix.lower() not in pl.FORMATS:
            _fail(f"--out {out}: unknown figure format; use .png, .svg or .pdf")
        store = Store(db, read_only=True)
        try:
            info = store.sweep_info(sweep_name)
            if kind == "metric":
                m = metric or info["metrics"][0]
                agg = agg_fn(store, sweep_name, m)
                try:
                    fig = pl.metric_figure(agg, m, x=x, axes=info["axes"])
                except ValueError as e:
                    _fail(f"--x: {e}")
            elif kind in ("queue", "flows", "flow-series", "cwnd"):
                key = run_key or pl.first_ok_run(store, sweep_name, point)
                if key is None:
                    _fail(f"sweep {sweep_name!r} has no ok run to plot")
                what = pl.describe_run(store, key)
                if kind == "queue":
                    s = store.series(key, "queues")
                    if s is None:
                        _fail(f"run {key}: no queue series (set [monitor] queue_interval)")
                    fig = pl.queue_figure(s, title=f"queue length: {what}")
                elif kind == "flows":
                    fl = pl.run_flows(store, key)
                    if fl.empty:
                        _fail(f"run {key}: no flows recorded")
                    fig = pl.flows_figure(fl, title=f"flows: {what}")
                elif kind == "flow-series":
                    fs = pl.flow_series_figure(
                        store.series(key, "flows"), title=f"per-flow series: {what}"
                    )
                    if fs is None:
                        _fail(f"run {key}: no per-flow series (set [monitor] flow_interval)")
                    fig = fs
                else:
                    cw = pl.cwnd_figure(store.series(key, "tcp"), title=f"cwnd: {what}")
                    if cw is None:
                        _fail(f"run {key}: the report has no TCP series (no TCP flows?)")
                    fig = cw
            else:
                _fail(f"--kind: expected metric, queue, flows, flow-series or cwnd, got {kind!r}")
            pl.save(fig, out)
            print(f"wrote {printable(out)}", file=sys.stderr)
        finally:
            store.close()


# -- report -----------------------------------------------------------------------------------


@app.command()
def report(
    sweep_name: Annotated[str, typer.Argument(help="Sweep name.", metavar="SWEEP")],
    out: Annotated[Path, typer.Option("--out", "-o", help="HTML file to write.")] = Path(
        "report.html"
    ),
    db: DbOpt = Path("results.duckdb"),
) -> None:
    """Write one self-contained HTML page: scenario, grid, aggregated tables, figures."""
    from bufferlab.experiments.report import write_report

    with _exp_errors():
        p = write_report(db, sweep_name, out)
        print(f"wrote {printable(p)} ({p.stat().st_size / 1024:.0f} KiB)", file=sys.stderr)


# -- advise -----------------------------------------------------------------------------------


@app.command()
def advise(
    file: Annotated[Path, typer.Argument(help="Scenario file (TOML).", metavar="SCENARIO")],
    link: Annotated[str, typer.Option("--link", help="The bottleneck link.")] = "bottleneck",
    objective: Annotated[
        str, typer.Option("--objective", help="throughput, delay or power.")
    ] = "throughput",
    delay_bound: Annotated[
        str,
        typer.Option(
            "--delay-bound",
            help="For --objective delay: bound on the mean queueing delay at the link "
            "(propagation excluded).",
        ),
    ] = "50ms",
    share: Annotated[
        float,
        typer.Option(
            "--share",
            min=0.0,
            max=1.0,
            help="For --objective throughput: smallest buffer reaching this share "
            "of the best throughput.",
        ),
    ] = 0.9,
    replications: Annotated[int, typer.Option("--replications", "-r", min=1)] = 3,
    sizes: Annotated[
        str | None,
        typer.Option(
            "--sizes",
            help="Candidate sizes, comma-separated (e.g. 5KB,20p,0.5BDP,20ms); default: from "
            "the rules.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, show_default=False)] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Also draw the figure (.png/.svg/.pdf).", show_default=False
        ),
    ] = None,
    no_sim: Annotated[bool, typer.Option("--rules-only", help="Only print the rules.")] = False,
) -> None:
    """Recommend a buffer size for a scenario's bottleneck: the classic rules, then simulation
    of candidate sizes with replications."""
    from bufferlab.experiments import advise as adv

    with _exp_errors():
        if objective not in adv.OBJECTIVES:
            _fail(f"--objective: expected one of {', '.join(adv.OBJECTIVES)}, got {objective!r}")
        bound = adv.parse_time(delay_bound, "--delay-bound")
        size_list = [s.strip() for s in sizes.split(",") if s.strip()] if sizes else None
        console = _console()
        rules = adv.bottleneck_rules(file, link)
        title, heads, rows = adv.rules_table(rules)
        print_fitted(console, markup(title), heads, [[text(c) for c in r] for r in rows])
        if no_sim:
            for line in adv.caveats(0, rules):
                console.print(text(f"note: {line}"))
            return
        res = adv.simulate(rules, sizes=size_list, replications=replications, jobs=jobs)
        for size, err in res.failed.items():
            print(printable(f"warning: size {size} left out: {err}"), file=sys.stderr)
        best = adv.recommend(res, objective, share=share, delay_bound_s=bound)
        title, heads, rows = adv.results_table(res, best, objective)
        print_fitted(console, title, heads, [[text(c) for c in r] for r in rows], left=2)
        console.print(adv.explain(best, objective, share, bound, rules, res))
        for line in adv.caveats(best, rules, res):
            console.print(text(f"note: {line}"))
        if out is not None:
            from bufferlab.experiments import figures as pl

            with literal_figure_text():  # a "$" in a name is text, not mathtext
                pl.save(adv.figure(res, best, rules), out)
            print(f"wrote {printable(out)}", file=sys.stderr)
