"""What a sweep's metrics and axes are called, in which unit they read, and which values they
can physically take: shared by the terminal tables (`bufferlab results`), the figures and the
HTML report, so the three say the same thing. No matplotlib here: the CLI imports it.

Metric names are :mod:`bufferlab.experiments.metrics`'s (``flows[tcp0].goodput_bps``,
``links[bottleneck].utilisation``, ``flows.lost_packets:sum``); the columns they name are the
report's (docs/results-json.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

# Words and units for the columns a metric names, and the scale that turns the stored value
# (SI: bit/s, seconds, a share of 1) into that unit. Figures use these fixed units; tables
# scale rates and times to the column's magnitude (:func:`column_unit`).
COLUMNS: dict[str, tuple[str, str, float]] = {
    "goodput_bps": ("goodput", "Mbit/s", 1e6),
    "throughput_bps": ("throughput", "Mbit/s", 1e6),
    "delay_mean_s": ("mean one-way delay", "ms", 1e-3),
    "delay_p50_s": ("median one-way delay", "ms", 1e-3),
    "delay_p95_s": ("95th-percentile one-way delay", "ms", 1e-3),
    "delay_p99_s": ("99th-percentile one-way delay", "ms", 1e-3),
    "delay_max_s": ("maximum one-way delay", "ms", 1e-3),
    "jitter_s": ("jitter", "ms", 1e-3),
    "sojourn_mean_s": ("mean sojourn time", "ms", 1e-3),
    "sojourn_p50_s": ("median sojourn time", "ms", 1e-3),
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

# Columns that are a share of a whole (0 to 1): their intervals stay in [0, 1].
SHARES = {"utilisation", "loss_ratio", "jain"}


def _parts(metric: str) -> tuple[str, str | None, str, str]:
    """``flows[tcp0].goodput_bps:sum`` -> (flows, tcp0, goodput_bps, sum)."""
    table, _, rest = metric.partition(".")
    sel = None
    if "[" in table:
        table, sel = table[:-1].split("[", 1)
    col, _, red = rest.partition(":")
    return table, sel, col, red


def _class_column(col: str) -> tuple[str, str] | None:
    """``class_l_sojourn_mean_s`` (a classful queue's class, docs/experiments.md) -> (l,
    sojourn_mean_s): the class name is what precedes the longest known column."""
    if not col.startswith("class_"):
        return None
    rest = col[len("class_") :]
    for known in sorted(COLUMNS, key=len, reverse=True):
        if rest.endswith("_" + known) and len(rest) > len(known) + 1:
            return rest[: -len(known) - 1], known
    return None


def _unit_of(col: str) -> tuple[str, str, float]:
    cls = _class_column(col)
    if cls is not None:
        words, unit, scale = _unit_of(cls[1])
        return f"{words} (class {cls[0]})", unit, scale
    words, unit, scale = COLUMNS.get(col, (col.replace("_", " "), "", 1.0))
    if col.endswith("_bps") and col not in COLUMNS:
        unit, scale = "Mbit/s", 1e6
    elif col.endswith("_s") and col not in COLUMNS:
        unit, scale = "ms", 1e-3
    return words, unit, scale


def metric_words(metric: str) -> str:
    """The metric in words, without its unit: ``goodput of tcp0``, ``packets lost, sum over
    flows``, ``utilisation of bottleneck``."""
    table, sel, col, red = _parts(metric)
    words, _, _ = _unit_of(col)
    if sel:
        return f"{words} of {sel}"
    if table in _TABLE_NOUN:
        how = _REDUCED.get(red or ("max" if table in ("queues", "links") else "mean"), "over")
        return f"{words}, {how} {_TABLE_NOUN[table]}"
    return words


def metric_label(metric: str) -> tuple[str, float]:
    """A human label with its unit (``mean one-way delay of tcp0 (ms)``, ``goodput, sum over
    flows (Mbit/s)``) and the scale to divide values by."""
    _, _, col, _ = _parts(metric)
    _, unit, scale = _unit_of(col)
    label = metric_words(metric)
    return (f"{label} ({unit})" if unit else label), scale


def metric_bounds(metric: str) -> tuple[float, float]:
    """The values the metric can physically take: a share lies in [0, 1]; a count, a rate, a
    time or a queue length is never below 0; anything else is unbounded."""
    _, _, col, _ = _parts(metric)
    col = (_class_column(col) or ("", col))[1]
    if col in SHARES:
        return 0.0, 1.0
    if col in COLUMNS or col.endswith(("_bps", "_s", "_packets", "_bytes")):
        return 0.0, math.inf
    return -math.inf, math.inf


def column_unit(metric: str, values: Iterable[float]) -> tuple[str, float]:
    """The unit a table column of this metric reads in, and the scale to divide by: rates in
    bit/s, kbit/s, Mbit/s or Gbit/s and times in µs, ms or s by the column's largest value, so
    every row of the column shares one unit; shares in %."""
    _, _, col, _ = _parts(metric)
    _, unit, scale = _unit_of(col)
    finite = [abs(v) for v in values if v is not None and math.isfinite(v)]
    top = max(finite, default=0.0)
    if unit == "Mbit/s":
        for u, s in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
            if top >= s:
                return u, s
        return "bit/s", 1.0
    if unit in ("ms", "s") and col.endswith("_s"):
        for u, s in (("s", 1.0), ("ms", 1e-3)):
            if top >= s:
                return u, s
        return "µs", 1e-6
    return unit, scale


def _decimals(half: float) -> int:
    """Decimal places that show a half-width to two significant digits."""
    return max(0, 1 - math.floor(math.log10(half)))


def mean_ci_text(mean: float, half: float, scale: float) -> str:
    """``95.7 ± 1.2``: the mean to the precision its interval has (two significant digits of
    the half-width), in the column's unit; the mean alone when there is no interval."""
    if mean is None or not math.isfinite(mean):
        return "-"
    m = mean / scale
    if half is None or not math.isfinite(half):
        return f"{m:.4g}"
    if half == 0:
        return f"{m:.4g} ± 0"
    h = half / scale
    d = min(_decimals(h), 9)
    return f"{m:,.{d}f} ± {h:,.{d}f}"


# -- axes ---------------------------------------------------------------------------------------


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


def axis_value_text(v: Any, two_lines: bool = False) -> str:
    """An axis value as the sweep file wrote it: an inline table (``{"kind": "red", ...}``,
    stored as JSON text) by its kind, then its other fields on a second line (a figure's tick)
    or in parentheses (a table's cell); any other value as it is."""
    if isinstance(v, str) and v.startswith("{"):
        try:
            d = json.loads(v)
        except ValueError:
            return v
        if isinstance(d, dict) and "kind" in d:
            rest = ", ".join(f"{k}={w}" for k, w in d.items() if k != "kind")
            if not rest:
                return str(d["kind"])
            return f"{d['kind']}\n{rest}" if two_lines else f"{d['kind']} ({rest})"
    return str(v)


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


def si_unit(metric: str) -> str:
    """The unit a metric is stored and exported in (the report's SI units)."""
    _, _, col, _ = _parts(metric)
    if col in SHARES:
        return "share of 1" if col != "jain" else ""
    if col.endswith("_bps"):
        return "bit/s"
    if col.endswith("_s"):
        return "s"
    _, unit, _ = _unit_of(col)
    return unit
