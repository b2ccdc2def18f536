"""Metrics: per-run values computed from a report by the study's expressions (the language is
:mod:`bufferlab.study.expr`)."""

import fnmatch
import math
from collections.abc import Iterable, Mapping
from typing import Any

from bufferlab.study.expr import (
    describe,
    evaluate,
    safe_format,
    safe_range,
    safe_round,
    safe_str,
)
from bufferlab.study.spec import Study

# -- metrics -----------------------------------------------------------------------------------


def _get(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if isinstance(obj, Mapping):
            obj = obj.get(part)
        else:
            return None
    return obj


def _num(x: Any) -> float:
    if x is None:
        return math.nan
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def mean_of(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    return math.fsum(v) / len(v) if v else math.nan


def std_of(xs: Iterable[Any]) -> float:
    """Population standard deviation (as the papers' fairness tables use)."""
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    if not v:
        return math.nan
    m = math.fsum(v) / len(v)
    return math.sqrt(math.fsum((x - m) ** 2 for x in v) / len(v))


def sample_std_of(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    if len(v) < 2:
        return math.nan
    m = math.fsum(v) / len(v)
    return math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1))


def jain_of(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    s2 = math.fsum(x * x for x in v)
    return (math.fsum(v) ** 2) / (len(v) * s2) if v and s2 > 0 else math.nan


def sum_of(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    return math.fsum(x for x in v if not math.isnan(x))


def pct_of(xs: Iterable[Any], q: Any) -> float:
    """The q-quantile (0 < q <= 1) of the numbers among ``xs`` by nearest rank, the value at
    rank ceil(q n) as the report's FCT summaries rank them (monitor/fct.rs, docs/models/fct.md);
    None and NaN (an unfinished transfer's slowdown) are left out; NaN when none is left."""
    v = sorted(x for x in (_num(x) for x in xs) if not math.isnan(x))
    qf = _num(q)
    if not v or not 0 < qf <= 1:
        return math.nan
    return v[max(0, math.ceil(qf * len(v)) - 1)]


def metric_namespace(report: Mapping[str, Any], labels: Mapping[str, Any]) -> dict[str, Any]:
    flows_ = report.get("flows") or []
    fct_flows = (report.get("fct") or {}).get("flows") or []

    def flows(pattern: str = "*", fld: str = "goodput_bps", proto: str | None = None) -> list:
        return [
            _get(f, fld)
            for f in flows_
            if fnmatch.fnmatchcase(str(f.get("name")), pattern)
            and (proto is None or f.get("protocol") == proto)
        ]

    def flow(name: str, fld: str) -> Any:
        """A flow's field; NaN when the scenario has no such flow (e.g. no UDP flow)."""
        for f in flows_:
            if f.get("name") == name:
                v = _get(f, fld)
                return math.nan if v is None else v
        return math.nan

    def queue(lnk: str, fld: str, frm: str | None = None) -> Any:
        for q in report.get("queues") or []:
            if q.get("link") == lnk and (frm is None or q.get("from") == frm):
                return _get(q, fld)
        return None

    def link(lnk: str, fld: str, frm: str | None = None) -> Any:
        for q in report.get("links") or []:
            if q.get("link") == lnk and (frm is None or q.get("from") == frm):
                return _get(q, fld)
        return None

    def fairness(fld: str) -> Any:
        return (report.get("fairness") or {}).get(fld)

    def transfers(
        pattern: str = "*", fld: str = "slowdown", min_bytes: Any = 0, max_bytes: Any = None
    ) -> list:
        """A field of each finite transfer in the report's ``fct.flows`` whose flow name matches
        the glob and whose size is above ``min_bytes`` and at most ``max_bytes`` (the buckets'
        edges, docs/models/fct.md); None where the transfer did not finish (its ``slowdown``,
        ``fct_s``, ``finish_s``). Unlike the report's buckets it can leave some flows out, e.g.
        a workload's flows without the incast answers (``transfers('ws*', 'slowdown', 0,
        100000)``)."""
        lo, hi = _num(min_bytes), _num(max_bytes)
        out = []
        for f in fct_flows:
            size = _num(f.get("size_bytes"))
            if not fnmatch.fnmatchcase(str(f.get("flow")), pattern) or not size > lo:
                continue
            if max_bytes is not None and not size <= hi:
                continue
            out.append(f.get(fld))
        return out

    return {
        "flows": flows,
        "flow": flow,
        "queue": queue,
        "link": link,
        "fairness": fairness,
        "transfers": transfers,
        "pct": pct_of,
        "P": dict(labels),
        "R": report,
        "sum": sum_of,
        "mean": mean_of,
        "std": std_of,
        "sstd": sample_std_of,
        "jain": jain_of,
        "min": min,
        "max": max,
        "len": len,
        "abs": abs,
        "sqrt": math.sqrt,
        "nan": math.nan,
        "num": _num,
        "float": float,
        "int": int,
        "round": safe_round,
        "zip": zip,
    }


#: The functions a plan value (``"= expression"`` in a ``set``) sees, besides the point's labels
#: and ``$vars`` and ``v``.
MATH = {
    "sqrt": math.sqrt,
    "round": safe_round,
    "max": max,
    "min": min,
    "int": int,
    "str": safe_str,
    "float": float,
    "ceil": math.ceil,
    "floor": math.floor,
    "format": safe_format,
    "range": safe_range,
    "len": len,
}


def run_metrics(study: Study, rec: Mapping[str, Any], errors: dict[str, str]) -> dict[str, float]:
    out: dict[str, float] = {}
    rep = rec.get("report")
    if rep is None:
        return out
    ns = metric_namespace(rep, rec["labels"])
    for m in study.metrics.values():
        keys = (
            [(m.name, None)] if not m.each else [(f"{m.name}[{k}]", v) for k, v in m.each.items()]
        )
        for key, fl in keys:
            try:
                v = _num(evaluate(m.expr, {**ns, "F": fl}))
            except Exception as e:  # a metric a scenario cannot give (e.g. no TCP flow)
                errors.setdefault(m.name, describe(e))
                v = math.nan
            out[key] = v
    return out
