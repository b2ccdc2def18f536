"""Shared-buffer switches (docs/models/shared_buffer.md): Dynamic Threshold against its closed
form, the other policies' limits, drops by reason, the pool's series, and the refusals.

The closed form (Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998, section III): with N queues of
one switch overloaded for long, each settles at alpha * B / (1 + alpha * N) of a buffer B, and
B / (1 + alpha * N) stays free. Here N UDP sources each overload their own 1 Gbit/s output port
of one switch at 2 Gbit/s; the time-average of each congested queue, measured after the queues
have filled, is compared with the closed form.
"""

from __future__ import annotations

import re

import pytest

import bufferlab
from bufferlab import ScenarioError
from conftest import ROOT


def incast_ports(n: int, buffer: str, policy: str, **switch) -> bufferlab.ScenarioBuilder:
    """N sources s{i} -> switch sw -> N sinks d{i}; each d{i} port offered twice its rate."""
    nodes = [f"s{i}" for i in range(n)] + ["sw"] + [f"d{i}" for i in range(n)]
    b = bufferlab.custom(nodes, duration="40ms", warmup="10ms", name=f"dt-{n}", seed=1)
    for i in range(n):
        b.link(f"up{i}", between=(f"s{i}", "sw"), rate="10Gbps", delay="1us")
        b.link(f"down{i}", between=("sw", f"d{i}"), rate="1Gbps", delay="1us")
        b.flow(
            f"cbr{i}",
            f"s{i}",
            f"d{i}",
            app={"kind": "cbr", "rate": "2Gbps", "packet_size": "1000B"},
        )
    b.switch("sw", buffer=buffer, policy=policy, **switch)
    b.monitor(queue_interval="1ms", queues=[f"down{i}" for i in range(n)])
    return b


def down_queues(res: bufferlab.Results, n: int) -> dict[str, dict]:
    """The switch's ports towards the sinks, by link name (the report's records)."""
    q = {r["link"]: r for r in res.raw["queues"] if r["from"] == "sw"}
    return {f"down{i}": q[f"down{i}"] for i in range(n)}


@pytest.mark.parametrize(
    ("n", "alpha", "buffer"),
    [(1, 1.0, 200), (2, 1.0, 200), (4, 1.0, 200), (4, 2.0, 300), (8, 0.5, 400), (3, 4.0, 260)],
)
def test_dynamic_threshold_settles_at_its_closed_form(n, alpha, buffer):
    res = incast_ports(n, f"{buffer}p", "dynamic_threshold", alpha=alpha).run()
    want = alpha * buffer / (1 + alpha * n)
    q = down_queues(res, n)
    for link, row in q.items():
        # a queue below its threshold admits, so it stays within one packet of the fixed point
        assert abs(row["avg_packets"] - want) <= 1.0, (link, row["avg_packets"], want)
        assert row["drops_by_reason"].get("shared_threshold", 0) > 0
        assert row["discipline"] == "shared_buffer"
    (sw,) = res.raw["switches"]
    assert sw["policy"] == "dynamic_threshold" and sw["unit"] == "packets"
    free = buffer - sw["mean_occupancy"]
    assert abs(free - buffer / (1 + alpha * n)) <= n, (free, buffer / (1 + alpha * n))
    # the series: the pool's occupancy and each queue's threshold alpha (B - Q) at each sample
    s = sw["series"]
    assert len(s["t_s"]) == len(s["occupancy"]) == 31  # 10 ms to 40 ms every 1 ms
    assert len(s["thresholds"]) == 2 * n  # every output port: n down, n up (towards sources)
    for occ, th in zip(s["occupancy"], s["thresholds"][0], strict=True):
        assert th == pytest.approx(alpha * (buffer - occ))
    frame = res.switch_series  # the same series in long format
    assert len(frame) == 31 * 2 * n and set(frame["switch"]) == {"sw"}
    first = frame[frame["link"] == "down0"]
    assert list(first["threshold"]) == pytest.approx(s["thresholds"][0])


def test_static_threshold_caps_each_queue_and_complete_sharing_fills_the_pool():
    n = 4
    res = incast_ports(n, "200p", "static_threshold", threshold="30p").run()
    for row in down_queues(res, n).values():
        assert 29 <= row["avg_packets"] <= 30 and row["max_packets"] == 30
        assert set(row["drops_by_reason"]) == {"shared_threshold"}
    res = incast_ports(n, "200p", "complete_sharing").run()
    q = down_queues(res, n)
    # nothing but the pool's size limits the queues: together they fill it
    assert sum(r["max_packets"] for r in q.values()) >= 200 - n
    assert res.raw["switches"][0]["max_occupancy"] == 200
    assert all("shared_pool_full" in r["drops_by_reason"] for r in q.values())


def test_per_queue_alpha_and_byte_buffers():
    # alphas 1 and 3 on two congested ports: q_i = alpha_i (B - Q), so B - Q = B / 5
    b = incast_ports(2, "500000B", "dynamic_threshold", alpha=1.0, queues={"down1": {"alpha": 3.0}})
    q = down_queues(b.run(), 2)
    assert abs(q["down0"]["avg_bytes"] - 100_000) <= 1000
    assert abs(q["down1"]["avg_bytes"] - 300_000) <= 1000


def test_the_incast_example_runs_and_reports_its_switch():
    res = bufferlab.load(ROOT / "examples/datacenter/shared_buffer_incast.toml").run()
    (sw,) = res.raw["switches"]
    assert sw["name"] == "tor" and sw["max_occupancy"] <= 256_000
    client = next(q for q in sw["queues"] if q["to"] == "client")
    assert client["drops_threshold"] > 0  # 1 MB of answers into at most half of 256 KB


@pytest.mark.parametrize(
    ("switch", "message"),
    [
        ({"policy": "dynamic_threshold"}, "switches.sw.alpha: dynamic_threshold needs alpha"),
        ({"policy": "static_threshold"}, "switches.sw.threshold: static_threshold needs"),
        (
            {"policy": "static_threshold", "threshold": "10KB"},
            "switches.sw.threshold: 10000B is not in the buffer's unit",
        ),
        ({"policy": "dynamic_threshold", "alpha": -1.0}, "switches.sw.alpha: -1 is not a positive"),
        (
            {"policy": "complete_sharing", "queues": {"nope": {"alpha": 1.0}}},
            'switches.sw.queues.nope: no link "nope" leaves switch "sw"',
        ),
    ],
)
def test_refusals_name_the_field(switch, message):
    b = incast_ports(1, "100p", **switch)
    with pytest.raises(ScenarioError, match=re.escape(message)):
        b.run()


def test_a_switch_must_be_a_node():
    b = incast_ports(1, "100p", "complete_sharing")
    b._d["switches"]["nowhere"] = {"buffer": "10p", "policy": "complete_sharing"}
    with pytest.raises(
        ScenarioError, match=re.escape('switches.nowhere: no node is named "nowhere"')
    ):
        b.run()
