"""Why replications gave identical values, said where a sweep reports them (the `sweep` command's
note, `bufferlab results`, the HTML report).

Identical replications make a confidence interval of ± 0, which says nothing about the spread a
reader should expect. There are three different causes, with different fixes:

* **pinned**: the value sits at a physical bound in every replication (a link busy all the time,
  no loss at all, a buffer full to its limit, perfect fairness): the replications agree because
  physics leaves no room, and nothing needs fixing;
* **phase-locked**: the flows start at random times, yet the value does not move: DropTail's
  phase effect (Floyd and Jacobson 1992, "On traffic phase effects in packet-switched gateways"),
  where flows whose packets leave in lockstep keep hitting the full buffer in the same order
  whatever their start times; ns-2 users break it with per-packet randomisation (`overhead_`),
  here a flow's `send_jitter`;
* **deterministic**: nothing in the scenario is random for this value (fixed start times, no
  random traffic): randomise the start times.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from bufferlab.experiments.labels import metric_bounds
from bufferlab.experiments.stats import identical_rows

# The scenario option that breaks phase locking (docs/scenario.md, flows).
JITTER_OPTION = "send_jitter"

PINNED = (
    "the value sits at its physical bound in every replication (a link busy all the time, no "
    "loss, a full buffer, perfect fairness): the replications agree because nothing else is "
    "possible, not because they are too few"
)
PHASE_LOCKED = (
    "the flows start at random times, yet the value does not move: DropTail's phase effect "
    "(Floyd and Jacobson 1992) locks flows that send in step; give the flows per-packet send "
    f'jitter ({JITTER_OPTION} = "1ms", ns-2\'s overhead_; docs/scenario.md)'
)
DETERMINISTIC = (
    "nothing random in the scenario changes this value: randomise the flows' start times "
    '(start = { kind = "uniform", min = "0s", max = "1s" }, docs/scenario.md)'
)


def at_bound(metric: str, value: float) -> bool:
    """True when ``value`` is at (or, for a share, within 0.1 % of) a physical bound of the
    metric, or a queue's maximum (which a buffer's limit pins)."""
    lo, hi = metric_bounds(metric)
    if value == lo:
        return True
    if math.isfinite(hi) and value >= hi * 0.999:
        return True
    column = metric.partition(".")[2].partition(":")[0]
    return column in ("max_packets", "max_bytes")


def random_starts(base_scenario: str | None, axes: Iterable[str] = ()) -> bool:
    """Whether the sweep's flows start at random times: a flow's ``start`` drawn from a
    distribution in the base scenario, or any per-packet jitter, or a start-time axis."""
    if any(a.endswith(".start") for a in axes):
        return True
    if not base_scenario:
        return False
    try:
        doc = tomllib.loads(base_scenario)
    except tomllib.TOMLDecodeError:
        return False
    flows = doc.get("flows")
    items: Iterable[Any] = flows.values() if isinstance(flows, Mapping) else flows or []
    return any(isinstance(f, Mapping) and isinstance(f.get("start"), Mapping) for f in items)


def reason(metric: str, value: float, base_scenario: str | None, axes: Iterable[str] = ()) -> str:
    """The cause of identical replications of ``metric`` (all equal to ``value``), in words."""
    if at_bound(metric, value):
        return PINNED
    if random_starts(base_scenario, axes):
        return PHASE_LOCKED
    return DETERMINISTIC


def notes(agg: Any, base_scenario: str | None, axes: Iterable[str]) -> list[str]:
    """One line per cause among the points of an aggregate frame whose replications were
    identical: how many (point, metric) pairs, which metrics, and the cause."""
    same = agg[identical_rows(agg)]
    if same.empty:
        return []
    axes = list(axes)
    by_cause: dict[str, list[str]] = {}
    for _, r in same.iterrows():
        cause = reason(str(r["metric"]), float(r["mean"]), base_scenario, axes)
        by_cause.setdefault(cause, []).append(str(r["metric"]))
    out = []
    for cause, metrics in by_cause.items():
        names = ", ".join(dict.fromkeys(metrics))
        out.append(
            f"identical replications at {len(metrics)} of {len(agg)} (point, metric) pairs "
            f"({names}): {cause}"
        )
    return out
