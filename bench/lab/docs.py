"""The generated sections of docs/performance.md and docs/validation.md, written from the
stored results of every case (bench/results/summary.json), not only the cases of this run."""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
from pathlib import Path

from lab.cases import cases
from lab.dc_docs import write_dc_section
from lab.normalise import med
from lab.paths import RESULTS, ROOT, SIMS


def machine() -> dict:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError):
        pass
    load = os.getloadavg()
    return {"nproc": os.cpu_count(), "cpu": cpu, "memory": mem, "os": platform.platform(),
            "loadavg_at_end": [round(x, 2) for x in load]}


def f(x, nd=2, dash="–"):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return dash
    if isinstance(x, int):
        return f"{x:,}".replace(",", " ")
    return f"{x:.{nd}f}"


def replace_section(path: Path, heading: str, body: str, intro: str) -> None:
    start = f"<!-- bench/run.py: {heading} (generated, do not edit by hand) -->"
    end = f"<!-- end of {heading} -->"
    block = f"{start}\n## {heading}\n\n{body.rstrip()}\n{end}\n"
    text = path.read_text() if path.exists() else intro
    if start in text and end in text:
        a = text.index(start)
        z = text.index(end) + len(end)
        text = text[:a] + block.rstrip("\n") + text[z:]
    else:
        text = text.rstrip("\n") + "\n\n" + block
    path.write_text(text)


def targets(summ: dict) -> list[tuple[str, str, str]]:
    out = []
    c2 = summ.get("c_ns2", {})
    c3 = summ.get("c_ns3", {})
    r2 = c2.get("ratios", {}).get("ns-2", {}).get("whole")
    r3 = c3.get("ratios", {}).get("ns-3", {}).get("whole")
    # Issue #19's targets (speed at every scale), then the earlier ones still in force.
    out.append(("c_ns2: the core >= 10x faster than ns-2 (whole process)",
                f"{f(r2)}x" if r2 else "not measured", _met(r2, 10)))
    rc = (c2.get("cli") or {}).get("ratio_ns2_whole")
    out.append(("c_ns2: `bufferlab run FILE --json` >= 8x faster than ns-2 (whole process)",
                f"{f(rc)}x" if rc else "not measured", _met(rc, 8)))
    hw = c2.get("sims", {}).get("bufferlab", {}).get("mhops_per_s_whole")
    out.append((">= 15 M packet-hops/s on one core, whole process (c_ns2, the core)",
                f"{f(hw)} M/s" if hw else "not measured", _met(hw, 15)))
    # Issue #40: per-hop cost at 10 000 flows within 3x of 100 flows, <= 8 KB a flow at
    # 10 000 and 100 000 flows (peak RSS of the whole process over the flows: reports included),
    # >= 2.5x htsim at 100 and 10 000 flows.
    per_hop = {}
    for cid in ("d_100", "d_10000"):
        b = summ.get(cid, {}).get("sims", {}).get("bufferlab", {})
        if b.get("sim_wall_s") and b.get("packet_hops"):
            per_hop[cid] = b["sim_wall_s"] / b["packet_hops"] * 1e9
    name = "time per packet-hop at 10 000 flows <= 3x that at 100 (simulation alone)"
    if len(per_hop) == 2:
        g = per_hop["d_10000"] / per_hop["d_100"]
        out.append((name, f"{per_hop['d_10000']:.0f} vs {per_hop['d_100']:.0f} ns: {g:.1f}x",
                    "met" if g <= 3 else "not met"))
    else:
        out.append((name, "not measured", "not measured"))
    for cid, flows in (("d_10000", 10_000), ("d_100000", 100_000)):
        rss = summ.get(cid, {}).get("sims", {}).get("bufferlab", {}).get("maxrss_mb")
        kb = rss * 1024 / flows if rss else None
        label = f"{f(flows)} flows: peak RSS <= 8 KB a flow (whole process, report included)"
        out.append((label,
                    f"{f(kb, 1)} KB a flow ({f(rss, 0)} MB)" if kb else "not measured",
                    ("met" if kb <= 8 else "not met") if kb else "not measured"))
    out.append(htsim_target())
    out.append(("100 flows, 100 Mbps: >= 50x faster than ns-3 (whole process)",
                f"{f(r3, 1)}x" if r3 else "not measured", _met(r3, 50)))
    for cid, peer in (("c_ns2", "ns-2"), ("c_ns3", "ns-3")):
        c = summ.get(cid, {}).get("sims", {})
        if "result" in c.get("bufferlab", {}) and "result" in c.get(peer, {}):
            a = c["bufferlab"]["result"]["goodput_total_bps"]
            p = c[peer]["result"]["goodput_total_bps"]
            d = (a - p) / p * 100
            out.append((f"100 flows: aggregate goodput within 3 % of {peer}",
                        f"{a / 1e6:.2f} vs {p / 1e6:.2f} Mbps ({d:+.1f} %)",
                        "met" if abs(d) <= 3 else "not met"))
    small = [(cid, s["ratios"]["ns-3"]["whole"]) for cid, s in summ.items()
             if s["group"] in ("a", "b") and "ns-3" in s.get("ratios", {})]
    if small:
        lo = min(small, key=lambda x: x[1])
        out.append(("small dumbbells (a, b): >= 20x faster than ns-3 (whole process)",
                    f"{f(lo[1], 1)}x at worst ({lo[0]}), median {f(med([x[1] for x in small]), 1)}x",
                    _met(lo[1], 20)))
    return out


