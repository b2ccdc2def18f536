#!/usr/bin/env python3
"""bufferlab side-by-side benchmark against ns-2 and ns-3 (issue 7).

Runs the same scenarios in bufferlab (the core's example runner, and once through the CLI), in
ns-2.35 (Debian package `ns2`, bench/peers/ns2_dumbbell.tcl) and in ns-3 (PyPI package `ns3`,
bench/peers/ns3_dumbbell.cc), round-robin so that each peer run has a bufferlab run next to it;
writes bench/results/<case>.json and bench/results/summary.json and regenerates the sections
"Side by side with ns-2 and ns-3" of docs/performance.md and "Agreement with ns-2 and ns-3
(bench)" of docs/validation.md.

    python3 bench/run.py                      # everything (`make bench`)
    python3 bench/run.py --cases a_red,c_ns2  # some cases (prefix match on the case id)
    python3 bench/run.py --reps 1 --no-docs   # quick look, results not written into docs/
    python3 bench/run.py --list               # the cases and their commands

Standard library only. Timing: whole process = wall clock around the child process
(time.perf_counter), peak RSS from GNU time (`/usr/bin/time -f %M`); simulation alone = the
simulator's own clock around its event loop (bufferlab `wall_s`, ns-3 `sim_wall_s` around
Simulator::Run, ns-2 `sim_wall_s` from `$ns run` to the finish event).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shlex
import sys
import time
from pathlib import Path

from lab.cases import cases
from lab.docs import machine, targets, write_docs
from lab.paths import RESULTS, ROOT, SCEN, log
from lab.peers import ensure_bufferlab, ensure_ns2, ensure_ns3, git_rev
from lab.timing import run_case


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma-separated case ids or id prefixes ending before a '_' (a, b_reno, c_ns2, d_100)")
    ap.add_argument("--reps", type=int, help="repetitions per case (default: 5 short, 3 long)")
    ap.add_argument("--no-peers", action="store_true", help="bufferlab only")
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite the docs sections")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--runner", help="use this bufferlab example-runner binary instead of building")
    ap.add_argument("--runner-src", help="with --runner: the source tree it was built from")
    a = ap.parse_args()
    cs = cases()
    SCEN.mkdir(parents=True, exist_ok=True)
    for c in cs:  # every scenario file, so that they can be read and run on their own
        (SCEN / f"{c['id']}.toml").write_text(c["toml"] + "\n")
    if a.cases:
        pre = [p.strip() for p in a.cases.split(",") if p.strip()]
        cs = [c for c in cs if any(c["id"] == p or c["id"].startswith(p + "_") for p in pre)]
    if a.list:
        for c in cs:
            print(f"{c['id']}: {c['title']}\n  ns-2: {c.get('ns2')}\n  ns-3: {c.get('ns3')}")
        return 0
    tools: dict = {}
    versions = []
    if a.runner:
        src = f" at {git_rev(Path(a.runner_src))}" if a.runner_src else ""
        tools["bufferlab"], v = a.runner, f"bufferlab core{src} (examples/run, release build)"
    else:
        tools["bufferlab"], v = ensure_bufferlab()
    versions.append(v)
    cli = ROOT / ".venv" / "bin" / "bufferlab"
    tools["cli"] = str(cli) if cli.exists() else None
    if not a.no_peers:
        for sim, fn in (("ns-2", ensure_ns2), ("ns-3", ensure_ns3)):
            path, v = fn()
            tools[sim] = path
            if path:
                versions.append(v)
            else:
                tools[f"{sim}_why"] = v
                log(f"{sim} unavailable: {v}")
    else:
        tools["ns-2_why"] = tools["ns-3_why"] = "not run (--no-peers)"
    RESULTS.mkdir(parents=True, exist_ok=True)
    summ_path = RESULTS / "summary.json"
    old = json.loads(summ_path.read_text()) if summ_path.exists() else {}
    summ = old.get("cases", {})
    estimates: dict = {}
    t0 = time.time()
    argv = (" " + shlex.join(sys.argv[1:])) if sys.argv[1:] else ""
    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    for c in cs:
        s = run_case(c, tools, a.reps, estimates)
        # Which invocation measured this case: a partial run keeps the other cases' results
        # (and says where each came from) instead of erasing them from the docs.
        s["run"] = {"date": started, "argv": argv, "commit": git_rev(ROOT)}
        (RESULTS / f"{c['id']}.json").write_text(json.dumps(s, indent=1) + "\n")
        summ[c["id"]] = s
    meta = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(), "versions": versions, "argv": argv,
            "bench_wall_s": round(time.time() - t0, 1)}
    summ_path.write_text(json.dumps({"meta": meta, "cases": summ}, indent=1) + "\n")
    if not a.no_docs:
        write_docs(summ, meta)
        log("docs/performance.md and docs/validation.md sections regenerated")
    for a_, b_, c_ in targets(summ):
        log(f"target: {a_}: {b_} -> {c_}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
