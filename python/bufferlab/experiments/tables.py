"""A sweep's aggregates as tables a reader takes in at a glance (`bufferlab results SWEEP`):
one row per grid point, each metric's mean ± 95 % confidence interval in a human unit named in
its column's header (``goodput of tcp0 (Mbit/s)`` with ``95.7 ± 1.2``), and, for exports, the
axis values as numbers with their unit beside them.

The frames come from :func:`bufferlab.experiments.stats.aggregate` (SI units: bit/s, seconds,
shares of 1); nothing here changes a stored number, only how it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bufferlab.experiments.labels import (
    axis_labels,
    axis_value_text,
    column_unit,
    mean_ci_text,
    metric_words,
    numeric_value,
)

if TYPE_CHECKING:
    import pandas as pd


def _axis_cell(v: Any) -> str:
    """An axis value in a table's cell (an inline table by its kind and fields; none: -)."""
    return "-" if v is None else axis_value_text(v)


def header(metric: str, unit: str) -> str:
    words = metric_words(metric)
    return f"{words} ({unit})" if unit else words


def summary(
    agg: pd.DataFrame, axes: Sequence[str], metrics: Sequence[str]
) -> tuple[list[str], list[list[str]], list[str]]:
    """The headers and rows of the one-row-per-point table (axes, then one ``mean ± CI``
    column per metric), and the notes its cells need (clipped intervals, missing runs)."""
    names = axis_labels(list(axes))
    points = list(dict.fromkeys(agg["point"].tolist()))
    heads = ["point", *(names[a] for a in axes)]
    cells: dict[int, list[str]] = {}
    first: dict[int, Any] = {}
    notes: list[str] = []
    for m in metrics:
        g = agg[agg["metric"] == m]
        unit, scale = column_unit(m, g["mean"].tolist())
        heads.append(header(m, unit))
        by_point = {int(r["point"]): r for _, r in g.iterrows()}
        clipped = []
        for p in points:
            r = by_point.get(int(p))
            if r is not None:
                first.setdefault(int(p), r)
            if r is None or r["n"] == 0:
                cells.setdefault(int(p), []).append("-")
                continue
            text = mean_ci_text(r["mean"], r["ci_half"], scale)
            if r.get("ci_clipped"):
                clipped.append(str(int(p)))
                text += " *"
            cells.setdefault(int(p), []).append(text)
        if clipped:
            notes.append(
                f"* {header(m, unit)}: the interval crosses the metric's physical bound at "
                f"point{'s' if len(clipped) > 1 else ''} {', '.join(clipped)}; the reported "
                "interval is clipped there (ci_low / ci_high in -a and exports)"
            )
    rows = []
    for p in points:
        r = first.get(int(p))
        axis_cells = [_axis_cell(r[a]) if r is not None else "-" for a in axes]
        rows.append([str(int(p)), *axis_cells, *cells.get(int(p), [])])
    n_of = {int(p): int(n) for p, n in zip(agg["point"], agg["n"], strict=True)}
    top = max(n_of.values(), default=0)
    none = [str(p) for p, n in n_of.items() if n == 0]
    fewer = [str(p) for p, n in n_of.items() if 0 < n < top]
    if none:
        notes.append(
            f"no finished run at point{'s' if len(none) > 1 else ''} {', '.join(none)} "
            "(--table runs shows the errors)"
        )
    if fewer:
        notes.append(
            f"fewer than {top} finished replications at point{'s' if len(fewer) > 1 else ''} "
            f"{', '.join(fewer)} (-a shows n per point)"
        )
    return heads, rows, notes


def detail(
    g: pd.DataFrame, axes: Sequence[str], metric: str
) -> tuple[str, list[str], list[list[str]]]:
    """One metric's table: per point its n, mean, standard deviation and 95 % interval, in the
    column's unit; the title names the metric in words."""
    names = axis_labels(list(axes))
    unit, scale = column_unit(metric, g["mean"].tolist())

    def num(v: Any) -> str:
        try:
            f = float(v) / scale
        except (TypeError, ValueError):
            return "-"
        return "-" if f != f else f"{f:.4g}"

    heads = ["point", *(names[a] for a in axes), "n", "mean", "std", "CI low", "CI high"]
    rows = []
    for _, r in g.iterrows():
        rows.append(
            [str(int(r["point"])), *(_axis_cell(r[a]) for a in axes), str(int(r["n"])),
             num(r["mean"]), num(r["std"]), num(r["ci_low"]) + ("*" if r.get("ci_clipped") else ""),
             num(r["ci_high"])]
        )  # fmt: skip
    title = f"{header(metric, unit)}: mean, standard deviation and 95 % CI over replications"
    return title, heads, rows


def numeric_axes(df: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """A copy for export whose axis columns hold numbers (``"5KB"`` -> 5000) with a
    ``<axis>_unit`` column beside each (``bytes``); an axis whose values are not all numbers
    of one unit (queue disciplines, tables) keeps its text."""
    out = df.copy()
    for a in axes:
        if a not in out.columns:
            continue
        parsed = [numeric_value(v) for v in out[a].tolist()]
        units = {p[1] for p in parsed if p is not None}
        if any(p is None for p in parsed) or len(units) != 1:
            continue
        at = list(out.columns).index(a)
        out[a] = [p[0] for p in parsed if p is not None]
        out.insert(at + 1, f"{a}_unit", units.pop())
    return out
