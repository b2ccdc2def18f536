"""The networks of the ensemble validation (issue #22): dumbbells beyond the bench's.

Each network is one dumbbell run in bufferlab and in one peer, ns-2.35 (`peer = "ns2"`, its
one-way agents `Agent/TCP` (Tahoe), `/Reno`, `/Newreno`, `/Sack1`, FTP, `packetSize_` 1000 +
40 B header, `window_` as given) or ns-3.44 (`peer = "ns3"`, its TCP defaults: SACK, timestamps, IW 10,
min RTO 1 s, PRR, 1448-byte segments, with `TcpLinuxReno` or `TcpNewReno`). Every sender has
its own access delay (the RTT mix); the receivers' access links have 1 ms. Access links run at
`access_rate` with a 1000-packet (ns-2) or 100-packet (ns-3, the peer's default) queue.

The buffer is given in bandwidth-delay products of the mean base RTT
(2 x (mean sender access + bottleneck + receiver access delay)), rounded to whole packets of
the peer's size (1040 B for ns-2, 1502 B on the wire for ns-3). DropTail counts packets in both
peers. RED follows each peer's bench mapping: ns-2.35's RED in byte mode with its defaults
(`mean_pktsize_` 500, so `limit` packets are limit x 500 bytes, automatic thresholds, as
bench/lab/cases.py maps it), ns-3's RedQueueDisc in packets with MinTh / MaxTh at 1/4 and 3/4 of
the limit (paper 003's proportions), max_p 0.02, weight 0.002 (RedQueueDisc's defaults).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

# The peer's TCP variant -> bufferlab's TCP table (docs/models/tcp.md: the ns2 preset's cc and
# sack; the ns3 preset's cc = "linux_reno" is TcpLinuxReno, cc = "reno" is ns-3's TcpNewReno).
NS2_TCP = {"Tahoe": ("tahoe", False), "Reno": ("reno", False), "Newreno": ("newreno", False), "Sack1": ("newreno", True)}
NS3_TCP = {"TcpLinuxReno": "linux_reno", "TcpNewReno": "reno"}


@dataclass(frozen=True)
class Network:
    name: str
    peer: str  # "ns2" | "ns3"
    tcp: str  # the peer's name of the variant: NS2_TCP or NS3_TCP keys
    flows: int
    rate_mbps: float  # bottleneck
    delay_ms: float  # bottleneck one-way
    access_ms: tuple[float, ...]  # each sender's access delay (one value: all the same)
    buffer_bdp: float
    qdisc: str  # "DropTail" | "RED"
    delack: bool
    duration: float  # simulated seconds
    window: int = 20  # ns-2 window_ (packets); ns-3 is bounded by its 128 KiB buffers
    access_rate_mbps: float = 100.0
    note: str = ""

    def sender_delays(self) -> list[float]:
        a = self.access_ms
        return [a[0]] * self.flows if len(a) == 1 else list(a)

    def packet_bytes(self) -> int:
        return 1040 if self.peer == "ns2" else 1502

    def base_rtt_s(self) -> float:
        d = self.sender_delays()
        return 2 * (sum(d) / len(d) + self.delay_ms + 1.0) / 1e3

    def buffer_packets(self) -> int:
        bdp = self.rate_mbps * 1e6 * self.base_rtt_s() / 8 / self.packet_bytes()
        return max(2, round(self.buffer_bdp * bdp))

    def describe(self) -> dict:
        d = asdict(self)
        d["access_ms"] = list(self.access_ms)
        d["buffer_packets"] = self.buffer_packets()
        d["base_rtt_ms"] = round(self.base_rtt_s() * 1e3, 3)
        return d

    def check(self) -> None:
        """Errors are answers: one line naming the field and the fix."""
        tcps = NS2_TCP if self.peer == "ns2" else NS3_TCP
        if self.peer not in ("ns2", "ns3"):
            raise ValueError(f"{self.name}: peer must be ns2 or ns3, not {self.peer!r}")
        if self.tcp not in tcps:
            raise ValueError(f"{self.name}: tcp must be one of {sorted(tcps)} for {self.peer}")
        if len(self.access_ms) not in (1, self.flows):
            raise ValueError(f"{self.name}: access_ms needs 1 or {self.flows} values")
        if self.qdisc not in ("DropTail", "RED"):
            raise ValueError(f"{self.name}: qdisc must be DropTail or RED")


def _spread(n: int, lo: float, hi: float) -> tuple[float, ...]:
    """n access delays spread evenly from lo to hi ms (an RTT mix)."""
    return tuple(round(lo + (hi - lo) * i / max(1, n - 1), 3) for i in range(n))


# The list (issue #22: flows 2-50, RTT mixes, buffers 0.25-2 BDP, DropTail and RED, Tahoe /
# Reno / NewReno / Sack1 for ns-2, TcpLinuxReno / TcpNewReno for ns-3, delayed ACK on and off).
# Durations are kept short enough for the whole list to run in about half an hour on a loaded
# 2-core machine with K = 6 members.
NETWORKS: list[Network] = [
    # ns-2.35
    Network("n2_newreno_mix", "ns2", "Newreno", 2, 1.5, 10, (2, 25), 1.0, "DropTail", False, 60,
            note="two flows, RTTs 26 and 72 ms"),
    Network("n4_tahoe_mix", "ns2", "Tahoe", 4, 3.0, 15, (1, 5, 10, 20), 1.0, "DropTail", False,
            60, note="Agent/TCP (Tahoe), an RTT mix (issue #20)"),
    Network("n3_reno_long", "ns2", "Reno", 3, 1.0, 40, (5, 10, 50), 1.0, "DropTail", True, 60,
            note="long RTTs, delayed ACKs"),
    Network("n4_reno_red", "ns2", "Reno", 4, 3.0, 15, (1, 8, 20, 40), 1.0, "RED", True, 60),
    Network("n8_sack1_small", "ns2", "Sack1", 8, 5.0, 10, _spread(8, 1, 35), 0.25, "DropTail",
            False, 60, note="a quarter-BDP buffer"),
    Network("n6_sack1_red_w64", "ns2", "Sack1", 6, 10.0, 25, (2, 6, 10, 15, 22, 30), 1.0, "RED",
            True, 40, window=64),
    Network("n16_newreno_2bdp", "ns2", "Newreno", 16, 10.0, 20, _spread(16, 1, 50), 2.0,
            "DropTail", True, 40, window=64, note="a 2-BDP buffer"),
    Network("n50_reno_half", "ns2", "Reno", 50, 20.0, 10, _spread(50, 1, 10), 0.5, "DropTail",
            False, 30, window=64, note="50 flows"),
    Network("n12_newreno_red", "ns2", "Newreno", 12, 10.0, 15, _spread(12, 1, 30), 2.0, "RED",
            False, 40, window=64),
    # ns-3.44
    Network("m2_linuxreno_mix", "ns3", "TcpLinuxReno", 2, 2.0, 10, (2, 25), 1.0, "DropTail",
            True, 60, note="two flows, RTTs 26 and 72 ms"),
    Network("m4_newreno_red", "ns3", "TcpNewReno", 4, 5.0, 15, (1, 8, 20, 40), 1.0, "RED", True,
            60),
    Network("m8_linuxreno_small", "ns3", "TcpLinuxReno", 8, 10.0, 10, _spread(8, 1, 35), 0.25,
            "DropTail", False, 40, note="a quarter-BDP buffer, ACK every segment"),
    Network("m16_newreno_2bdp", "ns3", "TcpNewReno", 16, 10.0, 20, _spread(16, 1, 50), 2.0,
            "DropTail", True, 40, note="a 2-BDP buffer"),
    Network("m30_linuxreno_red", "ns3", "TcpLinuxReno", 30, 20.0, 10, _spread(30, 1, 10), 0.5,
            "RED", False, 30, note="30 flows, ACK every segment"),
    Network("c100_linuxreno", "ns3", "TcpLinuxReno", 100, 100.0, 10, (1,), 1.0, "DropTail", True,
            20, access_rate_mbps=1000.0,
            note="bench case c_ns3's network (100 flows, 1 Gbit/s access) for 20 s"),
]

# Tiny networks for the quick tests (tests/test_validation.py): two flows, a few seconds.
TINY = Network("tiny_ns2", "ns2", "Newreno", 2, 1.0, 10, (2, 12), 1.0, "DropTail", False, 5)
TINY_NS3 = Network("tiny_ns3", "ns3", "TcpLinuxReno", 2, 1.0, 10, (2, 12), 1.0, "DropTail",
                   True, 5)


def by_name(name: str) -> Network:
    for n in [*NETWORKS, TINY, TINY_NS3]:
        if n.name == name:
            return n
    raise KeyError(name)
