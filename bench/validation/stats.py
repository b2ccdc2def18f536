"""Paired ensemble statistics and the generated table of docs/validation.md.

Per measure: the means in each simulator over the K members, the mean of the paired differences
(bufferlab - peer, member by member: both ran the same jitter and seed) with its 95 % confidence
interval mean +- t(0.975, K-1) s / sqrt(K) (Student's t, scipy), and both relative to the peer's
mean. A measure is "within 15 %" when the relative difference of the means is.

Per-flow agreement is claimed only where the ensemble supports it: every flow's interval of the
paired goodput difference lies inside +-15 % of that flow's peer mean ("agree"). If some flow's
interval lies wholly outside +-15 %, the flows "differ"; otherwise the ensemble is too spread to
say either ("undecided": the shares are chaotic at this K). The per-flow intervals are
Bonferroni-corrected (level 1 - 0.05 / flows), so that together they hold with 95 %.
A member is "identical" when drops, retransmissions and timeouts are equal and the aggregate
goodput is within 0.1 %: the identity claims of docs/validation.md hold only for such members.
"""

from __future__ import annotations

import math
import statistics as st

from scipy.stats import t as student_t

MEASURES = [
    ("goodput_mbps", "goodput Mbit/s"),
    ("drops", "drops"),
    ("queue_packets", "mean queue pkts"),
    ("rexmit", "retransmissions"),
    ("timeouts", "timeouts"),
]
TOLERANCE = 0.15

BEGIN = "<!-- bench/validation: ensemble table (generated, do not edit by hand) -->"
END = "<!-- end of bench/validation ensemble table -->"


def paired(peer: list[float], bl: list[float], alpha: float = 0.05) -> dict:
    """Means, paired difference and its 1 - alpha CI (absolute and relative to the peer's
    mean)."""
    k = len(peer)
    d = [b - p for p, b in zip(peer, bl, strict=True)]
    mp, mb, md = st.mean(peer), st.mean(bl), st.mean(d)
    q = float(student_t.ppf(1 - alpha / 2, k - 1)) if k > 1 else math.inf
    half = q * st.stdev(d) / math.sqrt(k) if k > 1 else math.inf
    rel = (lambda x: x / mp) if mp else (lambda x: math.nan)
    return {"peer": mp, "bufferlab": mb, "diff": md, "ci": (md - half, md + half),
            "rel": rel(md), "rel_ci": (rel(md - half), rel(md + half))}


def per_flow(run: dict) -> dict:
    """The per-flow agreement verdict of one network's ensemble."""
    n = len(run["peer"][0]["flow_goodput_mbps"])
    # Bonferroni over the n flows: the n intervals hold together with 95 % confidence, so one
    # flow of 100 outside by chance (5 % each) is not read as a difference.
    flows = [paired([r["flow_goodput_mbps"][i] for r in run["peer"]],
                    [r["flow_goodput_mbps"][i] for r in run["bufferlab"]], alpha=0.05 / n)
             for i in range(n)]
    widest = max(max(abs(f["rel_ci"][0]), abs(f["rel_ci"][1])) for f in flows)
    differ = [i for i, f in enumerate(flows)
              if f["rel_ci"][0] > TOLERANCE or f["rel_ci"][1] < -TOLERANCE]
    excl0 = [i for i, f in enumerate(flows) if f["rel_ci"][0] > 0 or f["rel_ci"][1] < 0]
    if widest <= TOLERANCE:
        verdict = "agree"
    elif differ:
        verdict = "differ"
    else:
        verdict = "undecided"
    return {"verdict": verdict, "widest_rel_ci": widest, "differ": differ,
            "ci_excludes_0": excl0, "flows": flows}


def identical(p: dict, b: dict) -> bool:
    return (p["drops"] == b["drops"] and p["rexmit"] == b["rexmit"]
            and p["timeouts"] == b["timeouts"]
            and abs(b["goodput_mbps"] / p["goodput_mbps"] - 1) < 1e-3)


def summary(run: dict) -> dict:
    out = {key: paired([r[key] for r in run["peer"]], [r[key] for r in run["bufferlab"]])
           for key, _ in MEASURES}
    out["per_flow"] = per_flow(run)
    out["identical"] = sum(identical(p, b) for p, b in zip(run["peer"], run["bufferlab"],
                                                          strict=True))
    return out


def _num(x: float) -> str:
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}".replace(",", " ")
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:+.1f}"


def _cell(s: dict) -> str:
    """peer -> bufferlab, difference % [95 % CI %]; bold when outside 15 %."""
    rel = s["rel"]
    txt = (f"{_num(s['peer'])} → {_num(s['bufferlab'])}, {_pct(rel)} % "
           f"[{_pct(s['rel_ci'][0])}, {_pct(s['rel_ci'][1])}]")
    if not math.isnan(rel) and abs(rel) > TOLERANCE:
        return f"**{txt}**"
    if math.isnan(rel) and s["bufferlab"] != 0:
        return f"**{_num(s['peer'])} → {_num(s['bufferlab'])}**"
    return txt


