"""The study page (docs/studies/NAME.md) and the per-run data file."""

import json
import math
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.spec import StudyError, check_study_name, child_file
from bufferlab.study.tables import TableOut, markdown_table, md_cell, md_text

# -- the report page ---------------------------------------------------------------------------


def write_markdown(
    out: Outcome,
    tables: list[TableOut],
    figs: list[tuple[dict, Path]],
    claims: list[dict[str, Any]],
    doc_path: Path,
    command: str,
) -> Path:
    from bufferlab import __version__

    st = out.study
    name = check_study_name(st.name)
    img_dir = child_file(doc_path.parent, name)
    img_dir.mkdir(parents=True, exist_ok=True)
    # Every text of the study file is written through md_text / md_cell: it stays text on the
    # site (a title "<script>..." is shown, not run).
    lines = [f"# {md_text(st.title)}", ""]
    lines += [
        f"Study `{name}`. Source paper: {md_text(st.paper)}. {md_text(st.summary)}".strip(),
        "",
    ]
    runs_ok = sum(1 for r in out.records if r.get("ok"))
    lines += [
        "This page is written by `bufferlab study run`; the assumptions behind every scenario "
        "are in",
        f"[studies/{st.name}/README.md](../../studies/{st.name}/README.md).",
        "",
        f"* command: `{command}`",
        f"* date: {out.started}; bufferlab {__version__}; mode `{out.mode}`; "
        f"{runs_ok} runs ({len(out.records) - runs_ok} failed), {out.wall_s:.1f} s wall",
        "* cells: bufferlab mean ± 95 % Student-t half-width over replications (no ± with one "
        "replication); Δ = (bufferlab - paper) / paper; † marks |Δ| above the tolerance "
        f"({st.tolerance:.0%}, see README) with the paper's value outside the bufferlab interval.",
        "",
    ]
    if out.mode != "full":
        lines += [
            f"> **A {out.mode} run, not the reproduction.** `--{out.mode}` runs shorter and with "
            "fewer replications (and maybe fewer points) than the study's full setup, so its "
            "numbers are a preview, biased where the flows have less time to settle, and the "
            "comparison with the paper's full-length numbers does not hold as it stands; the "
            f"recorded page is written by a full run (`bufferlab study run {st.name}`). "
            "What this run changed:",
            ">",
            *(f"> * {md_text(d)}" for d in preview_differences(st, out.mode)),
            "",
        ]
    if out.errors:
        lines += ["Problems met:", ""]
        lines += [f"* {md_text(k)}: {md_text(v)}" for k, v in out.errors.items()] + [""]
    lines += ["## Tables", ""]
    for t in tables:
        lines += [f"### {md_text(t.spec.get('id', ''))}: {md_text(t.spec.get('title', ''))}", ""]
        if t.spec.get("note"):
            lines += [md_text(t.spec["note"]), ""]
        lines += [markdown_table(t), ""]
    if figs:
        lines += ["## Figures", ""]
        for spec, p in figs:
            dst = child_file(img_dir, p.stem, p.suffix)
            if p.resolve() != dst.resolve():
                shutil.copyfile(p, dst)
            lines += [f"### {md_text(spec.get('id', ''))}: {md_text(spec.get('title', ''))}", ""]
            if spec.get("note"):
                lines += [md_text(spec["note"]), ""]
            lines += [f"![{md_text(spec.get('id', ''))}]({name}/{dst.name})", ""]
    lines += ["## The paper's conclusions, checked", ""]
    lines += ["| # | claim | verdict | evidence |", "|---|---|---|---|"]
    for i, c in enumerate(claims, 1):
        ev = md_cell(str(c["evidence"]) + (f" {c['note']}" if c["note"] else ""))
        src = f" ({c['source']})" if c["source"] else ""
        lines.append(
            f"| {i} | {md_cell(str(c['claim']) + src)} | **{md_cell(c['verdict'])}** | {ev} |"
        )
    lines.append("")
    disc = st.dir / "discussion.md"
    if disc.exists() and out.mode != "full":
        # the discussion quotes the full run's numbers: a preview page quotes only its own
        lines += [
            "## Discussion",
            "",
            f"The study's discussion (`studies/{st.name}/discussion.md`) reads the full run's "
            f"numbers and is left out of this {out.mode} page, whose tables and verdicts come "
            "from shorter runs; see the recorded page of a full run.",
            "",
        ]
    elif disc.exists():
        try:
            text = disc.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise StudyError(f"{disc}: {e}") from None
        lines += [md_document(text).rstrip(), ""]
    doc_path.parent.mkdir(parents=True, exist_ok=True)
    doc_path.write_text("\n".join(lines), encoding="utf-8")
    return doc_path


def preview_differences(st: Any, mode: str) -> list[str]:
    """What a quick or tiny run of the study changes from its full setup, per experiment:
    skipped, fewer replications or points, another duration or warm-up."""
    from bufferlab.study.plan import points, replications

    out = []
    for e in st.experiments:
        m = e.mode(mode)
        if m.get("skip"):
            out.append(f"experiment {e.name}: skipped")
            continue
        parts = []
        n_rep, full_rep = replications(e, mode), replications(e, "full")
        if n_rep != full_rep:
            parts.append(f"{n_rep} of {full_rep} replications")
        n_pts, full_pts = len(points(e, mode)), len(points(e, "full"))
        if n_pts != full_pts:
            parts.append(f"{n_pts} of {full_pts} points")
        for key in ("duration", "warmup"):
            value = m.get(key) or (m.get("set") or {}).get(key)
            if value is None and mode == "tiny":
                value = {"duration": "3s", "warmup": "0s"}[key]
            if value is not None:
                full = e.mode("full").get(key) or e.set.get(key) or "the scenario's"
                parts.append(f"{key} {value} instead of {full}")
        out.append(f"experiment {e.name}: " + ("; ".join(parts) or "as the full run"))
    return out


