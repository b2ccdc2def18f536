"""Aggregation over replications: mean, standard deviation and the Student-t confidence
interval of each metric per grid point (metric names: :mod:`bufferlab.experiments.metrics`)."""

from __future__ import annotations

import math
import os
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from bufferlab.experiments.labels import metric_bounds
from bufferlab.experiments.metrics import REDUCERS, Metric, MetricError, parse_metric

if TYPE_CHECKING:
    from collections.abc import Iterable

    import pandas as pd

    from bufferlab.experiments.store import Store

# -- Student t --------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (scipy.stats.t):
    ``t_quantile(0.975, 2) = 4.302652...``."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    from scipy.stats import t  # imported on first use: the CLI starts faster without it

    return float(t.ppf(p, df))


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
    if min(xs) == max(xs):
        # Identical replications (a deterministic scenario): exactly no spread, not the
        # rounding residue of the mean (which printed as ± 7.1e-16).
        return {"n": n, "mean": xs[0], "std": 0.0, "sem": 0.0, "ci_low": xs[0],
                "ci_high": xs[0], "ci_half": 0.0}  # fmt: skip
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    sem = std / math.sqrt(n)
    half = t_quantile(0.5 + confidence / 2, n - 1) * sem
    return {"n": n, "mean": mean, "std": std, "sem": sem, "ci_low": mean - half,
            "ci_high": mean + half, "ci_half": half}  # fmt: skip


def identical_rows(agg: pd.DataFrame) -> pd.Series:
    """Which rows of an :func:`aggregate` frame had several replications that all gave the
    same value (their interval is empty); :mod:`bufferlab.experiments.identical` says why."""
    return (agg["n"] > 1) & (agg["std"] == 0)


def clip_to_bounds(row: dict[str, Any], bounds: tuple[float, float]) -> bool:
    """Clips a summary's interval to the values the metric can physically take (a share stays
    in [0, 1], a count above 0); True when it clipped. ``ci_half`` keeps the Student-t
    half-width; ``ci_low`` and ``ci_high`` are the reported, clipped, interval."""
    lo, hi = bounds
    clipped = False
    if row["ci_low"] < lo:
        row["ci_low"], clipped = lo, True
    if row["ci_high"] > hi:
        row["ci_high"], clipped = hi, True
    return clipped


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
    key = {"flows": "name", "fct": "bucket"}.get(metric.table, "link")
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
    """See :func:`aggregate`."""
    import json

    import pandas as pd

    from bufferlab.experiments.store import Store

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
            bounds = metric_bounds(m.text)
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
                row["ci_clipped"] = clip_to_bounds(row, bounds)
                rows.append(row)
        cols = ["point", *axes, "metric", "n", "mean", "std", "sem", "ci_low", "ci_high",
                "ci_half", "ci_clipped"]  # fmt: skip
        out = pd.DataFrame(rows, columns=cols)
        for a in axes:  # lists and tables as JSON text, so the frame stays hashable
            out[a] = out[a].map(lambda v: json.dumps(v) if isinstance(v, dict | list) else v)
        return out
    finally:
        if not isinstance(db, Store):
            store.close()


# -- aggregation per grid point ----------------------------------------------------------------


def aggregate(
    db: str | os.PathLike[str] | Store,
    sweep: str,
    metric: str | Iterable[str] | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Mean, standard deviation and Student-t confidence interval per grid point.

    ``metric`` is one metric (``"flows.goodput_bps"``, ``"flows[p].delay_mean_s"``,
    ``"queues[bottleneck].avg_packets"``, ``"links[bottleneck].utilisation"``,
    ``"fairness.jain"``, ``"runs.wall_s"``), a list of them, or None for the sweep's own
    ``metrics``. One row per grid point and metric; see docs/experiments.md.
    """
    from bufferlab.experiments.stats import aggregate_store

    return aggregate_store(db, sweep, metric, confidence)
