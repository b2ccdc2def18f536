"""Metrics of a run and their aggregation over replications (mean, std, Student-t CI).

A metric names one number per run, read from the store:

* ``flows.goodput_bps`` - a column of the ``flows`` table, reduced over the run's flows (mean by
  default); ``flows[tcp0].goodput_bps`` - one flow by name; ``flows.goodput_bps:sum`` - another
  reducer (``mean``, ``sum``, ``min``, ``max``).
* ``queues[bottleneck].avg_packets``, ``links[bottleneck].utilisation`` - queues and links by link
  name (both directions; the default reducer there is ``max``, i.e. the busy direction).
* ``fairness.jain`` and ``runs.<column>`` (``runs.wall_s``, ``runs.events``) - one value per run.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd

    from bufferlab.store import Store

TABLES = ("flows", "queues", "links", "runs", "fairness")
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
    reducer = red or DEFAULT_REDUCER.get(table, "mean")
    if reducer not in REDUCERS:
        raise MetricError(f"metric {text!r}: unknown reducer {reducer!r}; use {list(REDUCERS)}")
    return Metric(text.strip(), table, col, sel, reducer)


# -- Student t --------------------------------------------------------------------------------


def _t_cdf(x: float, df: float) -> float:
    """CDF of Student's t with ``df`` degrees of freedom, via the regularized incomplete beta."""
    if x == 0:
        return 0.5
    z = df / (df + x * x)
    tail = 0.5 * _betainc(df / 2.0, 0.5, z)
    return 1.0 - tail if x > 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by its continued fraction (Lentz's method)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(lbeta + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    f = d
    for m in range(1, 500):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            f *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * f / a


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on the CDF,
    accurate to ~1e-12). ``t_quantile(0.975, 2) = 4.302652...``."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def summarize(values: Iterable[float], confidence: float = 0.95) -> dict[str, float]:
    """n, mean, sample std (n-1), standard error and the two-sided Student-t interval."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    nan = float("nan")
    if n == 0:
        return {"n": 0, "mean": nan, "std": nan, "sem": nan, "ci_low": nan, "ci_high": nan,
                "ci_half": nan}  # fmt: skip
    mean = math.fsum(xs) / n
    if n == 1:
        return {"n": 1, "mean": mean, "std": nan, "sem": nan, "ci_low": nan, "ci_high": nan,
                "ci_half": nan}  # fmt: skip
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    sem = std / math.sqrt(n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * sem
    return {"n": n, "mean": mean, "std": std, "sem": sem, "ci_low": mean - half,
            "ci_high": mean + half, "ci_half": half}  # fmt: skip


# -- per-run values and aggregation -----------------------------------------------------------


def run_values(store: Store, sweep_id: int, metric: Metric) -> pd.DataFrame:
    """One row per ok run of the sweep: run_key, point_index, replication, seed, params, value."""
    con = store.con
    if metric.table in ("runs", "fairness"):
        col = metric.column if metric.table == "runs" else f"fairness_{metric.column}"
        cols = store.columns("runs")
        if col not in cols:
            raise MetricError(f"metric {metric.text!r}: no column {col!r} in runs")
        sql = (
            f'SELECT run_key, point_index, replication, seed, params, "{col}" AS value '
            "FROM runs WHERE sweep_id = ? AND status = 'ok' ORDER BY point_index, replication"
        )
        return con.execute(sql, [sweep_id]).df()
    cols = store.columns(metric.table)
    if not cols:
        raise MetricError(f"metric {metric.text!r}: the sweep has no {metric.table} rows yet")
    if metric.column not in cols:
        numeric = ", ".join(sorted(c for c in cols if c not in ("run_key", "sweep_id")))
        raise MetricError(
            f"metric {metric.text!r}: no column {metric.column!r} in {metric.table}; "
            f"columns are {numeric}"
        )
    key = "name" if metric.table == "flows" else "link"
    where = f' AND t."{key}" = ?' if metric.selector else ""
    args: list[Any] = [sweep_id] + ([metric.selector] if metric.selector else [])
    agg = REDUCERS[metric.reducer]
    sql = (
        f"SELECT r.run_key, r.point_index, r.replication, r.seed, r.params, "
        f'{agg}(t."{metric.column}") AS value FROM runs r JOIN {metric.table} t '
        f"ON t.run_key = r.run_key WHERE r.sweep_id = ? AND r.status = 'ok'{where} "
        "GROUP BY r.run_key, r.point_index, r.replication, r.seed, r.params "
        "ORDER BY r.point_index, r.replication"
    )
    return con.execute(sql, args).df()


def aggregate_store(
    db: str | os.PathLike[str] | Store,
    sweep: str,
    metric: str | Iterable[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """See :func:`bufferlab.sweep.aggregate`."""
    import json

    import pandas as pd

    from bufferlab.store import Store

    store = db if isinstance(db, Store) else Store(db, read_only=True)
    try:
        info = store.sweep_info(sweep)
        metrics = (
            info["metrics"]
            if metric is None
            else [metric]
            if isinstance(metric, str)
            else list(metric)
        )
        axes: list[str] = info["axes"]
        points = {p["index"]: p["params"] for p in info["points"]}
        rows = []
        for mtext in metrics:
            m = parse_metric(mtext)
            df = run_values(store, info["id"], m)
            by_point: dict[int, list[float]] = {}
            for pi, v in zip(df["point_index"], df["value"], strict=True):
                by_point.setdefault(int(pi), []).append(v)
            for pi, params in points.items():
                vals = by_point.get(pi, [])
                row: dict[str, Any] = {"point": pi}
                for a in axes:
                    row[a] = params.get(a)
                row["metric"] = m.text
                row.update(summarize(vals, confidence))
                rows.append(row)
        cols = ["point", *axes, "metric", "n", "mean", "std", "sem", "ci_low", "ci_high", "ci_half"]
        out = pd.DataFrame(rows, columns=cols)
        for a in axes:  # lists and tables as JSON text, so the frame stays hashable
            out[a] = out[a].map(lambda v: json.dumps(v) if isinstance(v, dict | list) else v)
        return out
    finally:
        if not isinstance(db, Store):
            store.close()
