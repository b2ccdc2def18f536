"""Claims: each of the paper's conclusions checked against the study's values."""

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.expr import (
    describe,
    evaluate,
    safe_format,
    safe_range,
    safe_round,
    safe_str,
)
from bufferlab.study.metrics import jain_of, mean_of, std_of, sum_of
from bufferlab.study.plan import normalise_label
from bufferlab.study.spec import evidence_expr
from bufferlab.study.tables import published_rows

# -- claims ------------------------------------------------------------------------------------


def claim_namespace(out: Outcome, missing: list[str] | None = None) -> dict[str, Any]:
    """The names a claim's check and evidence see. Every value a check asks for that this run
    does not have (a point the mode did not run, a metric that failed) is noted in
    ``missing``, so that the claim is reported as not checked instead of judged on NaN."""
    st = out.study
    default_exp = st.experiments[0].name if st.experiments else ""
    missing = [] if missing is None else missing

    def vals(metric: str, exp: str | None = None, **where: Any) -> list[float]:
        e = exp or default_exp
        xs = [
            (out.stat(e, lab, metric) or {}).get("mean", math.nan) for lab in out.matching(e, where)
        ]
        if not xs or any(math.isnan(x) for x in xs):
            cond = ", ".join(f"{k}={v}" for k, v in where.items())
            missing.append(f"{metric}({cond})" if cond else metric)
        return xs

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
        "round": safe_round,
        "sorted": sorted,
        "dict": dict,
        "list": list,
        "zip": zip,
        "isnan": math.isnan,
        "sum": sum_of,
        "nan": math.nan,
        "format": safe_format,
        "str": safe_str,
        "range": safe_range,
        "float": float,
        "int": int,
    }


def peer_namespace(
    out: Outcome, peer: str, table: str, missing: list[str] | None = None
) -> dict[str, Any]:
    """The claim namespace with ``m`` and ``vals`` reading a peer's recorded table
    (``peers.json``) instead of bufferlab's runs, so that the same ``check`` says whether the
    claim holds in ns-2 or ns-3 too. A row matches when each label asked for equals the row's;
    ``exp`` is ignored (a peer table is one experiment)."""
    ns = claim_namespace(out, missing)
    rows = published_rows(out.study.peers.get(peer, {}), table)
    missing = [] if missing is None else missing

    def vals(metric: str, exp: str | None = None, **where: Any) -> list[float]:
        xs = [
            float(r[metric])
            for r in rows
            if r.get(metric) is not None
            and all(normalise_label(r.get(k)) == normalise_label(v) for k, v in where.items())
        ]
        if not xs:
            cond = ", ".join(f"{k}={v}" for k, v in where.items())
            missing.append(f"{peer} {metric}({cond})")
        return xs

    def m(metric: str, exp: str | None = None, **where: Any) -> float:
        return mean_of(vals(metric, exp, **where))

    def series(metric: str, x: str, exp: str | None = None, **where: Any) -> list[float]:
        """The peer's values of ``metric`` along ``x``, in the order of bufferlab's labels."""
        return [
            m(metric, exp, **{**where, x: lab})
            for lab in ns["labels"](x, exp)
            if any(normalise_label(r.get(x)) == normalise_label(lab) for r in rows)
        ]

    return {**ns, "m": m, "vals": vals, "series": series}


def _peer_verdicts(out: Outcome, c: Mapping[str, Any]) -> str:
    """``"; ns-2: holds"`` for each peer a claim names (``peers`` and ``peer_table``): the
    claim's own check on the peer's recorded numbers."""
    parts = []
    for peer in c.get("peers", []) or []:
        missing: list[str] = []
        try:
            ok = evaluate(c["check"], peer_namespace(out, peer, c["peer_table"], missing))
            v = "not checked" if missing else ("holds" if ok else "does not hold")
        except Exception:  # a check the peer's table cannot answer
            v = "not checked"
        parts.append(f"{peer}: {v}")
    return "".join(f"; {p}" for p in parts)


def check_claims(out: Outcome) -> list[dict[str, Any]]:
    """Each claim's verdict on bufferlab's runs ("holds", "does not hold", or "not checked"
    when a value it needs is missing), followed by the same check on each peer it names
    ("holds; ns-2: does not hold"): a verdict says what all the evidence says."""
    missing: list[str] = []
    ns = claim_namespace(out, missing)
    res = []
    for c in out.study.claims:
        verdict, evidence = "not checked", ""
        try:
            missing.clear()
            if c.get("check"):
                ok = evaluate(c["check"], ns)
                verdict = "holds" if ok else "does not hold"
            needed = sorted(set(missing))
            if c.get("evidence"):
                evidence = evaluate(evidence_expr(c["evidence"]), ns)
            if needed:
                # A value the check needs is not in this run (a point --quick or --tiny leaves
                # out, or a metric that failed): no verdict on NaN.
                verdict = "not checked"
                evidence += f" (no value in this run for {'; '.join(needed)})"
        except Exception as e:  # reported, not fatal (e.g. a tiny run lacks a point)
            verdict, evidence = "not checked", f"({describe(e)})"
        if c.get("check") and c.get("peers"):
            verdict += _peer_verdicts(out, c)
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
