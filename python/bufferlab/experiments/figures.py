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


def numeric_value(v: Any) -> tuple[float, str] | None:
    """``"50KB"`` -> (50000.0, "bytes"), ``"25p"`` -> (25.0, "packets"), ``3`` -> (3.0, "");
    None when the value is not a number with a unit of the scenario grammar (the core's own
    parser reads it, so axes agree with what the runs used)."""
    from bufferlab import _core

    if isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return float(v), ""
    if not isinstance(v, str):
        return None
    return _core.quantity(v)


def axis_positions(values: Sequence[Any]) -> tuple[list[float], str | None]:
    """Numeric x positions for axis values when they are all numbers of one kind, else the
    positions 0..n-1 (categorical) and None."""
    parsed = [numeric_value(v) for v in values]
    if all(p is not None for p in parsed) and len({p[1] for p in parsed if p}) == 1:
        return [p[0] for p in parsed if p], parsed[0][1] if parsed[0] else ""
    return list(range(len(values))), None


# Words and units for the columns a metric names (docs/results-json.md), and the scale that
# turns the stored value into that unit.
_COLUMNS: dict[str, tuple[str, str, float]] = {
    "goodput_bps": ("goodput", "Mbit/s", 1e6),
    "throughput_bps": ("throughput", "Mbit/s", 1e6),
    "delay_mean_s": ("mean delay", "ms", 1e-3),
    "delay_p50_s": ("median delay", "ms", 1e-3),
    "delay_p95_s": ("95th-percentile delay", "ms", 1e-3),
    "delay_p99_s": ("99th-percentile delay", "ms", 1e-3),
    "delay_max_s": ("maximum delay", "ms", 1e-3),
    "jitter_s": ("jitter", "ms", 1e-3),
    "sojourn_mean_s": ("mean sojourn time", "ms", 1e-3),
    "sojourn_p99_s": ("99th-percentile sojourn time", "ms", 1e-3),
    "sojourn_max_s": ("maximum sojourn time", "ms", 1e-3),
    "avg_packets": ("mean queue length", "packets", 1.0),
    "avg_bytes": ("mean queue length", "bytes", 1.0),
    "max_packets": ("maximum queue length", "packets", 1.0),
    "max_bytes": ("maximum queue length", "bytes", 1.0),
    "lost_packets": ("packets lost", "packets", 1.0),
    "drops": ("drops", "packets", 1.0),
    "marks": ("ECN marks", "packets", 1.0),
    "tx_packets": ("packets sent", "packets", 1.0),
    "rx_packets": ("packets received", "packets", 1.0),
    "utilisation": ("utilisation", "%", 0.01),
    "loss_ratio": ("loss", "%", 0.01),
    "jain": ("Jain's fairness index", "", 1.0),
    "wall_s": ("wall time", "s", 1.0),
}
_REDUCED = {"sum": "sum over", "mean": "mean over", "max": "largest over", "min": "smallest over"}
_TABLE_NOUN = {"flows": "flows", "queues": "queues", "links": "links"}


def _metric_label(metric: str) -> tuple[str, float]:
    """A human label with its unit (``mean delay of tcp0 (ms)``, ``goodput, sum over flows
    (Mbit/s)``) and the scale to divide values by."""
    table, _, rest = metric.partition(".")
    sel = None
    if "[" in table:
        table, sel = table[:-1].split("[", 1)
    col, _, red = rest.partition(":")
    words, unit, scale = _COLUMNS.get(col, (col.replace("_", " "), "", 1.0))
    if col.endswith("_bps") and col not in _COLUMNS:
        unit, scale = "Mbit/s", 1e6
    elif col.endswith("_s") and col not in _COLUMNS:
        unit, scale = "ms", 1e-3
    if sel:
        label = f"{words} of {sel}"
    elif table in _TABLE_NOUN:
        how = _REDUCED.get(red or ("max" if table in ("queues", "links") else "mean"), "over")
        label = f"{words}, {how} {_TABLE_NOUN[table]}"
    else:
        label = words
    return (f"{label} ({unit})" if unit else label), scale


def axis_title(axis: str) -> str:
    """A human name for a sweep axis: ``links.bottleneck.queue.kind`` -> ``queue discipline of
    bottleneck``, ``links.bottleneck.queue.limit`` -> ``buffer of bottleneck``; other paths keep
    their dotted form."""
    parts = axis.split(".")
    if parts[0] == "links" and len(parts) >= 3:
        link, rest = parts[1], ".".join(parts[2:])
        names = {
            "queue": "queue",
            "reverse_queue": "reverse queue",
            "queue.kind": "queue discipline",
            "reverse_queue.kind": "reverse queue discipline",
            "queue.limit": "buffer",
            "rate": "rate",
            "delay": "delay",
        }
        if rest in names:
            return f"{names[rest]} of {link}"
    return axis


def _category(v: Any) -> str:
    """A category's tick label: the kind of an inline table (``{"kind": "red", ...}`` -> red),
    else the value itself."""
    if isinstance(v, str) and v.startswith("{"):
        try:
            d = json.loads(v)
        except ValueError:
            return v
        if isinstance(d, dict) and "kind" in d:
            rest = ", ".join(f"{k}={w}" for k, w in d.items() if k != "kind")
            return f"{d['kind']}\n{rest}" if rest else str(d["kind"])
    return str(v)


def axis_labels(axes: Sequence[str]) -> dict[str, str]:
    """The shortest dotted suffix of each axis that tells it from the others
    (``links.bottleneck.rate`` -> ``rate``, but ``flows.0.app.rate`` -> ``0.app.rate``
    next to ``flows.1.app.rate``)."""
    out = {}
    for a in axes:
        parts = a.split(".")
        for n in range(1, len(parts) + 1):
            suffix = ".".join(parts[-n:])
            if not any(b != a and (b == suffix or b.endswith("." + suffix)) for b in axes):
                break
        out[a] = suffix
    return out


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
        skip = {"point", "metric", "n", "mean", "std", "sem", "ci_low", "ci_high", "ci_half"}
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
    ylabel, yscale = _metric_label(metric)
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    groups = list(df.groupby(others, sort=False, dropna=False)) if others else [((), df)]
    n_groups = len(groups)
    for gi, (gkey, g) in enumerate(groups):
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        names = axis_labels(list(axes))
        label = ", ".join(f"{names[o]}={v}" for o, v in zip(others, gkey, strict=True))
        xs = [xpos[_key(v)] for v in g[x]]
        ys = g["mean"] / yscale
        err = g["ci_half"].fillna(0) / yscale
        if kind is None:
            # Categories (queue disciplines, ...): points with their intervals, side by side
            # per group, never joined by a line that would suggest an order between them.
            shift = (gi - (n_groups - 1) / 2) * 0.08
            ax.errorbar([v + shift for v in xs], ys, yerr=err, marker="o", ls="none",
                        capsize=3, label=label or None)  # fmt: skip
        else:
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label or None)
    if kind is None:
        ax.set_xticks(list(xpos.values()), [_category(v) for v in xvals])
    title_x = axis_title(x)
    ax.set_xlabel(f"{title_x} ({unit})" if unit else title_x)
    ax.set_ylabel(ylabel)
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
