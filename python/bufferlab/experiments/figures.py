"""Figures (matplotlib, Agg backend): what the buffer-sizing papers plot.

* :func:`metric_figure` - a metric against one axis (buffer size by default), one line per value
  of the other axes, error bars = confidence intervals over replications;
* :func:`queue_figure` - queue length (instantaneous and the discipline's average) against time;
* :func:`flows_figure` - per-flow bars: sent / received / lost packets and goodput (fairness);
* :func:`cwnd_figure` - congestion window against time when the report has TCP series;
* :func:`flow_series_figure` - per-flow throughput, sends and losses against time.

The one-run figures are defined in :mod:`bufferlab.run_figures` and re-exported here.

Each returns a matplotlib Figure; :func:`save` writes it as PNG, SVG or PDF by the extension.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# Names, units and bounds of metrics and axes are shared with the tables and the report.
from bufferlab.experiments.labels import (
    axis_labels,
    axis_title,
    axis_value_text,
    metric_bounds,
    metric_label,
    numeric_value,
)

# One run's figures live in bufferlab.run_figures (Results.plot uses them without a store);
# they are part of this module's interface too.
from bufferlab.run_figures import (  # noqa: F401
    cwnd_figure,
    flow_series_figure,
    flows_figure,
    legend_outside,
    queue_figure,
    scaled_unit,
)

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")


def axis_positions(values: Sequence[Any]) -> tuple[list[float], str | None]:
    """Numeric x positions for axis values when they are all numbers of one kind, else the
    positions 0..n-1 (categorical) and None."""
    parsed = [numeric_value(v) for v in values]
    if all(p is not None for p in parsed) and len({p[1] for p in parsed if p}) == 1:
        return [p[0] for p in parsed if p], parsed[0][1] if parsed[0] else ""
    return list(range(len(values))), None


def default_x_axis(axes: Sequence[str]) -> str:
    for a in axes:
        if a.endswith("queue.limit") or "limit" in a.split(".")[-1]:
            return a
    return axes[0]


def _key(v: Any) -> str:
    return json.dumps(v, sort_keys=True) if not isinstance(v, str) else v


def metric_figure(
    agg: pd.DataFrame,
    metric: str,
    x: str | None = None,
    axes: Sequence[str] | None = None,
    title: str | None = None,
) -> Figure:
    """``agg`` is :func:`bufferlab.experiments.stats.aggregate`'s frame. One line per
    combination of the axes other than ``x``; error bars are the confidence intervals."""
    df = agg[agg["metric"] == metric]
    if axes is None:
        skip = {
            "point",
            "metric",
            "n",
            "mean",
            "std",
            "sem",
            "ci_low",
            "ci_high",
            "ci_half",
            "ci_clipped",
        }
        axes = [c for c in agg.columns if c not in skip]
    if not axes:
        raise ValueError("the sweep has no axes to plot against")
    x = x or default_x_axis(axes)
    if x not in axes:
        raise ValueError(f"x axis {x!r} is not an axis of the sweep; axes are {list(axes)}")
    others = [a for a in axes if a != x]
    xvals = list(dict.fromkeys(df[x].tolist()))
    pos, kind = axis_positions(xvals)
    scale, unit = scaled_unit(kind or "", pos) if kind is not None else (1, "")
    xpos = {_key(v): p / scale for v, p in zip(xvals, pos, strict=True)}
    ylabel, yscale = metric_label(metric)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    groups = list(df.groupby(others, sort=False, dropna=False)) if others else [((), df)]
    n_groups = len(groups)
    for gi, (gkey, g) in enumerate(groups):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        names = axis_labels(list(axes))
        label = ", ".join(f"{names[o]}={v}" for o, v in zip(others, gkey, strict=True))
        xs = [xpos[_key(v)] for v in g[x]]
        ys = g["mean"] / yscale
        # asymmetric when an interval was clipped at a physical bound (a share below 0)
        if "ci_low" in g and "ci_high" in g:
            low = (g["mean"] - g["ci_low"]).fillna(0).clip(lower=0) / yscale
            high = (g["ci_high"] - g["mean"]).fillna(0).clip(lower=0) / yscale
        else:  # a frame of the caller's own with the half-width only
            low = high = g["ci_half"].fillna(0) / yscale
        err = [low.to_numpy(), high.to_numpy()]
        if kind is None:
            # Categories (queue disciplines, ...): points with their intervals, side by side
            # per group, never joined by a line that would suggest an order between them.
            shift = (gi - (n_groups - 1) / 2) * 0.08
            ax.errorbar([v + shift for v in xs], ys, yerr=err, marker="o", ls="none",
                        capsize=3, label=label or None)  # fmt: skip
        else:
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label or None)
    if kind is None:
        ax.set_xticks(list(xpos.values()), [axis_value_text(v, two_lines=True) for v in xvals])
    title_x = axis_title(x)
    ax.set_xlabel(f"{title_x} ({unit})" if unit else title_x)
    ax.set_ylabel(ylabel)
    if metric_bounds(metric)[0] == 0:
        # a rate, a share, a delay or a count starts at zero: a cropped axis would make a
        # 1 % difference look like a factor
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if others:
        legend_outside(ax)
    ax.set_title(title or f"{ylabel.rsplit(' (', 1)[0]}: mean and 95 % CI", fontsize=10)
    fig.tight_layout()
    return fig


def save(fig: Figure, out: str | Path) -> Path:
    """Writes the figure; the format follows the extension (.png, .svg, .pdf)."""
    p = Path(out)
    if p.suffix.lower() not in FORMATS:
        raise ValueError(f"{p}: unknown figure format; use one of {', '.join(FORMATS)}")
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, bbox_inches="tight")
    plt.close(fig)
    return p


def to_png_bytes(fig: Figure) -> bytes:
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


# -- from the store ---------------------------------------------------------------------------


def first_ok_run(store: Any, sweep: str, point: int | None = None) -> str | None:
    info = store.sweep_info(sweep)
    q = "SELECT run_key FROM runs WHERE sweep_id = ? AND status = 'ok'"
    args: list[Any] = [info["id"]]
    if point is not None:
        q += " AND point_index = ?"
        args.append(point)
    row = store.con.execute(q + " ORDER BY point_index, replication LIMIT 1", args).fetchone()
    return row[0] if row else None


def run_flows(store: Any, run_key: str) -> pd.DataFrame:
    return store.con.execute("SELECT * FROM flows WHERE run_key = ? ORDER BY rowid", [run_key]).df()


def describe_run(store: Any, run_key: str) -> str:
    row = store.con.execute(
        "SELECT params, replication, seed FROM runs WHERE run_key = ?", [run_key]
    ).fetchone()
    if row is None:
        return run_key
    params: Mapping[str, Any] = json.loads(row[0])
    names = axis_labels(list(params))
    p = ", ".join(f"{names[k]}={v}" for k, v in params.items())
    return f"{p} (replication {row[1]}, seed {row[2]})"
