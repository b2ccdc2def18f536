#!/usr/bin/env python3
"""PRR (RFC 6937) in bufferlab's `linux` flavour (Linux `tcp_cwnd_reduction`,
crates/bufferlab-core/src/tcp/sender/prr_linux.rs) beside ns-3.44's `TcpPrrRecovery`, on
dumbbells both build: bench/scenarios/a_droptail.toml (paper 003: 1 Mbit/s / 10 ms, 5000 B)
and the same with a 10 Mbit/s / 20 ms bottleneck and a 60 000 B buffer (about one BDP), five
TcpLinuxReno flows started 1 ms apart, each with PRR and with classic recovery (RFC 6675's
cwnd = ssthresh; ns-3 `--recovery=Classic`, bufferlab `prr = false`).

    python3 bench/prr_compare.py [--bufferlab .venv/bin/bufferlab] [--time 100]

ns-3 is bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh). Rows: ns-3; bufferlab's `ns3`
preset (ns-3's rules: the same packets as ns-3 on network a, tests/tcp_ns3.rs); bufferlab's
`linux` preset with `cc = "linux_reno"` and ns-3's segment size, whose other rules are Linux's
(RFC 6675 sender, 40 ms delayed ACK, 200 ms minimum RTO, RecoverFS = cwnd before the
reduction, PRR counted in segments), so it is compared with ns-3 by what PRR changes, not packet
for packet: without RACK-TLP (`rack_tlp = false`, which ns-3 lacks), then with it (the preset's
default).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
NETS = {
    "a": {"bn_rate": "1Mbps", "bn_delay": "10ms", "qlimit": "5000B"},
    "b": {"bn_rate": "10Mbps", "bn_delay": "20ms", "qlimit": "60000B"},
}


def scenario(net: dict, tcp: str, sim_time: int) -> str:
    head, _ = (BENCH / "scenarios" / "a_droptail.toml").read_text().split("[[flows]]")
    head = head.replace('duration = "100s"', f'duration = "{sim_time}s"')
    head = head.replace('rate = "1Mbps"', f'rate = "{net["bn_rate"]}"')
    head = head.replace('delay = "10ms"', f'delay = "{net["bn_delay"]}"')
    head = head.replace('limit = "5000B"', f'limit = "{net["qlimit"]}"')
    for i in range(5):
        head += (
            f'[[flows]]\nname = "tcp{i}"\nsrc = "s{i}"\ndst = "d{i}"\nstart = "{i}ms"\n'
            f'app = {{ kind = "bulk" }}\ntcp = {{ {tcp} }}\n\n'
        )
    return head


def summary(drops: int, flows: list[dict], goodputs: list[float]) -> dict:
    s = lambda k: sum(f[k] for f in flows)  # noqa: E731
    return {
        "drops": drops,
        "sent": s("segments_sent"),
        "retx": s("retransmitted_segments"),
        "timeouts": s("timeouts"),
        "fast_retx": s("fast_retransmits"),
        "goodput_kbps": sum(goodputs) / 1e3,
    }


def bufferlab(exe: str, net: dict, tcp: str, sim_time: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(scenario(net, tcp, sim_time))
        f.flush()
        out = subprocess.run([exe, "run", f.name, "--json"], capture_output=True, check=True)
    r = json.loads(out.stdout)
    q = next(q for q in r["queues"] if q["link"] == "bottleneck")
    return summary(
        q["drops"], [f["tcp"] for f in r["flows"]], [f["goodput_bps"] for f in r["flows"]]
    )


def ns3(net: dict, prr: bool, sim_time: int) -> dict:
    args = [
        str(BENCH / ".peers" / "ns3_dumbbell"),
        "--nTcp=5",
        "--accessRate=10Mbps",
        "--accessDelay=1ms",
        f"--bnRate={net['bn_rate']}",
        f"--bnDelay={net['bn_delay']}",
        "--segSize=1024",
        f"--simTime={sim_time}",
        f"--qlimit={net['qlimit']}",
        "--tcp=TcpLinuxReno",
        "--qdisc=DropTail",
        "--tcpStats=1",
        "--stagger=0.001",
    ]
    args += [] if prr else ["--recovery=Classic"]
    r = json.loads(subprocess.run(args, capture_output=True, check=True).stdout)
    return summary(
        r["queue"]["drops"], [f["tcp"] for f in r["flows"]], [f["goodput_bps"] for f in r["flows"]]
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bufferlab", default=".venv/bin/bufferlab")
    ap.add_argument("--time", type=int, default=100)
    a = ap.parse_args()
    cols = ["drops", "sent", "retx", "timeouts", "fast_retx", "goodput_kbps"]
    print("| network | recovery | run | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for name, net in NETS.items():
        for prr in (False, True):
            p = str(prr).lower()
            rows = {
                "ns-3.44": ns3(net, prr, a.time),
                "bufferlab ns3": bufferlab(
                    a.bufferlab,
                    net,
                    f'preset = "ns3", cc = "linux_reno", mss = 1024, prr = {p}',
                    a.time,
                ),
                "bufferlab linux": bufferlab(
                    a.bufferlab,
                    net,
                    f'preset = "linux", cc = "linux_reno", mss = 1024, prr = {p}, rack_tlp = false',
                    a.time,
                ),
                "bufferlab linux + RACK-TLP": bufferlab(
                    a.bufferlab,
                    net,
                    f'preset = "linux", cc = "linux_reno", mss = 1024, prr = {p}',
                    a.time,
                ),
            }
            for run, r in rows.items():
                vals = " | ".join(f"{r[c]:.1f}" if c == "goodput_kbps" else str(r[c]) for c in cols)
                print(f"| {name} | {'PRR' if prr else 'classic'} | {run} | {vals} |")


if __name__ == "__main__":
    main()
