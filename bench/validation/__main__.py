"""Ensemble comparison of bufferlab with ns-2.35 / ns-3.44 on the networks of networks.py.

    python3 -m bench.validation list
    python3 -m bench.validation run all --k 6 --runner target/release/examples/run
    python3 -m bench.validation run n2_newreno_mix m4_newreno_red --k 4 --out /tmp/x.json
    python3 -m bench.validation table [--write]     # the docs/validation.md table from results/
    python3 -m bench.validation flows n2_newreno_mix  # one network's per-flow goodput

`run` builds each network's bufferlab scenario and drives the peer (bench/validation/
ns2_dumbbell.tcl for ns-2, bench/.peers/ns3_dumbbell from bench/peers/build_ns3.sh for ns-3)
with the same jitter and seed per member (ensemble.py), and merges the members into the
results JSON (default bench/validation/results/ensembles.json), then prints the table. Without
--runner bufferlab runs through the Python package (bufferlab._core.run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

from . import ensemble, stats
from .networks import NETWORKS, by_name

RESULTS = ensemble.HERE / "results" / "ensembles.json"
DOC = ensemble.ROOT / "docs" / "validation.md"


def _commit() -> str:
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ensemble.ROOT,
                       capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def _err(msg: str) -> int:
    print(msg, file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m bench.validation",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the networks")
    r = sub.add_parser("run", help="run networks (names, or all) as ensembles")
    r.add_argument("networks", nargs="+")
    r.add_argument("--k", type=int, default=6, help="members per network (default 6)")
    r.add_argument("--runner", help="bufferlab's example runner binary (else the Python package)")
    r.add_argument("--out", default=str(RESULTS), help="results JSON to merge into")
    r.add_argument("--jobs", type=int, default=2, help="processes at a time (default 2)")
    f = sub.add_parser("flows", help="one network's per-flow goodput from the results JSON")
    f.add_argument("network")
    f.add_argument("--results", default=str(RESULTS))
    t = sub.add_parser("table", help="the generated table from the results JSON")
    t.add_argument("--results", default=str(RESULTS))
    t.add_argument("--write", action="store_true", help="write it into docs/validation.md")
    a = ap.parse_args(argv)

    if a.cmd == "list":
        for n in NETWORKS:
            print(stats.network_row(n.describe()))
        return 0
    if a.cmd == "flows":
        res = json.loads(Path(a.results).read_text())
        run = next((r for r in res["runs"] if r["network"]["name"] == a.network), None)
        if run is None:
            return _err(f"network: {a.network!r} is not in {a.results}; run it first")
        pf = stats.per_flow(run)
        print(f"{a.network}, K = {run['k']}: {pf['verdict']} (intervals Bonferroni-corrected "
              f"over {len(pf['flows'])} flows)")
        print("| flow | peer Mbit/s | bufferlab Mbit/s | difference % [CI] |")
        print("|---|---|---|---|")
        for i, x in enumerate(pf["flows"]):
            print(f"| {i} | {x['peer']:.4g} | {x['bufferlab']:.4g} | {100 * x['rel']:+.1f} "
                  f"[{100 * x['rel_ci'][0]:+.1f}, {100 * x['rel_ci'][1]:+.1f}] |")
        return 0
    if a.cmd == "table":
        res = json.loads(Path(a.results).read_text())
        sec = stats.table(res)
        if a.write:
            DOC.write_text(stats.replace_section(DOC.read_text(), sec))
        else:
            print(sec)
        for name, key, rel in stats.outside(res):
            print(f"outside 15 %: {name} {key} {100 * rel:+.1f} %", file=sys.stderr)
        return 0

    if a.k < 2:
        return _err("--k: needs at least 2 members for a confidence interval; use --k 2 or more")
    if a.jobs < 1:
        return _err("--jobs: must be at least 1")
    names = [n.name for n in NETWORKS] if a.networks == ["all"] else a.networks
    try:
        nets = [by_name(n) for n in names]
    except KeyError as e:
        return _err(f"network: unknown {e}; see `python3 -m bench.validation list`")
    if a.runner and not Path(a.runner).exists():
        return _err(f"--runner: {a.runner} does not exist; cargo build --release -p "
                    "bufferlab-core --example run")
    for peer in sorted({n.peer for n in nets}):
        why = ensemble.peer_available(peer)
        if why:
            return _err(f"peer: {why}")
    out = Path(a.out)
    res = json.loads(out.read_text()) if out.exists() else {"meta": {}, "runs": []}
    command = "python3 -m bench.validation " + " ".join(sys.argv[1:] if argv is None else argv)
    for net in nets:
        run = ensemble.run_network(net, a.k, a.runner, a.jobs,
                                   log=lambda s: print(s, file=sys.stderr))
        run["date"] = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        run["commit"] = _commit()
        run["command"] = command
        run["bufferlab"] = run.pop("bufferlab")
        res["runs"] = [x for x in res["runs"] if x["network"]["name"] != net.name] + [run]
        order = {n.name: i for i, n in enumerate(NETWORKS)}
        res["runs"].sort(key=lambda x: order.get(x["network"]["name"], len(order)))
        res["meta"] = {"file": out.name, "start_jitter_s": ensemble.START_JITTER_S,
                       "delay_jitter_ms": ensemble.DELAY_JITTER_MS}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1) + "\n")
    print(stats.table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
