"""The metric names of sweeps: one number per run, read from the store.

A metric names one number per run, read from the store:

* ``flows.goodput_bps`` - a column of the ``flows`` table, reduced over the run's flows (mean by
  default); ``flows[tcp0].goodput_bps`` - one flow by name; ``flows.goodput_bps:sum`` - another
  reducer (``mean``, ``sum``, ``min``, ``max``).
* ``queues[bottleneck].avg_packets``, ``links[bottleneck].utilisation`` - queues and links by link
  name (both directions; the default reducer there is ``max``, i.e. the busy direction).
* ``queues[bottleneck].class_l_sojourn_mean_s`` - one class of a class-based queue (DualPI2's
  ``l`` and ``c``, a classful queue's classes by name): ``class_<name>_<field>`` for every number
  of ``queues[].classes[]`` (arrivals, drops, marks, avg_packets, sojourn_mean_s, sojourn_p50_s,
  sojourn_p99_s, ...), from the warm-up on like the queue's own.
* ``fct[<100KB].slowdown_p99`` - flow completion times by size bucket (the report's
  ``fct.buckets``, docs/models/fct.md): the bucket by its label (``<100KB``, ``100KB-1MB``,
  ``>1MB`` with the default edges), ``fct.slowdown_p99`` the ``all`` bucket; columns count,
  unfinished, fct_mean_s, fct_p50_s, fct_p99_s, fct_p999_s and slowdown_mean, _p50, _p99, _p999.
* ``fairness.jain`` and ``runs.<column>`` (``runs.wall_s``, ``runs.events``) - one value per run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

TABLES = ("flows", "queues", "links", "runs", "fairness", "fct")
REDUCERS = {"mean": "avg", "sum": "sum", "min": "min", "max": "max"}
DEFAULT_REDUCER = {"flows": "mean", "queues": "max", "links": "max"}
_METRIC_RE = re.compile(
    r"^(?P<table>[a-z_]+)(?:\[(?P<sel>[^\]]+)\])?\.(?P<col>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?::(?P<red>[a-z]+))?$"
)


class MetricError(ValueError):
    """A metric name that cannot be read."""


@dataclass(frozen=True)
class Metric:
    text: str
    table: str
    column: str
    selector: str | None
    reducer: str


def parse_metric(text: str) -> Metric:
    m = _METRIC_RE.match(text.strip())
    if not m:
        raise MetricError(
            f"metric {text!r}: write it as table.column, table[name].column or "
            "table.column:reducer, e.g. flows.goodput_bps or queues[bottleneck].avg_packets"
        )
    table, col, sel, red = m["table"], m["col"], m["sel"], m["red"]
    if table not in TABLES:
        raise MetricError(f"metric {text!r}: unknown table {table!r}; use one of {list(TABLES)}")
    if table in ("runs", "fairness") and (sel or red):
        raise MetricError(f"metric {text!r}: {table} has one value per run (no [name] or :reducer)")
    if table == "fct" and not sel:
        sel = "all"  # one row per bucket: without a bucket, the one of every flow
    reducer = red or DEFAULT_REDUCER.get(table, "mean")
    if reducer not in REDUCERS:
        raise MetricError(f"metric {text!r}: unknown reducer {reducer!r}; use {list(REDUCERS)}")
    return Metric(text.strip(), table, col, sel, reducer)
