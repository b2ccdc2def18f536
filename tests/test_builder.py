"""Scenarios built in Python (bufferlab.dumbbell / chain / custom) are scenario files by another
route: the same runs, the same checks and the same error messages as the TOML text."""

from __future__ import annotations

import pytest

import bufferlab
from bufferlab import ScenarioError
from conftest import ROOT


def _dumbbell_udp() -> bufferlab.ScenarioBuilder:
    """examples/dumbbell_udp.toml, written with the builder."""
    b = bufferlab.dumbbell(
        pairs=3,
        duration="20s",
        sender_delays=["1ms", "5ms", "10ms"],
        access={"rate": "100Mbps", "delay": "1ms"},
        bottleneck={
            "rate": "10Mbps",
            "delay": "20ms",
            "queue": {"kind": "droptail", "limit": "50p"},
        },
        name="dumbbell-udp",
        seed=1,
    )
    b.flow("cbr", "s0", "d0", app={"kind": "cbr", "rate": "4Mbps", "packet_size": "1000B"})
    b.flow(
        "poisson",
        "s1",
        "d1",
        start="1s",
        app={
            "kind": "poisson",
            "rate": "4Mbps",
            "packet_size": "1000B",
            "size_distribution": "exponential",
        },
    )
    exp = {"kind": "exponential", "mean": "500ms"}
    b.flow(
        "onoff",
        "s2",
        "d2",
        start="2s",
        stop="18s",
        app={
            "kind": "onoff",
            "rate": "6Mbps",
            "packet_size": "1500B",
            "on_time": exp,
            "off_time": exp,
        },
    )
    return b.monitor(queue_interval="10ms")


def test_the_builder_gives_the_example_file_run_for_run() -> None:
    built = _dumbbell_udp().run()
    from_file = bufferlab.run(ROOT / "examples" / "dumbbell_udp.toml")
    assert built.flows.equals(from_file.flows)
    assert built.queues.equals(from_file.queues)
    assert built.queue_series.equals(from_file.queue_series)


def test_a_builder_error_is_the_files_error() -> None:
    b = _dumbbell_udp().link("bottleneck", queue={"kind": "red", "max_p": 7.0})
    with pytest.raises(ScenarioError) as built:
        b.scenario().validate()
    text = bufferlab.Scenario.from_dict(b.to_dict()).text
    with pytest.raises(ScenarioError) as from_text:
        bufferlab.Scenario(text=text, source="<builder>").validate()
    assert str(built.value) == str(from_text.value)
    assert "max_p" in str(built.value)


def test_chain_and_custom_topologies() -> None:
    hop = {"rate": "10Mbps", "delay": "5ms"}
    res = (
        bufferlab.chain(hops=3, duration="5s", hop=hop)
        .flow("f", "n0", "n3", app={"kind": "bulk"})
        .run(seed=1)
    )
    assert 1e6 < res.flows.loc[0, "goodput_bps"] < 10e6  # within the hops' 10 Mbit/s
    # the RTT is the three hops' delay, both ways
    resolved = bufferlab.chain(hops=3, duration="5s", hop=hop).flow(
        "f", "n0", "n3", app={"kind": "bulk"}
    )
    flows = resolved.scenario().resolve()["flows"]
    assert flows[0]["rtt_propagation_s"] == pytest.approx(0.030, abs=2e-3)

    c = bufferlab.custom(nodes=["a", "r", "b"], duration="5s")
    c.link("ar", between=("a", "r"), rate="100Mbps", delay="1ms")
    c.link("rb", between=("r", "b"), rate="5Mbps", delay="10ms", queue={"kind": "codel"})
    c.flow("f", "a", "b", app={"kind": "bulk"})
    res = c.run(seed=1)
    assert 4e6 < res.flows.loc[0, "goodput_bps"] <= 5e6
    q = res.queues.query("link == 'rb' and arrivals > 0").iloc[0]
    assert q["discipline"] == "codel"


def test_parking_lot_builds_the_example_file() -> None:
    """The builder and examples/parking_lot.toml describe the same network: same report."""
    b = bufferlab.parking_lot(
        hops=3,
        duration="60s",
        hop={"rate": "10Mbps", "delay": "10ms", "queue": {"kind": "droptail", "limit": "100p"}},
        access={"rate": "100Mbps", "delay": "1ms"},
    )
    tcp = {"cc": "reno", "window": "1000p"}
    b.flow("long", "ls", "ld", app={"kind": "bulk"}, tcp=tcp)
    for i in range(3):
        b.flow(
            f"cross{i}",
            f"cs{i}",
            f"cd{i}",
            start=f"{37 * (i + 1)}ms",
            app={"kind": "bulk"},
            tcp=tcp,
        )
    built = b.run(seed=1)
    filed = bufferlab.load(ROOT / "examples" / "parking_lot.toml").run(seed=1)
    assert built.flows.equals(filed.flows)
    assert built.queues.equals(filed.queues)
    # the long flow crosses all three hops and gets less than any one-hop flow (DropTail)
    g = built.flows.set_index("name")["goodput_bps"]
    assert g["long"] < min(g["cross0"], g["cross1"], g["cross2"])


def test_unknown_node_names_the_field() -> None:
    c = bufferlab.custom(nodes=["a", "b"], duration="1s")
    c.link("ab", between=("a", "c"), rate="1Mbps", delay="1ms")
    with pytest.raises(ScenarioError, match=r"links\.ab"):
        c.scenario().validate()
