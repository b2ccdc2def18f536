"""Shared-buffer switches, ECN marking and ABM (docs/models/shared_buffer.md).

ECN: DCTCP's step marking at K on a switch's output queue (Alizadeh et al., SIGCOMM 2010,
section 3.1). A client asks 16 servers for 64 KB each through one 1 Gbit/s switch port, all
flows ns-3's DCTCP (ns-3 TCP defaults, among them its 1 s minimum RTO). With K = 20 packets
(the paper's K at 1 Gbit/s) the queue stays near K and nothing is dropped; with the same
switch and the same senders but no marking the port overflows its Dynamic Threshold and the
answers wait for retransmission timeouts: the incast collapse DCTCP removes.

ABM (Addanki et al., SIGCOMM 2022, section 3): with N congested queues, each alone on its port,
each settles at alpha B / (N (1 + alpha)) and the switch holds alpha B / (1 + alpha) whatever N.
"""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest

import bufferlab
from bufferlab import ScenarioError
from test_shared_buffer import down_queues, incast_ports


def dctcp_incast(
    n: int, ecn_threshold: str | None, delayed_ack: bool = False, **queues
) -> bufferlab.Results:
    """Client <- tor <- s0..s{n-1}, 1 Gbit/s, 20 us links; two queries of n x 64 KB, 50 ms
    apart; a 400-packet switch buffer under Dynamic Threshold, alpha 1; ns-3's DCTCP, its
    receivers acknowledging every segment unless ``delayed_ack``."""
    nodes = ["client", "tor"] + [f"s{i}" for i in range(n)]
    b = bufferlab.custom(nodes, duration="1300ms", name=f"incast-{n}", seed=1)
    b.link("down", between=("tor", "client"), rate="1Gbps", delay="20us")
    for i in range(n):
        b.link(f"up{i}", between=(f"s{i}", "tor"), rate="1Gbps", delay="20us")
    b.switch(
        "tor",
        buffer="400p",
        policy="dynamic_threshold",
        alpha=1.0,
        ecn_threshold=ecn_threshold,
        queues=queues or None,
    )
    b.monitor(queue_interval="10us", queues=["down"])
    b.incast(
        "client",
        [f"s{i}" for i in range(n)],
        "64KB",
        "50ms",
        stop="100ms",
        tcp={"preset": "ns3", "cc": "dctcp", "ecn": True, "delayed_ack": delayed_ack},
    )
    return b.run()


def port(res: bufferlab.Results, link: str) -> dict:
    return next(q for q in res.raw["queues"] if q["link"] == link and q["from"] == "tor")


def timeouts(res: bufferlab.Results) -> int:
    return sum(f["tcp"]["timeouts"] for f in res.raw["flows"])


def test_dctcp_incast_keeps_the_queue_near_k_without_timeouts_where_droptail_times_out():
    n, k = 16, 20
    marked = dctcp_incast(n, f"{k}p")
    q = port(marked, "down")
    assert q["drops"] == 0 and timeouts(marked) == 0
    assert q["marks"] > 0
    s = marked.raw["series"]["queues"][0]
    busy = [p for p in s["packets"] if p > 0]
    # DCTCP's queue oscillates between about K and K + N (the paper's section 3.3: each of N
    # flows adds a packet per RTT after the mark), once the first RTT's burst has drained
    assert k <= statistics.median(busy) <= k + n, statistics.median(busy)
    qct = marked.raw["fct"]["qct"]
    assert qct["count"] == 2 and qct["qct_p99_s"] < 0.02  # 1 MB at 1 Gbit/s is 8.4 ms
    sw = marked.raw["switches"][0]
    client = next(r for r in sw["queues"] if r["link"] == "down")
    assert client["marks"] == q["marks"] and client["ecn_threshold"] == "20p"
    assert sw["marks"] >= q["marks"]

    plain = dctcp_incast(n, None)
    q = port(plain, "down")
    assert q["drops_by_reason"]["shared_threshold"] > 0 and timeouts(plain) > 0
    assert q["marks"] == 0
    # the queries wait for ns-3's 1 s minimum RTO
    assert plain.raw["fct"]["qct"]["qct_p99_s"] > 1.0
    # a switch that does not mark reports no marks of its own
    sw = plain.raw["switches"][0]
    assert "marks" not in sw and all("marks" not in r for r in sw["queues"])


def test_ns3_dctcp_with_delayed_acks_waits_for_the_delayed_ack_timer():
    # ns-3's TcpDctcp cuts cwnd to (1 - alpha / 2) cwnd with no floor (GetSsThresh) and PRR
    # spreads the cut: a sender left one segment waits for its receiver's 200 ms delayed-ACK
    # timer (ns-3 itself: 408 ms for N = 16, docs/validation.md "DCTCP incast beside ns-3"),
    # without a drop or a timeout
    res = dctcp_incast(16, "20p", delayed_ack=True)
    assert port(res, "down")["drops"] == 0 and timeouts(res) == 0
    assert 0.2 < res.raw["fct"]["qct"]["qct_p99_s"] < 0.62


def test_a_queue_of_its_own_k_marks_and_the_others_do_not():
    res = dctcp_incast(4, None, down={"ecn_threshold": "15000B"})
    sw = res.raw["switches"][0]
    marking = [r for r in sw["queues"] if "marks" in r]
    assert [r["link"] for r in marking] == ["down"] and marking[0]["ecn_threshold"] == "15000B"
    assert marking[0]["marks"] == port(res, "down")["marks"] > 0


