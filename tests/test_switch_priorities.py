"""Priority classes of a shared-buffer switch's ports (docs/models/shared_buffer.md, "Priority
classes"): each port keeps one queue per priority, chosen by the flow's class, each drawing from
the buffer with its own threshold and ECN K, served by strict priority, DRR or WRR.

The Rust tests (crates/bufferlab-core/tests/shared_buffer_priority.rs) check the schedulers
and the closed form; these check the same through the Python API: the builder, the report's
per-queue records, the switch series' priority column, and the example.
"""

from __future__ import annotations

import pytest

import bufferlab
from bufferlab import ScenarioError
from conftest import ROOT


def two_classes(hi: str, lo: str, **switch) -> bufferlab.Results:
    """s0 (class 0 at ``hi``) and s1 (class 1 at ``lo``) -> sw -> d, 1 Gbit/s port."""
    b = bufferlab.custom(["s0", "s1", "sw", "d"], duration="60ms", warmup="20ms", seed=1)
    b.link("up0", between=("s0", "sw"), rate="10Gbps", delay="1us")
    b.link("up1", between=("s1", "sw"), rate="10Gbps", delay="1us")
    b.link("down", between=("sw", "d"), rate="1Gbps", delay="1us")
    for name, src, rate, cls in [("hi", "s0", hi, 0), ("lo", "s1", lo, 1)]:
        b.flow(
            name,
            src,
            "d",
            app={"kind": "cbr", "rate": rate, "packet_size": "1000B"},
            **{"class": cls},
        )
    b.switch("sw", buffer="400p", policy="dynamic_threshold", **switch)
    b.monitor(queue_interval="1ms", queues=["down"])
    return b.run()


def down_classes(res: bufferlab.Results) -> list[dict]:
    (port,) = [q for q in res.raw["queues"] if q["link"] == "down" and q["from"] == "sw"]
    assert port["discipline"] == "shared_buffer"
    return port["classes"]


def test_strict_priority_and_the_switch_records():
    res = two_classes("700Mbps", "2Gbps", alpha=1.0, priorities=[{}, {}])
    p0, p1 = down_classes(res)
    assert (p0["name"], p1["name"]) == ("p0", "p1")
    # 40 ms measured: 700 Mbit/s of 1000-byte packets is 3500 packets, all of them sent
    assert p0["departures"] == p0["arrivals"] == 3500 and p0["drops"] == 0
    assert p0["max_packets"] <= 1
    assert p0["departure_bytes"] + p1["departure_bytes"] == 5_000_000  # 1 Gbit/s for 40 ms
    assert p1["drops_by_reason"]["shared_threshold"] > 0
    (sw,) = res.raw["switches"]
    down = [q for q in sw["queues"] if q["link"] == "down"]
    assert [q["priority"] for q in down] == [0, 1]
    # every port of the switch has both queues; the series has a column per queue's priority
    assert len(sw["queues"]) == 3 * 2
    frame = res.switch_series
    rows = frame[frame["link"] == "down"]
    assert sorted(set(rows["priority"])) == [0, 1]


def test_drr_weights_and_per_priority_alpha():
    res = two_classes(
        "2Gbps",
        "2Gbps",
        scheduler="drr",
        priorities=[{"alpha": 0.5, "weight": 3}, {"alpha": 2.0, "weight": 1}],
    )
    p0, p1 = down_classes(res)
    share = p0["departure_bytes"] / (p0["departure_bytes"] + p1["departure_bytes"])
    assert share == pytest.approx(0.75, abs=0.01)
    # alpha_i B / (1 + sum alpha), Choudhury and Hahne section III
    for c, alpha in [(p0, 0.5), (p1, 2.0)]:
        assert c["avg_packets"] == pytest.approx(alpha * 400 / 3.5, abs=1.0)


def test_priority_settings_are_refused_with_their_field():
    with pytest.raises(ScenarioError, match=r"switches\.sw\.priorities\[0\]\.weight"):
        two_classes("1Gbps", "1Gbps", alpha=1.0, priorities=[{"weight": 0}, {}])
    with pytest.raises(ScenarioError, match=r"switches\.sw\.scheduler"):
        two_classes("1Gbps", "1Gbps", alpha=1.0, scheduler="drr")


def test_the_example_keeps_the_requests_ahead_of_the_bulk_queue():
    path = ROOT / "examples/datacenter/priority_classes.toml"
    strict = bufferlab.load(path).run()
    rpc = next(f for f in strict.raw["flows"] if f["name"] == "rpc")
    assert rpc["lost_packets"] == 0
    # 10 us of propagation; behind the bulk queue (about 60 packets at 10 Gbit/s) it is 34 us
    assert rpc["delay_p99_s"] < 12e-6
