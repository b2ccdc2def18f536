"""Running a case: bufferlab and its peers round-robin, each run timed as a whole process
(wall clock, peak RSS from GNU time) and by the simulator's own clock; the per-case summary."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

from lab.cases import cases
from lab.normalise import med, norm_bufferlab, norm_ns2, norm_ns3
from lab.paths import BENCH, PEER_LIMIT_S, PEERS, ROOT, SCEN, SIMS, log


def timed(cmd: list[str], timeout: float, cwd: Path = ROOT) -> dict:
    """Run cmd under GNU time; whole-process wall (perf_counter) and peak RSS (KB)."""
    tf = PEERS / f"time.{os.getpid()}"
    PEERS.mkdir(parents=True, exist_ok=True)
    # peak RSS (KB), user and system CPU seconds
    full = ["/usr/bin/time", "-f", "%M %U %S", "-o", str(tf), *cmd]
    t0 = time.perf_counter()
    # A session of its own, so that a timeout stops the simulator too and not only GNU time
    # (a stopped ns-3 of d_10000 once ran on for half an hour beside the later measurements).
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=cwd, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"error": f"timed out after {timeout:.0f} s", "wall_s": timeout}
    p = subprocess.CompletedProcess(full, proc.returncode, out, err)
    wall = time.perf_counter() - t0
    rss = cpu = None
    try:
        last = tf.read_text().strip().splitlines()[-1].split()
        rss = int(last[0])
        cpu = float(last[1]) + float(last[2])
    except (OSError, ValueError, IndexError):
        pass
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}: {p.stderr.strip()[-400:]}", "wall_s": wall}
    line = [x for x in p.stdout.splitlines() if x.startswith("{")]
    if not line:
        return {"error": "no JSON output: " + p.stderr.strip()[-400:], "wall_s": wall}
    return {"wall_s": wall, "cpu_s": cpu, "maxrss_kb": rss, "out": json.loads(line[-1])}


def cli_summary(cli_runs: list[dict], ns2_runs: list[dict]) -> dict | None:
    """The CLI's runs: median wall time, the largest peak RSS, and ns-2's time over the CLI's
    in each round where both ran (then their median)."""
    if not cli_runs:
        return None
    bad = next((r for r in cli_runs if "error" in r), None)
    if bad:
        return {"error": bad["error"]}
    walls = [r["wall_s"] for r in cli_runs]
    out = {"wall_s": med(walls), "wall_s_all": [round(w, 4) for w in walls],
           "maxrss_kb": max(r.get("maxrss_kb") or 0 for r in cli_runs)}
    pairs = [p["wall_s"] / c["wall_s"] for c, p in zip(cli_runs, ns2_runs)
             if "error" not in p and p.get("wall_s")]
    if pairs:
        out["ratio_ns2_whole"] = med(pairs)
        out["ratio_ns2_whole_all"] = [round(x, 2) for x in pairs]
    return out


def run_case(c: dict, tools: dict, reps: int | None, estimates: dict) -> dict:
    toml_path = SCEN / f"{c['id']}.toml"
    rel = toml_path.relative_to(ROOT)
    n = reps or c["reps"]
    cmds: dict[str, list[str] | None] = {
        "bufferlab": [tools["bufferlab"], str(rel)],
        "ns-2": ["ns", str((BENCH / "peers" / "ns2_dumbbell.tcl").relative_to(ROOT)), *c["ns2"]]
        if c.get("ns2") and tools.get("ns-2") else None,
        "ns-3": [tools["ns-3"], *c["ns3"]] if c.get("ns3") and tools.get("ns-3") else None,
    }
    skips = {
        "ns-2": c.get("ns2_skip") or (None if tools.get("ns-2") else tools.get("ns-2_why")),
        "ns-3": c.get("ns3_skip") or (None if tools.get("ns-3") else tools.get("ns-3_why")),
    }
    # Skip a peer whose run is estimated (from the previous, smaller growth case) to exceed
    # the limit: time per packet-hop of the smaller case times this case's packet-hops as
    # bufferlab counts them (a lower bound: per-hop cost grows with the flow count in both).
    for sim in ("ns-2", "ns-3"):
        est = estimates.get((c["group"], sim))
        if cmds[sim] and est is not None:
            if est.get("skip_next"):
                cmds[sim] = None
                skips[sim] = est["skip_next"]
    runs: dict[str, list[dict]] = {s: [] for s in SIMS}
    cli_runs: list[dict] = []
    for rep in range(n):
        if tools.get("cli") and c.get("cli", True):
            # bufferlab through the CLI (whole process with Python's start-up), in the same
            # round as the others so that its ratio to ns-2 is measured side by side.
            log(f"{c['id']} rep {rep + 1}/{n} bufferlab CLI")
            r = timed([tools["cli"], "run", str(rel), "--json"], 3600)
            cli_runs.append({k: r[k] for k in ("wall_s", "maxrss_kb", "error") if k in r})
        for sim in SIMS:
            cmd = cmds[sim]
            if cmd is None:
                continue
            log(f"{c['id']} rep {rep + 1}/{n} {sim}")
            r = timed(cmd, PEER_LIMIT_S + 60 if sim != "bufferlab" else 3600)
            if "out" in r:
                norm = {"bufferlab": norm_bufferlab, "ns-2": norm_ns2, "ns-3": norm_ns3}[sim]
                r["result"] = norm(r.pop("out"))
            else:
                log(f"  {sim} failed: {r['error']}")
            runs[sim].append(r)
            if "error" in r and sim != "bufferlab":
                cmds[sim] = None  # do not retry a failing or too slow peer
                skips[sim] = r["error"]
    summary = summarize(c, runs, skips)
    summary["cli"] = cli_summary(cli_runs, runs.get("ns-2") or [])
    summary["commands"] = {s: (shlex.join(_display(cmd)) if cmd else None)
                           for s, cmd in _cmds_for_display(c, tools, rel).items()}
    # estimates for the next growth case
    if c["group"] == "d":
        b = summary["sims"].get("bufferlab", {})
        for sim in ("ns-2", "ns-3"):
            s = summary["sims"].get(sim)
            nxt = next((x for x in cases() if x["group"] == "d" and x.get("flows", 0) ==
                        c["flows"] * 10), None)
            if not nxt:
                continue
            if s and s.get("wall_s") and b.get("packet_hops"):
                # time per packet-hop (bufferlab's count, exact) and its growth since the
                # previous size; next size: 10x packet-hops at a per-hop cost grown alike
                per_hop = s["wall_s"] / b["packet_hops"]
                prev = estimates.get(("d", sim), {}).get("per_hop")
                growth = max(1.0, per_hop / prev) if prev else 1.0
                est_s = per_hop * growth * b["packet_hops"] * 10
                how = (f"{s['wall_s']:.1f} s at {c['flows']} flows x 10 packet-hops"
                       + (f" x {growth:.1f} (per-hop cost growth from the previous size)"
                          if growth > 1 else ""))
                if est_s > PEER_LIMIT_S:
                    estimates[("d", sim)] = {
                        "skip_next": f"skipped: estimated {est_s:.0f} s > {PEER_LIMIT_S:.0f} s "
                        f"({how})"}
                else:
                    estimates[("d", sim)] = {"per_hop": per_hop, "estimate_next_s": est_s}
            elif skips.get(sim):
                why = skips[sim].removeprefix("skipped: ")
                estimates[("d", sim)] = {"skip_next": f"skipped, as at {c['flows']} flows ({why})"}
    return summary


def _display(cmd: list[str]) -> list[str]:
    out = []
    for x in cmd:
        p = Path(x)
        if p.is_absolute():
            try:
                x = str(p.relative_to(ROOT))
            except ValueError:
                pass
        out.append(x)
    return out


def _cmds_for_display(c: dict, tools: dict, rel: Path) -> dict:
    return {
        "bufferlab": ["cargo", "run", "--profile", "fast", "-p", "bufferlab-core", "--example", "run",
                      "--", str(rel)],
        "ns-2": ["ns", "bench/peers/ns2_dumbbell.tcl", *c["ns2"]] if c.get("ns2") else None,
        "ns-3": ["bench/.peers/ns3_dumbbell", *c["ns3"]] if c.get("ns3") else None,
    }


def summarize(c: dict, runs: dict, skips: dict) -> dict:
    sims: dict[str, dict] = {}
    for sim, rs in runs.items():
        ok = [r for r in rs if "result" in r]
        if not ok:
            if rs or skips.get(sim):
                sims[sim] = {"skipped": skips.get(sim) or (rs[0].get("error") if rs else None)}
            continue
        res = [r["result"] for r in ok]
        s = {
            "runs": len(ok),
            "wall_s": med([r["wall_s"] for r in ok]),
            "wall_s_all": [round(r["wall_s"], 4) for r in ok],
            "sim_wall_s": med([x["sim_wall_s"] for x in res]),
            "maxrss_mb": (med([r["maxrss_kb"] for r in ok]) or 0) / 1024,
            "cpu_s": med([r["cpu_s"] for r in ok if r.get("cpu_s") is not None]),
            "packet_hops": res[0]["packet_hops"],
            "packet_hops_estimated": bool(res[0].get("packet_hops_estimated")),
            "events": res[0]["events"],
        }
        s["mhops_per_s_sim"] = s["packet_hops"] / s["sim_wall_s"] / 1e6 if s["sim_wall_s"] else None
        s["mhops_per_s_whole"] = s["packet_hops"] / s["wall_s"] / 1e6
        # results: deterministic simulators give the same numbers every run; keep the first
        s["result"] = res[0]
        s["deterministic"] = all(x.get("goodput_bps") == res[0].get("goodput_bps")
                                 and x["events"] == res[0]["events"] for x in res)
        sims[sim] = s
    for sim in ("ns-2", "ns-3"):
        if sim not in sims and skips.get(sim):
            sims[sim] = {"skipped": skips[sim]}
    # pairwise ratios within the same repetition
    ratios = {}
    b = runs["bufferlab"]
    for sim in ("ns-2", "ns-3"):
        pw, ps = [], []
        for i, r in enumerate(runs[sim]):
            if "result" in r and i < len(b) and "result" in b[i]:
                pw.append(r["wall_s"] / b[i]["wall_s"])
                ps.append(r["result"]["sim_wall_s"] / b[i]["result"]["sim_wall_s"])
        if pw:
            ratios[sim] = {"whole": med(pw), "sim": med(ps), "whole_all": [round(x, 2) for x in pw],
                           "sim_all": [round(x, 2) for x in ps]}
    return {"id": c["id"], "group": c["group"], "title": c["title"], "model_note": c["model_note"],
            "scenario": f"bench/scenarios/{c['id']}.toml", "sims": sims, "ratios": ratios}


# ----------------------------------------------------------------------------------------------
# Reports
# ----------------------------------------------------------------------------------------------