def _flows_cell(pf: dict) -> str:
    v = pf["verdict"]
    w = f"±{100 * pf['widest_rel_ci']:.0f} %"
    if v == "agree":
        return f"agree (every CI within {w})"
    if v == "differ":
        return "differ: flow " + ", ".join(str(i) for i in pf["differ"]) + f" (widest CI {w})"
    return f"undecided (widest CI {w})"


def network_row(net: dict) -> str:
    a = net["access_ms"]
    access = f"{a[0]:g}" if len(a) == 1 else f"{min(a):g} to {max(a):g}"
    peer = "ns-2" if net["peer"] == "ns2" else "ns-3"
    if net["qdisc"] == "RED" and net["peer"] == "ns2":
        buf = f"{net['buffer_bdp']:g} BDP = RED limit {net['buffer_packets']} x 500 B"
    else:
        buf = f"{net['buffer_bdp']:g} BDP = {net['buffer_packets']} p"
    extra = [f"window_ {net['window']}"] if net["peer"] == "ns2" else []
    if net["access_rate_mbps"] != 100:
        extra.append(f"access {net['access_rate_mbps']:g} Mbit/s")
    return (f"| {net['name']} | {peer} {net['tcp']} | {net['flows']} | "
            f"{net['rate_mbps']:g} Mbit/s, {net['delay_ms']:g} ms | {access} | "
            f"{net['base_rtt_ms']:g} | {buf} | {net['qdisc']} | "
            f"{'on' if net['delack'] else 'off'} | {net['duration']:g} s"
            + (f" ({', '.join(extra)})" if extra else "") + " |")


def table(results: dict) -> str:
    """The generated section of docs/validation.md from the stored results."""
    runs = results["runs"]
    meta = results["meta"]
    dates = sorted({r["date"] for r in runs})
    commits = sorted({r["commit"] for r in runs})
    commands = list(dict.fromkeys(r["command"] for r in runs))
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"
    lines = [
        BEGIN,
        "",
        f"Generated by `python3 -m bench.validation table` from `bench/validation/results/"
        f"{meta['file']}`, measured {when} at commit {', '.join(commits)} with "
        + "; ".join(f"`{c}`" for c in commands)
        + ". K members per network (column K); member m jitters every "
        f"start time by U(0, {meta['start_jitter_s']:g} s) and every sender access delay by "
        f"U(0, {meta['delay_jitter_ms']:g} ms) and uses seed m, identically in both simulators.",
        "",
        "| network | peer TCP | flows | bottleneck | sender access ms | base RTT ms (mean) "
        "| buffer | queue | delayed ACK | duration |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *[network_row(r["network"]) for r in runs],
        "",
        "Each cell: peer mean → bufferlab mean, paired difference in % of the peer's mean "
        "[95 % confidence interval, t-distribution]; **bold**: the means differ by more than "
        "15 %. Queue = mean bottleneck queue in packets (ns-3: disc + device queue). "
        "Retransmissions and timeouts are summed over the flows. *identical* = members whose "
        "drops, retransmissions and timeouts are the peer's exactly. Per-flow goodput: "
        "*agree* when every flow's interval of the paired difference lies within ±15 % of "
        "its peer mean, *differ* when one lies wholly outside, *undecided* otherwise (intervals "
        "Bonferroni-corrected over the flows).",
        "",
        "| network | K | " + " | ".join(label for _, label in MEASURES)
        + " | per-flow goodput | identical |",
        "|---|---|" + "---|" * (len(MEASURES) + 2),
    ]
    for r in runs:
        s = summary(r)
        lines.append(f"| {r['network']['name']} | {r['k']} | "
                     + " | ".join(_cell(s[key]) for key, _ in MEASURES)
                     + f" | {_flows_cell(s['per_flow'])} | {s['identical']}/{r['k']} |")
    lines += ["", END]
    return "\n".join(lines)


def outside(results: dict) -> list[tuple[str, str, float]]:
    """(network, measure, relative difference) of every mean outside 15 %."""
    out = []
    for r in results["runs"]:
        s = summary(r)
        for key, _ in MEASURES:
            rel = s[key]["rel"]
            if (not math.isnan(rel) and abs(rel) > TOLERANCE) or (
                    math.isnan(rel) and s[key]["bufferlab"] != 0):
                out.append((r["network"]["name"], key, rel))
    return out


def replace_section(doc: str, section: str) -> str:
    i, j = doc.find(BEGIN), doc.find(END)
    if i < 0 or j < 0:
        raise ValueError("docs/validation.md has no bench/validation markers")
    return doc[:i] + section + doc[j + len(END):]


def doc_section(doc: str) -> str:
    i, j = doc.find(BEGIN), doc.find(END)
    return doc[i:j + len(END)]
