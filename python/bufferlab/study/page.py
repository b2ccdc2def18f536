"""The study page (docs/studies/NAME.md) and the per-run data file."""

import json
import math
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.tables import TableOut, markdown_table

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
    img_dir = doc_path.parent / st.name
    img_dir.mkdir(parents=True, exist_ok=True)
    lines = [f"# {st.title}", ""]
    lines += [f"Study `{st.name}`. Source paper: {st.paper}. {st.summary}".strip(), ""]
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
            "numbers are a preview and the comparison with the paper's full-length numbers does "
            "not hold as it stands; the recorded page is written by a full run "
            f"(`bufferlab study run {st.name}`).",
            "",
        ]
    if out.errors:
        lines += ["Problems met:", ""] + [f"* {k}: {v}" for k, v in out.errors.items()] + [""]
    lines += ["## Tables", ""]
    for t in tables:
        lines += [f"### {t.spec.get('id', '')}: {t.spec.get('title', '')}", ""]
        if t.spec.get("note"):
            lines += [t.spec["note"], ""]
        lines += [markdown_table(t), ""]
    if figs:
        lines += ["## Figures", ""]
        for spec, p in figs:
            dst = img_dir / p.name
            if p.resolve() != dst.resolve():
                shutil.copyfile(p, dst)
            lines += [f"### {spec.get('id', '')}: {spec.get('title', '')}", ""]
            if spec.get("note"):
                lines += [spec["note"], ""]
            lines += [f"![{spec.get('id', '')}]({st.name}/{p.name})", ""]
    lines += ["## The paper's conclusions, checked", ""]
    lines += ["| # | claim | verdict | evidence |", "|---|---|---|---|"]
    for i, c in enumerate(claims, 1):
        ev = (c["evidence"] + (f" {c['note']}" if c["note"] else "")).replace("|", "/")
        src = f" ({c['source']})" if c["source"] else ""
        lines.append(f"| {i} | {c['claim']}{src} | **{c['verdict']}** | {ev} |")
    lines.append("")
    disc = st.dir / "discussion.md"
    if disc.exists():
        lines += [disc.read_text(encoding="utf-8").rstrip(), ""]
    doc_path.parent.mkdir(parents=True, exist_ok=True)
    doc_path.write_text("\n".join(lines), encoding="utf-8")
    return doc_path


def save_outcome(
    out: Outcome, tables: list[TableOut], claims: list[dict[str, Any]], d: Path
) -> Path:
    """``DIR/NAME.json``: per-run metric values, the tables' cells and the claims."""
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{out.study.name}.json"

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
    p = docs_dir / out.study.name / "runs-sample.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(
        json.dumps({"study": out.study.name, "mode": out.mode, "runs": runs}, indent=1) + "\n",
        encoding="utf-8",
    )
    return p
