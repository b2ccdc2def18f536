#!/usr/bin/env python3
"""bufferlab's token-bucket shaper (`kind = "tbf"`) beside ns-3.44's TbfQueueDisc on the same
dumbbell (issue 41; docs/validation.md, "TBF against ns-3").

    .venv/bin/python bench/tbf_compare.py            # all cases, a markdown table on stdout
    .venv/bin/python bench/tbf_compare.py --cases udp

The ns-3 side is bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh) with `--tbfRate`: a
TbfQueueDisc at the bottleneck's root, the chosen discipline its one child, above a 1-packet
device queue. The bufferlab side is the same network as a scenario (ns-3's TCP preset, the
devices' 2-byte PPP framing, `device_queue = 1`), the shaper as the bottleneck's queue with the
same child. Both print what the sinks received and the shaper's queue (time average, drops).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lab.cases import (  # noqa: E402
    NS3_DEVICE_QUEUE,
    NS3_FRAMING,
    run_bufferlab_dumbbell,
    run_ns3_dumbbell,
    toml_dumbbell,
)

NS3 = HERE / ".peers" / "ns3_dumbbell"
BUFFERLAB = Path(sys.executable).parent / "bufferlab"
TIME = 20.0
ACCESS = ("1Gbps", "1ms", '{ kind = "droptail", limit = "100p" }')
NS3_ACCESS = ["--accessRate=1Gbps", "--accessDelay=1ms", "--bnRate=100Mbps", "--bnDelay=10ms"]
TCP = '{ preset = "ns3", cc = "linux_reno", mss = 1448 }'


def case_list() -> list[dict]:
    """(id, title, bufferlab queue, ns-3 arguments, flows)."""
    return [
        dict(
            id="udp",
            title="1 UDP CBR 8 Mbit/s (1000 B payload) into TBF 5 Mbit/s, burst 10000 B, "
            "child DropTail 100p",
            queue='{ kind = "tbf", rate = "5Mbps", burst = "10000B", '
            'child = { kind = "droptail", limit = "100p" } }',
            ns3=["--nTcp=0", "--nUdp=1", "--udpRate=8Mbps", "--udpPkt=1000",
                 "--qdisc=DropTail", "--qlimit=100p", "--tbfRate=5Mbps", "--tbfBurst=10000"],
            # ns-3's OnOff counts payload bytes: 1000 B every 1 ms at 8 Mbit/s; bufferlab's cbr
            # sends `packet_size` (on-wire) bytes every size*8/rate, so 1028 B at 8.224 Mbit/s
            udp=("8.224Mbps", "1028B"),
            tcp=0,
        ),
        dict(
            id="tcp_fifo",
            title="4 Reno flows through TBF 10 Mbit/s, burst 15000 B, child DropTail 100p",
            queue='{ kind = "tbf", rate = "10Mbps", burst = "15000B", '
            'child = { kind = "droptail", limit = "100p" } }',
            ns3=["--nTcp=4", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=DropTail",
                 "--qlimit=100p", "--tbfRate=10Mbps", "--tbfBurst=15000"],
            udp=None,
            tcp=4,
        ),
        dict(
            id="tcp_codel",
            # (ns-3.44 refuses an FqCoDelQueueDisc child of a TbfQueueDisc in this peer:
            # "The queue disc configuration is not correct"; CoDel instead)
            title="4 Reno flows through TBF 10 Mbit/s, burst 15000 B, child CoDel (ns3 preset) "
            "1000p",
            queue='{ kind = "tbf", rate = "10Mbps", burst = "15000B", '
            'child = { kind = "codel", preset = "ns3", limit = "1000p" } }',
            ns3=["--nTcp=4", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=CoDel",
                 "--qlimit=1000p", "--tbfRate=10Mbps", "--tbfBurst=15000"],
            udp=None,
            tcp=4,
        ),
        dict(
            id="tcp_peak",
            title="4 Reno flows through TBF 10 Mbit/s, burst 30000 B, peak 20 Mbit/s, min_burst "
            "1500 B, child DropTail 100p",
            queue='{ kind = "tbf", rate = "10Mbps", burst = "30000B", peak_rate = "20Mbps", '
            'min_burst = "1500B", child = { kind = "droptail", limit = "100p" } }',
            ns3=["--nTcp=4", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=DropTail",
                 "--qlimit=100p", "--tbfRate=10Mbps", "--tbfBurst=30000", "--tbfPeak=20Mbps",
                 "--tbfMtu=1500"],
            udp=None,
            tcp=4,
        ),
    ]


def scenario(c: dict) -> str:
    pairs = max(c["tcp"], 1)
    text = toml_dumbbell(
        f"tbf-{c['id']}", c["title"], pairs, TIME, ACCESS, ("100Mbps", "10ms", c["queue"]),
        TCP, overhead=NS3_FRAMING, device_queue=NS3_DEVICE_QUEUE,
    )
    if c["udp"]:
        # no TCP flows: replace the bulk flows by one CBR source
        text = text.split("[[flows]]")[0]
        rate, size = c["udp"]
        text += (
            '[[flows]]\nname = "cbr"\nsrc = "s0"\ndst = "d0"\n'
            f'app = {{ kind = "cbr", rate = "{rate}", packet_size = "{size}" }}\n'
        )
    return text


def run_bufferlab(c: dict) -> dict:
    return run_bufferlab_dumbbell(scenario(c), c["id"])


def run_ns3(c: dict) -> dict:
    return run_ns3_dumbbell([*NS3_ACCESS, f"--simTime={TIME:g}", *c["ns3"]])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma-separated case ids")
    ap.add_argument("--show-toml", action="store_true", help="print each bufferlab scenario")
    a = ap.parse_args()
    cs = case_list()
    if a.cases:
        want = set(a.cases.split(","))
        cs = [c for c in cs if c["id"] in want]
    print("| case | simulator | goodput (Mbit/s) | shaper queue avg (packets) | drops |")
    print("|---|---|---|---|---|")
    for c in cs:
        if a.show_toml:
            print(scenario(c), file=sys.stderr)
        b = run_bufferlab(c)
        n = run_ns3(c)
        flows = b["report"]["flows"]
        gp_b = sum(f["goodput_bps"] for f in flows) / 1e6
        q = b["queue"]
        print(f"| {c['id']} | bufferlab | {gp_b:.3f} | {q['avg_packets']:.2f} | {q['drops']} |")
        nq = n["queue"]
        print(f"| {c['id']} | ns-3.44 | {n['goodput_total_bps'] / 1e6:.3f} | "
              f"{nq['avg_packets']:.2f} | {nq['drops']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
