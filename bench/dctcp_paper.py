"""DCTCP beside Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010 (issue #38).

Two of the paper's testbed experiments, built with bufferlab's Python builder:

* queue length (section 4.1, Figures 1 and 13): 2 and 20 long-lived flows from distinct
  1 Gbit/s ports to one 1 Gbit/s port; DCTCP with the switch marking at K = 20 packets
  against TCP over the switch's drop-tail buffer (Figure 1's caption: up to about 700 KB
  for one busy port under the Triumph's dynamic allocation);
* incast (section 4.2.1, Figures 18 and 19): a client asks N servers for 1 MB / N each, the
  switch's buffer static at 100 packets per port (Figure 18) or dynamic (Figure 19), RTO_min
  10 ms, the query repeated; query completion time and the fraction of queries with a
  timeout, DCTCP against TCP.

Both run the ``linux`` preset: its DCTCP is Linux ``net/ipv4/tcp_dctcp.c``, which follows
the paper's sender (alpha <- (1 - g) alpha + g F once per window of data, g = 1/16,
cwnd <- cwnd (1 - alpha / 2) at most once per window, the receiver's CE-state echo of
section 3.1; it adds a two-segment floor to the cut), and its TCP is NewReno
(``cc = "newreno"``) with SACK, the paper's baseline ("TCP New Reno (w/ SACK)", section 4).
Every setting not from the paper is a bufferlab default or is named below with its reason.

Run: python bench/dctcp_paper.py [--quick]   (prints markdown tables)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import bufferlab

MSS_WIRE = 1500  # bytes of a full packet on the wire (1448 B of payload + headers)
LINK = "1Gbps"  # the paper's 1 Gbit/s testbed (section 4)
# One-way delay of each link: 25 us, so the base RTT (host -> switch -> host and back) is
# 100 us (a choice: the paper does not give its testbed's delays; section 3.4's footnote 6
# takes RTTs of 100 to 300 us). C x RTT / 7 is then 1.2 packets, far below K = 20.
DELAY = "25us"
K = "20p"  # section 4.1: K = 20 packets at 1 Gbit/s
DROPTAIL_BUFFER = "700KB"  # Figure 1's caption: one busy port may take up to ~700 KB
TRIUMPH_BUFFER = "4MB"  # Table 1: the Triumph's 4 MB shared buffer
DT_ALPHA = 0.7 / 3.3  # alpha B / (1 + alpha) = 700 KB of B = 4 MB
INCAST_PORT = 100  # section 4.2.1: "a static allocation of 100 packets to each port"
# section 4.2.1's arithmetic for DCTCP's first timeouts, 35 x 2 x 1.5 KB > 100 KB, counts the
# port as 100 KB: 67 packets of 1500 B
ARITHMETIC_PORT = 67
RTO_MIN = "10ms"  # section 4.2: RTO_min 10 ms (the paper also runs 300 ms)

TCP_DCTCP = {"preset": "linux", "cc": "dctcp", "ecn": True, "min_rto": RTO_MIN}
TCP_RENO = {"preset": "linux", "cc": "newreno", "min_rto": RTO_MIN}
# Hosts of the paper's time (a choice: the paper's text says only "TCP New Reno (w/ SACK)"
# on Windows Server 2008 R2 hosts, section 4): RFC 3390's initial window, min(4 MSS, max(2 MSS,
# 4380 B)) = 3 segments of 1448 B, and no RACK-TLP (Linux 4.x and later); the linux preset's
# own are IW 10 (RFC 6928) and RACK-TLP. Nor do they acknowledge as Linux does
# (`linux_ack_policy` off: an ACK every second segment or after the delayed-ACK timer, no
# quick-ACK mode, no SACK compression, which is Linux 4.20's). "2010-iw2" takes the 2 packets
# per sender of the paper's incast arithmetic (section 4.2.1: 35 x 2 x 1.5 KB > 100 KB) as the
# initial window.
HOSTS = {
    "linux": {},
    "2010": {"iw": 3, "rack_tlp": False, "linux_ack_policy": False},
    "2010-iw2": {"iw": 2, "rack_tlp": False, "linux_ack_policy": False},
}


def long_lived(n: int, dctcp: bool, duration: str, warmup: str) -> dict:
    """n bulk flows s_i -> r through switch sw; the port sw -> r is the bottleneck."""
    nodes = ["r", "sw"] + [f"s{i}" for i in range(n)]
    b = bufferlab.custom(nodes, duration=duration, name=f"ll-{n}", seed=1, warmup=warmup)
    b.link("down", between=("sw", "r"), rate=LINK, delay=DELAY)
    for i in range(n):
        b.link(f"up{i}", between=(f"s{i}", "sw"), rate=LINK, delay=DELAY)
    # complete sharing of a 700 KB pool: the congested port may take all of it, as Figure
    # 1's dynamic allocation lets one busy port take ~700 KB
    b.switch(
        "sw",
        buffer=DROPTAIL_BUFFER,
        policy="complete_sharing",
        ecn_threshold=K if dctcp else None,
    )
    b.monitor(queue_interval="100us", queues=["down"])
    tcp = TCP_DCTCP if dctcp else TCP_RENO
    for i in range(n):
        b.flow(f"f{i}", f"s{i}", "r", app={"kind": "bulk"}, tcp=tcp)
    res = b.run()
    raw = res.raw
    s = next(q for q in raw["series"]["queues"] if q["link"] == "down" and q["from"] == "sw")
    warm = raw["warmup_s"]
    pk = [p for t, p in zip(s["t_s"], s["packets"], strict=True) if t >= warm]
    by = [x for t, x in zip(s["t_s"], s["bytes"], strict=True) if t >= warm]
    port = next(q for q in raw["queues"] if q["link"] == "down" and q["from"] == "sw")
    gbps = sum(f["goodput_bps"] for f in raw["flows"]) / 1e9
    return {
        "n": n,
        "cc": "DCTCP, K = 20" if dctcp else "NewReno, drop-tail",
        "p50": statistics.median(pk),
        "p95": _pct(pk, 0.95),
        "max": max(pk),
        "p50_kb": statistics.median(by) / 1000,
        "max_kb": max(by) / 1000,
        "goodput": gbps,
        "drops": port["drops"],
        "timeouts": sum(f["tcp"]["timeouts"] for f in raw["flows"]),
    }


def _pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))]


def incast(
    n: int,
    dctcp: bool,
    queries: int,
    interval_ms: int,
    host: str = "linux",
    dynamic: bool = False,
    port: int = INCAST_PORT,
) -> dict:
    """A client asks n servers for 1 MB / n each, `queries` times, `interval_ms` apart."""
    nodes = ["client", "tor"] + [f"s{i}" for i in range(n)]
    dur = queries * interval_ms + 200
    b = bufferlab.custom(nodes, duration=f"{dur}ms", name=f"incast-{n}", seed=1)
    b.link("down", between=("tor", "client"), rate=LINK, delay=DELAY)
    for i in range(n):
        b.link(f"up{i}", between=(f"s{i}", "tor"), rate=LINK, delay=DELAY)
    # a static threshold of 100 packets on every port, the pool large enough that only the
    # per-port threshold binds (section 4.2's static allocation)
    if dynamic:
        # section 4.2.1, "Importance of dynamic buffering": the Triumph's 4 MB (Table 1) under
        # its dynamic allocation, which gives one busy port up to ~700 KB; Dynamic Threshold
        # gives one congested queue alpha B / (1 + alpha), 700 KB of 4 MB at alpha = 0.212
        b.switch(
            "tor",
            buffer=TRIUMPH_BUFFER,
            policy="dynamic_threshold",
            alpha=DT_ALPHA,
            ecn_threshold=K if dctcp else None,
        )
    else:
        b.switch(
            "tor",
            buffer=f"{port * (n + 1)}p",
            policy="static_threshold",
            threshold=f"{port}p",
            ecn_threshold=K if dctcp else None,
        )
    size = 1_000_000 // n  # 1 MB = 10^6 B split over the n servers
    b.incast(
        "client",
        [f"s{i}" for i in range(n)],
        f"{size}B",
        f"{interval_ms}ms",
        stop=f"{(queries - 1) * interval_ms + 1}ms",
        tcp={**(TCP_DCTCP if dctcp else TCP_RENO), **HOSTS[host]},
    )
    raw = b.run().raw
    qcts = [q["qct_s"] for q in raw["fct"]["queries"] if q["qct_s"] is not None]
    hit: set[str] = set()
    for f in raw["flows"]:
        if f["name"].startswith("q") and f["tcp"]["timeouts"] > 0:
            hit.add(f["name"].split("_")[1])
    port = next(q for q in raw["queues"] if q["link"] == "down" and q["from"] == "tor")
    return {
        "n": n,
        "cc": ("DCTCP" if dctcp else "NewReno") + f" ({host})",
        "done": len(qcts),
        "asked": len(raw["fct"]["queries"]),
        "qct_mean_ms": 1000 * statistics.fmean(qcts) if qcts else float("nan"),
        "qct_p50_ms": 1000 * statistics.median(qcts) if qcts else float("nan"),
        "qct_max_ms": 1000 * max(qcts) if qcts else float("nan"),
        "timeout_frac": len(hit) / max(1, len(raw["fct"]["queries"])),
        "drops": port["drops"],
    }


def queue_table(rows: list[dict]) -> str:
    out = [
        "| flows | sender, switch | queue p50 (pkts) | p95 | max | p50 (KB) | max (KB) "
        "| goodput (Gbit/s) | drops | timeouts |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['n']} | {r['cc']} | {r['p50']:.0f} | {r['p95']:.0f} | {r['max']:.0f} "
            f"| {r['p50_kb']:.1f} | {r['max_kb']:.1f} | {r['goodput']:.3f} | {r['drops']} "
            f"| {r['timeouts']} |"
        )
    return "\n".join(out)


def incast_table(rows: list[dict]) -> str:
    """One line per N: DCTCP's and TCP's mean QCT, fraction of queries with a timeout, and
    drops at the client's port over all queries."""
    out = [
        "| N | DCTCP QCT ms | DCTCP queries with timeout | DCTCP drops "
        "| NewReno QCT ms | NewReno queries with timeout | NewReno drops |",
        "|---|---|---|---|---|---|---|",
    ]
    by_n: dict[int, dict[bool, dict]] = {}
    for r in rows:
        by_n.setdefault(r["n"], {})[r["cc"].startswith("DCTCP")] = r
    for n, pair in by_n.items():
        cells = [str(n)]
        for r in (pair[True], pair[False]):
            done = "" if r["done"] == r["asked"] else f" ({r['done']}/{r['asked']} done)"
            cells += [f"{r['qct_mean_ms']:.2f}{done}", f"{r['timeout_frac']:.2f}", str(r["drops"])]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer points, shorter runs")
    a = ap.parse_args(argv)
    t0 = time.monotonic()
    dur, warm = ("300ms", "100ms") if a.quick else ("1s", "200ms")
    rows = [long_lived(n, d, dur, warm) for n in (2, 20) for d in (True, False)]
    print("## Queue length, long-lived flows into one 1 Gbit/s port\n")
    print(queue_table(rows))
    # N from 1 to 40 (the paper's 41 machines: one client, up to 40 servers)
    ns = (1, 5, 10, 20, 30, 40) if a.quick else (1, 5, 10, 15, 20, 25, 30, 34, 35, 40)
    queries = 10 if a.quick else 30
    for host in HOSTS:
        rows = [incast(n, d, queries, 100, host) for n in ns for d in (True, False)]
        print(f"\n## Incast, static 100-packet port, {host} hosts\n")
        print(incast_table(rows))
    rows = [
        incast(n, d, queries, 100, "2010-iw2", port=ARITHMETIC_PORT)
        for n in ns
        for d in (True, False)
    ]
    print("\n## Incast, static 67-packet (100 KB) port, 2010-iw2 hosts\n")
    print(incast_table(rows))
    rows = [incast(n, d, queries, 100, "2010", dynamic=True) for n in ns for d in (True, False)]
    print("\n## Incast, dynamic buffer (4 MB, one port up to 700 KB), 2010 hosts\n")
    print(incast_table(rows))
    print(f"\n(wall {time.monotonic() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