def htsim_target() -> tuple[str, str, str]:
    """From bench/results/htsim.json (bench/htsim_compare.py, run by `make bench` when
    HTSIM_SRC points at htsim's source)."""
    name = ">= 2.5x htsim per CPU-second at 100 and 10 000 flows"
    p = RESULTS / "htsim.json"
    if not p.exists():
        return name, "not measured (set HTSIM_SRC: bench/htsim_compare.py)", "not measured"
    h = json.loads(p.read_text())
    c = h["cases"]
    lo = min(c[k]["per_hop_ratio"] for k in ("d_100", "d_10000"))
    got = (f"d_100 {c['d_100']['per_hop_ratio']}x, d_10000 {c['d_10000']['per_hop_ratio']}x "
           f"({h['date']}, {h['commit']})")
    return name, got, "met" if lo >= 2.5 else "not met"


def _met(x, t):
    if x is None:
        return "not measured"
    return "met" if x >= t else "not met"


def provenance(summ: dict, order: list[str]) -> str:
    """Which invocation of bench/run.py measured which cases, oldest first."""
    groups: dict[tuple, list[str]] = {}
    for cid in order:
        run = summ[cid].get("run") or {}
        key = (run.get("date", "an earlier run"), run.get("argv", ""), run.get("commit", ""))
        groups.setdefault(key, []).append(cid)
    parts = []
    for (date, argv, commit), ids in sorted(groups.items()):
        # peers.git_rev says "commit abc1234"; older results hold the bare hash
        at = f" (commit {commit.removeprefix('commit ')})" if commit else ""
        parts.append(f"{', '.join(ids)} by `python3 bench/run.py{argv}` on {date}{at}")
    return "; ".join(parts)


