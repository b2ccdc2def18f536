#!/usr/bin/env python3
"""bufferlab's COBALT (`kind = "cobalt"`, preset `ns3`) beside ns-3.44's CobaltQueueDisc on the
same dumbbell (issue 41; docs/validation.md, "COBALT against ns-3").

    .venv/bin/python bench/cobalt_compare.py            # all cases, a markdown table on stdout
    .venv/bin/python bench/cobalt_compare.py --cases udp
    .venv/bin/python bench/cobalt_compare.py --sweep     # drops / goodput over start staggers

The ns-3 side is bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh) with `--qdisc=Cobalt`: a
CobaltQueueDisc at the bottleneck's root above a 1-packet device queue, its attributes at
their defaults but MaxSize (and UseEcn with `--redEcn`). The bufferlab side is the same network
as a scenario (ns-3's TCP preset, the devices' 2-byte PPP framing, `device_queue = 1`). Both
print what the sinks received and the bottleneck queue's time average, drops and marks.
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
NS3_ACCESS = ["--accessRate=1Gbps", "--accessDelay=1ms", "--bnRate=10Mbps", "--bnDelay=10ms"]
TCP = '{ preset = "ns3", cc = "linux_reno", mss = 1448 }'
TCP_ECN = '{ preset = "ns3", cc = "linux_reno", mss = 1448, ecn = true }'


def case_list() -> list[dict]:
    """(id, title, bufferlab queue, ns-3 arguments, flows)."""
    return [
        dict(
            id="tcp4",
            title="4 Reno flows, 10 Mbit/s bottleneck, COBALT (ns3 preset, MaxSize 1500000 B)",
            queue='{ kind = "cobalt", preset = "ns3" }',
            ns3=["--nTcp=4", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=Cobalt",
                 "--qlimit=1500000B"],
            tcp=4, tcp_cfg=TCP, udp=None,
        ),
        dict(
            id="tcp4_ecn",
            title="4 Reno flows with ECN, COBALT UseEcn (ns3 preset)",
            queue='{ kind = "cobalt", preset = "ns3", ecn = true }',
            ns3=["--nTcp=4", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=Cobalt",
                 "--qlimit=1500000B", "--ecn=1", "--redEcn=1"],
            tcp=4, tcp_cfg=TCP_ECN, udp=None,
        ),
        dict(
            id="tcp16",
            title="16 Reno flows, COBALT (ns3 preset)",
            queue='{ kind = "cobalt", preset = "ns3" }',
            ns3=["--nTcp=16", "--tcp=TcpLinuxReno", "--segSize=1448", "--qdisc=Cobalt",
                 "--qlimit=1500000B"],
            tcp=16, tcp_cfg=TCP, udp=None,
        ),
        dict(
            id="udp",
            title="1 UDP CBR 15 Mbit/s (1000 B payload) into 10 Mbit/s, COBALT (ns3 preset) "
            "limit 100p: overflow raises BLUE",
            queue='{ kind = "cobalt", preset = "ns3", limit = "100p" }',
            ns3=["--nTcp=0", "--nUdp=1", "--udpRate=15Mbps", "--udpPkt=1000",
                 "--qdisc=Cobalt", "--qlimit=100p"],
            # ns-3's OnOff counts payload bytes: 1000 B every 533 us at 15 Mbit/s; bufferlab's
            # cbr sends `packet_size` (on-wire) bytes every size*8/rate: 1028 B at 15.42 Mbit/s
            udp=("15.42Mbps", "1028B"),
            tcp=0, tcp_cfg=TCP,
        ),
    ]


#: Start offsets of the stagger sweep (flow i starts at i * stagger s, ns3_dumbbell --stagger).
STAGGERS = (0.0, 0.01, 0.05, 0.1, 0.2)


def scenario(c: dict, stagger: float = 0.0) -> str:
    pairs = max(c["tcp"], 1)
    starts = [i * stagger for i in range(pairs)] if stagger else None
    text = toml_dumbbell(
        f"cobalt-{c['id']}", c["title"], pairs, TIME, ACCESS, ("10Mbps", "10ms", c["queue"]),
        c["tcp_cfg"], starts=starts, overhead=NS3_FRAMING, device_queue=NS3_DEVICE_QUEUE,
    )
    if c["udp"]:
        text = text.split("[[flows]]")[0]
        rate, size = c["udp"]
        text += (
            '[[flows]]\nname = "cbr"\nsrc = "s0"\ndst = "d0"\n'
            f'app = {{ kind = "cbr", rate = "{rate}", packet_size = "{size}" }}\n'
        )
    return text


def run_bufferlab(c: dict, stagger: float = 0.0) -> dict:
    return run_bufferlab_dumbbell(scenario(c, stagger), c["id"])


def run_ns3(c: dict, stagger: float = 0.0) -> dict:
    return run_ns3_dumbbell([*NS3_ACCESS, f"--simTime={TIME:g}", f"--stagger={stagger:g}",
                             *c["ns3"]])


def sweep(c: dict) -> None:
    """Drops and goodput of both simulators over STAGGERS: how far the start phase alone moves
    them, beside the difference between the simulators."""
    for name, run in (("bufferlab", run_bufferlab), ("ns-3.44", run_ns3)):
        drops, goodput = [], []
        for st in STAGGERS:
            r = run(c, st)
            if name == "bufferlab":
                drops.append(r["queue"]["drops"])
                goodput.append(sum(f["goodput_bps"] for f in r["report"]["flows"]) / 1e6)
            else:
                drops.append(r["queue"]["drops"])
                goodput.append(r["goodput_total_bps"] / 1e6)
        print(f"| {c['id']} | {name} | " + " | ".join(
            f"{d} / {g:.3f}" for d, g in zip(drops, goodput, strict=True)) +
            f" | {sum(drops) / len(drops):.0f} / {sum(goodput) / len(goodput):.3f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma-separated case ids")
    ap.add_argument("--show-toml", action="store_true", help="print each bufferlab scenario")
    ap.add_argument("--sweep", action="store_true",
                    help=f"the TCP cases over start staggers {STAGGERS} s instead")
    a = ap.parse_args()
    cs = case_list()
    if a.cases:
        want = set(a.cases.split(","))
        cs = [c for c in cs if c["id"] in want]
    if a.sweep:
        print("| case | simulator | " + " | ".join(f"stagger {s:g} s" for s in STAGGERS) +
              " | mean |")
        print("|---|---|" + "---|" * (len(STAGGERS) + 1))
        for c in cs:
            if c["tcp"]:
                sweep(c)
        return 0
    print("| case | simulator | goodput (Mbit/s) | queue avg (packets) | drops: AQM | "
          "drops: overflow | marks |")
    print("|---|---|---|---|---|---|---|")
    for c in cs:
        if a.show_toml:
            print(scenario(c), file=sys.stderr)
        b = run_bufferlab(c)
        n = run_ns3(c)
        gp_b = sum(f["goodput_bps"] for f in b["report"]["flows"]) / 1e6
        q = b["queue"]
        by = q.get("drops_by_reason", {})
        aqm = by.get("codel", 0) + by.get("blue", 0)
        print(f"| {c['id']} | bufferlab | {gp_b:.3f} | {q['avg_packets']:.2f} | {aqm} "
              f"(codel {by.get('codel', 0)}, blue {by.get('blue', 0)}) | "
              f"{by.get('queue_full', 0)} | {q.get('marks', 0)} |")
        nq = n["queue"]
        reasons = nq.get("reasons", {})
        n_aqm = sum(v for k, v in reasons.items() if "Target exceeded" in k)
        n_full = sum(v for k, v in reasons.items() if "Target exceeded" not in k)
        print(f"| {c['id']} | ns-3.44 | {n['goodput_total_bps'] / 1e6:.3f} | "
              f"{nq['avg_packets']:.2f} | {n_aqm} | {n_full} | {nq.get('marks', 0)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