@pytest.mark.parametrize(
    ("n", "alpha", "buffer"),
    [(1, 1.0, 200), (2, 1.0, 200), (4, 1.0, 400), (4, 2.0, 300), (8, 0.5, 600), (3, 4.0, 260)],
)
def test_abm_settles_at_its_closed_form(n, alpha, buffer):
    # N UDP sources each overload their own 1 Gbit/s port of the switch at 2 Gbit/s (the
    # Dynamic Threshold test's network); each port has one queue, so it drains at 1
    res = incast_ports(n, f"{buffer}p", "abm", alpha=alpha).run()
    want = alpha * buffer / (n * (1 + alpha))
    for link, row in down_queues(res, n).items():
        assert abs(row["avg_packets"] - want) <= 1.0, (link, row["avg_packets"], want)
        assert row["drops_by_reason"].get("shared_threshold", 0) > 0
    (sw,) = res.raw["switches"]
    assert sw["policy"] == "abm"
    # the switch holds alpha B / (1 + alpha) whatever N (Dynamic Threshold: alpha N B /
    # (1 + alpha N), which grows with N)
    assert abs(sw["mean_occupancy"] - alpha * buffer / (1 + alpha)) <= n


ABM_INCAST = Path(__file__).resolve().parents[1] / "examples/datacenter/abm_unscheduled_incast.toml"


def abm_incast(unscheduled: str, **switch) -> bufferlab.Results:
    """examples/datacenter/abm_unscheduled_incast.toml: client <- tor <- s0..s15, 1 Gbit/s,
    20 us links; a query of 16 x 16 KB every 20 ms (five) through a 400-packet ABM switch at
    alpha 0.5; ns-3's TCP with a 10 ms minimum RTO, each connection tagging its first
    ``unscheduled`` bytes ("0B": none); ``switch`` overrides the switch's fields."""
    sc = bufferlab.load(ABM_INCAST).with_overrides(
        {"workloads.0.tcp.unscheduled_bytes": unscheduled}
        | {f"switches.tor.{k}": v for k, v in switch.items()}
    )
    return sc.run()


def test_abm_admits_each_flows_first_bytes_with_the_unscheduled_alpha():
    # ABM's authors' ns-3: packets a connection sends within its first RTTBytes are tagged
    # and admitted with alphaUnsched (1024) in place of alpha. 16 answers of 16 KB arrive at
    # once: at alpha 0.5 the port's queue may hold 0.5 / 1.5 of 400 packets (133), less than
    # the burst, so answers lose packets and wait for timeouts; tagged whole, the burst fits
    plain = abm_incast("0B")
    q = port(plain, "down")
    assert q["drops_by_reason"]["shared_threshold"] > 0 and timeouts(plain) > 0
    assert plain.raw["fct"]["qct"]["qct_p99_s"] > 0.01  # a 10 ms minimum RTO

    tagged = abm_incast("16KB")
    q = port(tagged, "down")
    assert q["drops"] == 0 and timeouts(tagged) == 0
    # 256 KB at 1 Gbit/s take 2.1 ms
    assert tagged.raw["fct"]["qct"]["qct_p99_s"] < 0.003

    # only the first bytes: tagged for 8 KB the answers' tails are refused again
    half = abm_incast("8KB")
    assert port(half, "down")["drops_by_reason"]["shared_threshold"] > 0
    # and a switch whose unscheduled alpha is its alpha admits as without the tag
    same = abm_incast("16KB", abm_unscheduled_alpha=0.5)
    assert port(same, "down")["drops"] == port(plain, "down")["drops"]


@pytest.mark.parametrize(
    ("switch", "message"),
    [
        ({"policy": "abm"}, "switches.sw.alpha: abm needs alpha"),
        (
            {"policy": "dynamic_threshold", "alpha": 1.0, "abm_saturation": "20p"},
            'switches.sw.abm_saturation: is read by policy = "abm" only',
        ),
        (
            {"policy": "abm", "alpha": 1.0, "abm_saturation": "28000B"},
            "switches.sw.abm_saturation: 28000B is not in the buffer's unit",
        ),
        (
            {"policy": "abm", "alpha": 1.0, "abm_interval": "0s"},
            "switches.sw.abm_interval: 0 updates without end",
        ),
        (
            {"policy": "dynamic_threshold", "alpha": 1.0, "abm_unscheduled_alpha": 1024},
            'switches.sw.abm_unscheduled_alpha: is read by policy = "abm" only',
        ),
        (
            {"policy": "abm", "alpha": 1.0, "abm_unscheduled_alpha": -1},
            "switches.sw.abm_unscheduled_alpha: -1 is not a positive number",
        ),
        (
            {"policy": "complete_sharing", "ecn_threshold": "0p"},
            "switches.sw.ecn_threshold: 0 would mark every packet",
        ),
        (
            {"policy": "complete_sharing", "queues": {"down0": {"ecn_threshold": "0B"}}},
            "switches.sw.queues.down0.ecn_threshold: 0 would mark every packet",
        ),
    ],
)
def test_refusals_name_the_field(switch, message):
    b = incast_ports(1, "100p", **switch)
    with pytest.raises(ScenarioError, match=re.escape(message)):
        b.run()