def write_docs(summ: dict, meta: dict, root: Path = ROOT) -> None:
    """Rewrites the generated sections from every stored case, each with the run that measured
    it (a run of some cases leaves the others' rows as they were recorded)."""
    order = [c["id"] for c in cases() if c["id"] in summ]
    hdr = (
        f"Generated by `make bench`: {provenance(summ, order)}; "
        f"machine of the last run: {meta['machine']['nproc']} cores ({meta['machine']['cpu']}), "
        f"{meta['machine']['memory']} RAM, shared with other work (load average at the end "
        f"{meta['machine']['loadavg_at_end'][0]}), so take times as indicative and compare the "
        "ratios, which are measured pair by pair within the same repetition. Simulators of the last "
        "run: "
        + "; ".join(meta["versions"]) + ".\n\n"
        "* **whole** = wall time of the whole process (start-up, scenario set-up, run, output), "
        "**sim** = the simulator's own clock around its event loop; medians over the runs shown. "
        "bufferlab's whole-process figure is the core's example runner "
        "(`cargo run --profile fast -p bufferlab-core --example run -- FILE`); the CLI rows are "
        "`.venv/bin/bufferlab run FILE --json` (the development build `make venv` installs; adds "
        "Python's start-up), run in each round beside the others; their ratio is ns-2's time over "
        "the CLI's, round by round, then the median.\n"
        "* **ratio** = peer time / bufferlab time, computed run by run and then the median.\n"
        "* **packet-hops** = packets sent over any link direction (data and ACKs). bufferlab: sum "
        "of `links[].tx_packets`; ns-3: sum over all point-to-point devices of packets through "
        "their device queues (exact); ns-2: estimated from the agents' counters as 3 hops per "
        "delivered data packet and its ACK, 1 per data packet dropped at the bottleneck (marked "
        "~).\n"
        "* Peak RSS from GNU time (`%M`). Scenario files: `bench/scenarios/`; raw numbers: "
        "`bench/results/`.\n\n"
    )
    rows = ["| case | simulator | runs | whole s | sim s | peak RSS MB | packet-hops | M hops/s (sim) | "
            "ratio whole | ratio sim |", "|---|---|---|---|---|---|---|---|---|---|"]
    for cid in order:
        s = summ[cid]
        for sim in SIMS:
            x = s["sims"].get(sim)
            if not x:
                continue
            if "skipped" in x:
                rows.append(f"| {cid} | {sim} | – | {x['skipped']} | | | | | | |")
                continue
            rt = s["ratios"].get(sim, {})
            hops = ("~" if x["packet_hops_estimated"] else "") + f(x["packet_hops"])
            rows.append(
                f"| {cid} | {sim} | {x['runs']} | {f(x['wall_s'], 3)} | {f(x['sim_wall_s'], 3)} | "
                f"{f(x['maxrss_mb'], 0)} | {hops} | {f(x['mhops_per_s_sim'])} | "
                f"{f(rt.get('whole'), 1)} | {f(rt.get('sim'), 1)} |")
        cli = s.get("cli")
        if cli and "error" not in cli:
            n_cli = len(cli.get("wall_s_all") or [0])
            rows.append(f"| {cid} | bufferlab CLI | {n_cli} | {f(cli['wall_s'], 3)} | | "
                        f"{f((cli.get('maxrss_kb') or 0) / 1024, 0)} | | | "
                        f"{f(cli.get('ratio_ns2_whole'), 1)} | |")
    cases_txt = "\n".join(f"* `{cid}`: {summ[cid]['title']}. {summ[cid]['model_note']}."
                          for cid in order)
    tg = ["| target | measured | |", "|---|---|---|"] + [f"| {a} | {b} | **{c}** |"
                                                      for a, b, c in targets(summ)]
    cmds = []
    for cid in order:
        for sim, cmd in summ[cid]["commands"].items():
            if cmd:
                cmds.append(f"{cid:10s} {sim:9s} {cmd}")
    body = (hdr + "### Cases\n\n" + cases_txt + "\n\n### Targets\n\n" + "\n".join(tg) +
            "\n\n### Speed\n\n" + "\n".join(rows) + "\n\n### Exact commands\n\n```\n" +
            "\n".join(cmds) + "\n```\n")
    replace_section(root / "docs" / "performance.md", "Side by side with ns-2 and ns-3", body,
                    "# Performance\n")

    write_dc_section(summ, order, root, replace_section)

    # agreement (not the dc cases: bufferlab only, no dumbbell bottleneck)
    vrows = []
    for cid in order:
        s = summ[cid]
        if s["group"] == "dc":
            continue
        b = s["sims"].get("bufferlab", {}).get("result")
        vrows.append(f"#### {cid}: {s['title']}\n\n{s['model_note']}.\n")
        vrows.append("| simulator | goodput total Mbps | vs bufferlab | Jain | per-flow goodput kbps | "
                     "drops (early/forced) | avg queue pkts | avg queue B | mean delay ms |")
        vrows.append("|---|---|---|---|---|---|---|---|---|")
        for sim in SIMS:
            x = s["sims"].get(sim)
            if not x:
                continue
            if "skipped" in x:
                vrows.append(f"| {sim} | {x['skipped']} | | | | | | | |")
                continue
            r = x["result"]
            gp = r["goodput_bps"]
            if len(gp) <= 8:
                pf = " / ".join(f"{g / 1e3:.0f}" for g in gp)
            else:
                pf = (f"min {min(gp) / 1e3:.0f}, median {statistics.median(gp) / 1e3:.0f}, "
                      f"max {max(gp) / 1e3:.0f}")
            dv = ""
            if sim != "bufferlab" and b:
                dv = f"{(b['goodput_total_bps'] - r['goodput_total_bps']) / r['goodput_total_bps'] * 100:+.1f} %"
            drops = f(r["drops"]) if r["drops"] is not None else "–"
            if r.get("early_drops") is not None:
                drops += f" ({f(r['early_drops'])}/{f(r['forced_drops'])})"
            dl = r["delay_mean_s"] * 1e3 if r.get("delay_mean_s") else None
            vrows.append(
                f"| {sim} | {r['goodput_total_bps'] / 1e6:.3f} | {dv} | {f(r['jain'], 3)} | {pf} | "
                f"{drops} | {f(r['avg_queue_packets'])} | {f(r['avg_queue_bytes'], 0)} | {f(dl, 1)} |")
        vrows.append("")
    vbody = (
        f"Generated by `make bench` on {meta['date']} from the same runs as the speed table in "
        "[performance.md](performance.md#side-by-side-with-ns-2-and-ns-3). All three simulators "
        "are deterministic for a given command, so one run's results stand for all. "
        "\"vs bufferlab\" = (bufferlab - peer) / peer of the aggregate goodput. Goodput = "
        "payload delivered in order x 8 / (end - flow start) (ns-2: highest cumulative ACK x "
        "packetSize_; ns-3: PacketSink bytes). Queue = bottleneck forward direction; ns-2 has "
        "no early/forced split without a trace, no queue monitor on an FQ link, and no delay "
        "without a trace; ns-3's delay comes from FlowMonitor where the case turns it on "
        "(IP one-way delay of data packets), bufferlab's is the packet-weighted mean one-way "
        "delay of all data packets.\n\n"
        "Where the TCP models differ (see each case's note) aggregate goodput should agree "
        "(a saturated bottleneck) but per-flow shares and drop counts need not.\n\n"
        + "\n".join(vrows))
    replace_section(root / "docs" / "validation.md", "Agreement with ns-2 and ns-3 (bench)", vbody,
                    "# Validation\n\nHow bufferlab's models are checked against theory and against "
                    "ns-2 and ns-3. Per-model validation is in [models/](models/).\n")
