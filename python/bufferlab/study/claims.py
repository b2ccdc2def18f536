"""Claims: each of the paper's conclusions checked against the study's values."""

import itertools
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.metrics import evaluate, jain_of, mean_of, std_of, sum_of
from bufferlab.study.plan import normalise_label
from bufferlab.study.tables import published_rows

# -- claims ------------------------------------------------------------------------------------


def claim_namespace(out: Outcome) -> dict[str, Any]:
    st = out.study
    default_exp = st.experiments[0].name if st.experiments else ""

    def vals(metric: str, exp: str | None = None, **where: Any) -> list[float]:
        e = exp or default_exp
        return [
            (out.stat(e, lab, metric) or {}).get("mean", math.nan) for lab in out.matching(e, where)
        ]

    def m(metric: str, exp: str | None = None, **where: Any) -> float:
        return mean_of(vals(metric, exp, **where))

    def series(metric: str, x: str, exp: str | None = None, **where: Any) -> list[float]:
        e = exp or default_exp
        p = next(p for p in st.experiment(e).params if p.name == x)
        return [
            m(metric, e, **{**where, x: lab})
            for lab in p.labels()
            if out.matching(e, {**where, x: lab})
        ]

    def pub(table: str, metric: str, **where: Any) -> float:
        rows = published_rows(st.published, table)
        return mean_of(
            r.get(metric)
            for r in rows
            if all(normalise_label(r.get(k)) == normalise_label(v) for k, v in where.items())
        )

    def labels(param: str, exp: str | None = None) -> list[Any]:
        e = exp or default_exp
        return [
            lab
            for lab in next(p for p in st.experiment(e).params if p.name == param).labels()
            if out.matching(e, {param: lab})
        ]

    def increasing(xs: Sequence[float], tol: float = 0.0) -> bool:
        return all(b >= a * (1 - tol) for a, b in itertools.pairwise(xs))

    def decreasing(xs: Sequence[float], tol: float = 0.0) -> bool:
        return all(b <= a * (1 + tol) for a, b in itertools.pairwise(xs))

    def flat(xs: Sequence[float], rel: float = 0.1) -> bool:
        v = [x for x in xs if not math.isnan(x)]
        return bool(v) and (max(v) - min(v)) <= rel * abs(mean_of(v))

    def rel(a: float, b: float) -> float:
        return (a - b) / abs(b) if b else math.nan

    def order(d: Mapping[str, float], reverse: bool = False) -> list[str]:
        return [k for k, _ in sorted(d.items(), key=lambda kv: kv[1], reverse=reverse)]

    return {
        "m": m,
        "vals": vals,
        "series": series,
        "pub": pub,
        "labels": labels,
        "increasing": increasing,
        "decreasing": decreasing,
        "flat": flat,
        "rel": rel,
        "order": order,
        "mean": mean_of,
        "std": std_of,
        "jain": jain_of,
        "min": min,
        "max": max,
        "abs": abs,
        "all": all,
        "any": any,
        "len": len,
        "sqrt": math.sqrt,
        "round": round,
        "sorted": sorted,
        "dict": dict,
        "list": list,
        "zip": zip,
        "isnan": math.isnan,
        "sum": sum_of,
        "nan": math.nan,
        "format": format,
        "str": str,
        "range": range,
        "float": float,
        "int": int,
    }


def check_claims(out: Outcome) -> list[dict[str, Any]]:
    ns = claim_namespace(out)
    res = []
    for c in out.study.claims:
        verdict, evidence = "not checked", ""
        try:
            if c.get("check"):
                ok = evaluate(c["check"], ns)
                verdict = "holds" if ok else "does not hold"
            if c.get("evidence"):
                evidence = evaluate("f" + json.dumps(c["evidence"]), ns)
            if verdict == "does not hold" and "nan" in evidence.split():
                # A point the check needs did not run (e.g. --tiny or --quick subsets).
                verdict = "not checked"
                evidence += " (points missing in this mode)"
        except Exception as e:  # reported, not fatal (e.g. a tiny run lacks a point)
            verdict, evidence = "not checked", f"({type(e).__name__}: {e})"
        res.append(
            {
                "claim": c.get("text", ""),
                "source": c.get("source", ""),
                "verdict": verdict,
                "evidence": evidence,
                "note": c.get("note", ""),
            }
        )
    return res
