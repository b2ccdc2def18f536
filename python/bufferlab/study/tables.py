"""Tables: the study's values beside the paper's and the peers', for the terminal and Markdown."""

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.plan import label_matches
from bufferlab.study.spec import as_list

# -- tables ------------------------------------------------------------------------------------


def published_rows(data: Mapping[str, Any], key: str | None) -> list[dict[str, Any]]:
    if not key:
        return []
    t = data.get("tables", {}).get(key) if "tables" in data else data.get(key)
    if isinstance(t, Mapping):
        return list(t.get("rows", []))
    return list(t or [])


def lookup_published(rows: list[dict[str, Any]], labels: Mapping[str, Any], metric: str) -> Any:
    for r in rows:
        if metric in r and all(label_matches(r.get(k), v) for k, v in labels.items() if k in r):
            return r[metric]
    return None


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return "-"
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}".replace(",", " ")
    a = abs(x)
    if a >= 1000 or (a == int(a) and a >= 10):
        return f"{x:,.0f}".replace(",", " ")
    if a >= 100:
        return f"{x:.1f}"
    if a >= 10:
        return f"{x:.2f}"
    if a >= 0.01 or a == 0:
        return f"{x:.{digits}f}"
    return f"{x:.2g}"


@dataclass
class TableOut:
    spec: dict[str, Any]
    header: list[str]
    rows: list[list[str]]
    flags: int
    cells: list[dict[str, Any]]  # machine-readable: labels, metric, bufferlab, paper, peers


def build_table(out: Outcome, spec: Mapping[str, Any]) -> TableOut:
    st = out.study
    exp = spec["experiment"]
    where = dict(spec.get("where") or {})
    row_keys = as_list(spec.get("rows"))
    cols = as_list(spec.get("columns"))
    pub = published_rows(st.published, spec.get("published"))
    peer_names = as_list(spec.get("peers"))
    peer_rows = {
        p: published_rows(st.peers.get(p, {}), spec.get("peer_table", spec.get("published")))
        for p in peer_names
    }
    tol = float(spec.get("tolerance", st.tolerance))
    labels_list = out.matching(exp, where, row_keys)
    # Row dimensions that are not parameters come from `each` metrics (e.g. source S1..S4).
    params = {p.name for p in st.experiment(exp).params}
    each_dims = [k for k in row_keys if k not in params]
    each_vals: list[dict[str, str]] = [{}]
    if each_dims:
        dim = each_dims[0]
        m0 = next(
            (st.metrics[c] for c in cols if st.metrics[c].each and st.metrics[c].dim == dim), None
        )
        each_vals = [{dim: k} for k in (m0.each or {})] if m0 else [{}]
    # A peer column only for the metrics the peer recorded (a model column has no peer value).
    col_peers = {
        c: [
            p
            for p in peer_names
            if any((st.metrics[c].paper or c) in r for r in peer_rows[p]) or not peer_rows[p]
        ]
        for c in cols
    }
    header = [str(k) for k in row_keys]
    for c in cols:
        lab = st.metrics[c].label or c
        header += [f"{lab} bufferlab"] + ([f"{lab} paper"] if pub or spec.get("published") else [])
        header += [f"{lab} {p}" for p in col_peers[c]]
        if spec.get("published"):
            header += ["Δ"]
    rows, cells, flags = [], [], 0
    for lab in labels_list:
        for ev in each_vals:
            full = {**lab, **ev}
            row = [str(full.get(k, "")) for k in row_keys]
            for c in cols:
                mkey = f"{c}[{ev[st.metrics[c].dim]}]" if st.metrics[c].each and ev else c
                s = out.stat(exp, lab, mkey) or {}
                mean, half, n = s.get("mean", math.nan), s.get("ci_half", math.nan), s.get("n", 0)
                cell = _fmt(mean)
                if n and n > 1 and not math.isnan(half):
                    cell += f" ±{_fmt(half)}" if half > 0 else " ±0"
                row.append(cell)
                p = (
                    lookup_published(pub, {**where, **full}, st.metrics[c].paper or c)
                    if spec.get("published")
                    else None
                )
                if spec.get("published"):
                    row.append(_fmt(p))
                pv = {}
                for pn in col_peers[c]:
                    pv[pn] = lookup_published(
                        peer_rows[pn], {**where, **full}, st.metrics[c].paper or c
                    )
                    row.append(_fmt(pv[pn]))
                delta = None
                if spec.get("published"):
                    if isinstance(p, int | float) and p != 0 and not math.isnan(mean):
                        delta = (mean - p) / abs(p)
                        outside_ci = math.isnan(half) or abs(mean - p) > half
                        flag = abs(delta) > tol and outside_ci
                        flags += flag
                        row.append(f"{delta * 100:+.0f}%" + (" †" if flag else ""))
                    else:
                        row.append("-")
                cells.append(
                    {
                        "labels": full,
                        "metric": c,
                        "bufferlab": mean,
                        "ci_half": half,
                        "n": n,
                        "paper": p,
                        "peers": pv,
                        "delta": delta,
                    }
                )
            rows.append(row)
    return TableOut(dict(spec), header, rows, flags, cells)


# -- text from a study file on a page -------------------------------------------------------------

# What could make a study's text more than text on the site (MkDocs renders the page's Markdown
# with raw HTML, attr_list and md_in_html): the start of a tag, comment or autolink; a link or
# image ("]" followed by "(" or "["); a reference definition ("[x]: url", possible only where
# the line starts, after list or quote markers); and an attribute list ({: onclick=...}). Each of
# those characters becomes an HTML entity: the page shows the same text, and ordinary prose
# (a < b, [10, 60]: ..., `[monitor]`) is written unchanged.
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_LINK_CLOSE = re.compile(r"\](?=\s*[(\[])")
_DEFINITION = re.compile(r"^([\s>*+\-\d.)]*\[[^\]]*)\](?=\s*:)")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def md_text(x: Any) -> str:
    """A study's text (a title, label, claim, evidence ...) for one line of a Markdown page:
    control characters and line breaks become spaces, and nothing in it can become HTML, a
    link, an image, a reference definition or an attribute list."""
    s = _CONTROL.sub(" ", str(x))
    s = _TAG_START.sub("&lt;", s)
    s = _LINK_CLOSE.sub("&#93;", s)
    s = _DEFINITION.sub(r"\1&#93;", s)
    return s.replace("{", "&#123;").replace("}", "&#125;")


def md_cell(x: Any) -> str:
    """:func:`md_text` for a table cell (``|`` would end the cell: it is written ``/``)."""
    return md_text(x).replace("|", "/")


def label_columns(t: TableOut) -> int:
    """How many leading columns name the row (the spec's ``rows``)."""
    return len(as_list(t.spec.get("rows")))


def markdown_table(t: TableOut) -> str:
    # Written by hand, not with pandas/tabulate: their pipe tables pad every cell to the column
    # width, which would rewrite every committed study page (docs/studies/*.md) for no gain.
    lines = ["| " + " | ".join(md_cell(c) for c in t.header) + " |", "|" + "---|" * len(t.header)]
    lines += ["| " + " | ".join(md_cell(c) for c in r) + " |" for r in t.rows]
    return "\n".join(lines)
