"""The policer (`kind = "police"`, docs/models/policer.md) from the Python builder: its drops
are reported under `policed`, its colour counts as the queue's classes, and a bad value is a
ScenarioError naming the field."""

from __future__ import annotations

import pytest

import bufferlab
from bufferlab import ScenarioError


def _built(queue: dict[str, object]) -> bufferlab.ScenarioBuilder:
    b = bufferlab.dumbbell(
        pairs=1,
        duration="6s",
        warmup="1s",
        access={"rate": "1Gbps", "delay": "1ms"},
        bottleneck={"rate": "100Mbps", "delay": "10ms", "queue": queue},
    )
    return b.flow("f0", "s0", "d0", app={"kind": "cbr", "rate": "8Mbps", "packet_size": "1000B"})


def test_the_builder_polices_to_the_rate() -> None:
    res = _built({"kind": "police", "rate": "2Mbps", "burst": "10KB"}).run()
    q = res.queues.set_index(["link", "from"]).loc[("bottleneck", "r0")]
    assert q["discipline"] == "police"
    # 5 s measured at 2 Mbit/s of 1000-byte packets: 1250 leave, the other 3750 are policed
    assert abs(int(q["departures"]) - 1250) <= 1
    drops = res.queue_drops.set_index(["link", "reason"])["packets"]
    assert drops[("bottleneck", "policed")] == q["drops"] == 3750
    raw = next(r for r in res.raw["queues"] if r["link"] == "bottleneck" and r["from"] == "r0")
    assert [c["name"] for c in raw["classes"]] == ["green", "yellow", "red"]
    assert [c["arrivals"] for c in raw["classes"]] == [q["departures"], 0, q["drops"]]


def test_a_bad_value_names_the_field() -> None:
    bad = {"kind": "police", "rate": "2Mbps", "burst": "10KB", "peak_rate": "4Mbps"}
    with pytest.raises(ScenarioError, match=r"links\.bottleneck\.queue\.peak_burst"):
        _built(bad).run()
