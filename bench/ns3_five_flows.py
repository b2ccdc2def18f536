#!/usr/bin/env python3
"""Case a's five staggered TcpLinuxReno flows (flow i starts at i ms, 100 s) against ns-3 with
other access delays, per flow (issue #22). The bufferlab side is bench/scenarios/a_droptail.toml
with the five flows written out as tests/tcp_ns3.rs does and `links.access.delay` changed; the
ns-3 side is bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh) with `--accessDelay`.

    python3 bench/ns3_five_flows.py --runner target/release/examples/run [--runner OTHER] \\
        --delays 1ms,2ms,3ms

A run is IDENTICAL when the drops and every flow's segments sent, retransmissions, timeouts,
fast retransmits and goodput equal ns-3's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def scenario(delay: str, prr: bool) -> str:
    head, template = (BENCH / "scenarios" / "a_droptail.toml").read_text().split("[[flows]]")
    head = head.replace('delay = "1ms"', f'delay = "{delay}"', 1)  # the access template
    tcp = next(x for x in template.splitlines() if x.startswith("tcp = "))
    tcp = tcp.replace(" }", f", prr = {str(prr).lower()} }}")
    for i in range(5):
        head += (f'[[flows]]\nname = "tcp{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart = "{i}ms"\n'
                 f'app = {{ kind = "bulk" }}\n{tcp}\n\n')
    return head


def row(t: dict, goodput: float) -> tuple:
    return (t["segments_sent"], t["retransmitted_segments"], t["timeouts"],
            t["fast_retransmits"], goodput)


def bufferlab(runner: str, delay: str, prr: bool) -> tuple[int, list[tuple]]:
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(scenario(delay, prr))
        f.flush()
        r = json.loads(subprocess.run([runner, f.name], capture_output=True, check=True).stdout)
    q = next(q for q in r["queues"] if q["link"] == "bottleneck")
    return q["drops"], [row(f["tcp"], f["goodput_bps"]) for f in r["flows"]]


def ns3(delay: str, prr: bool) -> tuple[int, list[tuple]]:
    args = [str(BENCH / ".peers" / "ns3_dumbbell"), "--nTcp=5", "--accessRate=10Mbps",
            f"--accessDelay={delay}", "--bnRate=1Mbps", "--bnDelay=10ms", "--segSize=1024",
            "--simTime=100", "--qlimit=5000B", "--tcp=TcpLinuxReno", "--qdisc=DropTail",
            "--tcpStats=1", "--stagger=0.001"] + ([] if prr else ["--recovery=Classic"])
    r = json.loads(subprocess.run(args, capture_output=True, check=True).stdout)
    return r["queue"]["drops"], [row(f["tcp"], f["goodput_bps"]) for f in r["flows"]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", action="append", required=True)
    ap.add_argument("--delays", default="1ms,2ms,3ms")
    a = ap.parse_args()
    for delay in a.delays.split(","):
        for prr in (False, True):
            ref = ns3(delay, prr)
            print(f"access delay {delay}, {'PRR' if prr else 'classic'} recovery: "
                  f"ns-3 drops {ref[0]}, goodput kbit/s "
                  + " ".join(f"{f[4] / 1e3:.1f}" for f in ref[1]))
            for runner in a.runner:
                drops, flows = bufferlab(runner, delay, prr)
                same = drops == ref[0] and all(
                    x[:4] == y[:4] and abs(x[4] - y[4]) < 0.01 for x, y in zip(flows, ref[1]))
                dev = " ".join(f"{100 * (x[4] / y[4] - 1):+.1f}%" for x, y in zip(flows, ref[1]))
                print(f"  {runner}: drops {drops}, goodput vs ns-3 {dev}"
                      + ("  IDENTICAL" if same else ""))


if __name__ == "__main__":
    main()