# A link's or image's target ("](target") and a reference definition's ("]: target"), up to
# the closing parenthesis or the end of the line.
_LINK_TARGET = re.compile(r"\]\s?\(([^)]*)")
_REF_TARGET = re.compile(r"\]:([^\n]*\n?[^\n]*)")
# Safe: http(s), mailto, an anchor, or a relative address (no scheme, no entity, no escape).
_SAFE_URL = re.compile(r"(https?://|mailto:|#)|[^:&%\\]*$", re.IGNORECASE)


def _safe_target(target: str) -> bool:
    t = re.sub(r"\s", "", target).lstrip("<")  # a browser drops tabs and line breaks in a URL
    return bool(_SAFE_URL.match(t))


def md_document(text: str) -> str:
    """A study's hand-written Markdown (``discussion.md``) for its page: its Markdown kept
    (headings, lists, tables, emphasis, links to http(s) and relative addresses) but no raw
    HTML, no attribute list and no link to another scheme (``javascript:``): such a link's
    ``]`` is written as an entity, so that it stays text."""
    text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", text)
    text = re.sub(r"<(?=[A-Za-z/!?])", "&lt;", text)
    text = text.replace("{", "&#123;").replace("}", "&#125;")

    def guard(m: re.Match[str]) -> str:
        return m[0] if _safe_target(m[1]) else "&#93;" + m[0][1:]

    return _REF_TARGET.sub(guard, _LINK_TARGET.sub(guard, text))


def save_outcome(
    out: Outcome, tables: list[TableOut], claims: list[dict[str, Any]], d: Path
) -> Path:
    """``DIR/NAME.json``: per-run metric values, the tables' cells and the claims."""
    p = child_file(d, check_study_name(out.study.name), ".json")
    d.mkdir(parents=True, exist_ok=True)

    def clean(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, Mapping):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [clean(v) for v in x]
        return x

    p.write_text(
        json.dumps(
            clean(
                {
                    "study": out.study.name,
                    "mode": out.mode,
                    "started": out.started,
                    "wall_s": out.wall_s,
                    "errors": out.errors,
                    "runs": out.values,
                    "tables": [{"id": t.spec.get("id"), "cells": t.cells} for t in tables],
                    "claims": claims,
                }
            ),
            indent=1,
        ),
        encoding="utf-8",
    )
    return p


_CLAIM_ROW = re.compile(r"^\| (\d+) \| (.*) \| \*\*(.+?)\*\* \| .* \|$")
_RUNS = re.compile(r"mode `(\w+)`; (\d+) runs \((\d+) failed\)")


def index_markdown(docs_dir: Path) -> str:
    """``docs/studies/README.md``: every recorded study page's claims and their verdicts, read
    from the pages themselves, so that the index cannot say something its pages do not."""
    lines = [
        "# Study results",
        "",
        "Recorded full runs of `bufferlab study run NAME` (scenarios, assumptions and published",
        "data in `studies/NAME/`; the command and date are at the top of each page). Each page",
        "holds the paper's tables beside bufferlab's numbers (and the ns-2 / ns-3 peers' where",
        "they ran the same scenario), the paper's figures redrawn, every conclusion of the paper",
        "checked, and a discussion of the differences. A verdict is bufferlab's, followed by the",
        "same check on each peer's recorded numbers where the study has them.",
        "",
        "This index is written by `bufferlab study run` from the pages below; do not edit it.",
        "",
        "| study | mode | runs | claims | holds | does not hold | not checked |",
        "|---|---|---|---|---|---|---|",
    ]
    sections: list[str] = []
    for page in sorted(docs_dir.glob("*.md")):
        if page.name == "README.md":
            continue
        text = page.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        runs = _RUNS.search(text)
        claims = [m.groups() for line in text.splitlines() if (m := _CLAIM_ROW.match(line))]
        heads = [v.split(";")[0].strip() for _, _, v in claims]
        mode, n = (runs[1], runs[2]) if runs else ("?", "?")
        lines.append(
            f"| [{page.stem}]({page.name}) | {mode} | {n} | {len(claims)} | "
            f"{heads.count('holds')} | {heads.count('does not hold')} | "
            f"{heads.count('not checked')} |"
        )
        sections += [f"## [{page.stem}]({page.name}): {title}", ""]
        sections += ["| # | claim | verdict |", "|---|---|---|"]
        sections += [f"| {i} | {c} | {v} |" for i, c, v in claims]
        sections.append("")
    return "\n".join([*lines, "", *sections]).rstrip("\n") + "\n"


def write_index(docs_dir: Path) -> Path:
    p = docs_dir / "README.md"
    p.write_text(index_markdown(docs_dir), encoding="utf-8")
    return p


SAMPLE_RUNS = 10


def write_run_sample(out: Outcome, docs_dir: Path) -> Path:
    """``docs/studies/NAME/runs-sample.json``: the metric values of a few runs of the recorded
    full run, spread over its plan. The test suite runs them again and compares: a change to
    the engine that moves a recorded study fails there, not months later."""
    vals = out.values
    k = min(SAMPLE_RUNS, len(vals))
    picks = sorted({round(i * (len(vals) - 1) / max(1, k - 1)) for i in range(k)})
    runs = [
        {key: vals[i][key] for key in ("experiment", "labels", "replication", "metrics")}
        for i in picks
    ]
    p = child_file(docs_dir, check_study_name(out.study.name)) / "runs-sample.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(
        json.dumps({"study": out.study.name, "mode": out.mode, "runs": runs}, indent=1) + "\n",
        encoding="utf-8",
    )
    return p
