"""COBALT (`kind = "cobalt"`, docs/models/cobalt.md) from the Python builder: an unresponsive
flow into a short buffer brings BLUE in (drops under `blue`, beside CoDel's under `codel`); the
linux preset marks an ECN-capable TCP flow instead of dropping it and holds its sojourn near
target; a knob a preset does not have is a ScenarioError naming the field."""

from __future__ import annotations

from pathlib import Path

import pytest

import bufferlab
from bufferlab import ScenarioError


def _dumbbell(queue: dict[str, object]) -> bufferlab.ScenarioBuilder:
    return bufferlab.dumbbell(
        pairs=1,
        duration="8s",
        warmup="2s",
        access={"rate": "1Gbps", "delay": "1ms"},
        bottleneck={"rate": "10Mbps", "delay": "10ms", "queue": queue},
    )


def _bottleneck(res: bufferlab.Results) -> dict[str, object]:
    return next(r for r in res.raw["queues"] if r["link"] == "bottleneck" and r["from"] == "r0")


def test_an_unresponsive_flow_brings_blue_in() -> None:
    b = _dumbbell({"kind": "cobalt", "preset": "ns3", "limit": "100p"})
    b.flow("cbr", "s0", "d0", app={"kind": "cbr", "rate": "15Mbps", "packet_size": "1000B"})
    q = _bottleneck(b.run())
    assert q["discipline"] == "cobalt"
    by = q["drops_by_reason"]
    # 6 s measured: 15 Mbit/s offered, 10 Mbit/s served, so about a third is dropped
    offered = 6 * 15e6 / 8000
    assert abs(q["drops"] - offered / 3) < 0.05 * offered
    assert by["blue"] > by.get("queue_full", 0)
    assert by["blue"] > 0 and by["codel"] > 0
    assert q["avg_packets"] < 100


def test_linux_marks_ecn_capable_tcp_and_holds_the_delay() -> None:
    b = _dumbbell({"kind": "cobalt"})
    b.flow(
        "tcp", "s0", "d0", app={"kind": "bulk"}, tcp={"preset": "linux", "cc": "cubic", "ecn": True}
    )
    res = b.run()
    q = _bottleneck(res)
    assert q["marks"] > 5
    assert q.get("drops_by_reason", {}).get("codel", 0) == 0
    # sch_cake at 10 Mbit/s keeps target 5 ms: the mean sojourn stays within a few targets
    assert q["sojourn_mean_s"] < 0.02
    assert res.raw["flows"][0]["goodput_bps"] > 8e6


def test_a_knob_the_preset_lacks_names_the_field() -> None:
    b = _dumbbell({"kind": "cobalt", "ce_threshold": "1ms"})
    b.flow("cbr", "s0", "d0", app={"kind": "cbr", "rate": "1Mbps"})
    with pytest.raises(ScenarioError, match=r"links\.bottleneck\.queue\.ce_threshold"):
        b.run()


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("kind", "voice_delay"),
    [("droptail", (0.3, 2.0)), ("fq_codel", (0.0, 0.1)), ("cobalt", (0.0, 0.1))],
)
def test_the_home_link_example(tmp_path: Path, kind: str, voice_delay: tuple[float, float]) -> None:
    """examples/home_link.toml: the bloated modem buffer delays the voice flow by about two
    thirds of a second (646 ms mean) and starves the download of ACKs (2.62 of the downlink's
    20 Mbit/s); FQ-CoDel and COBALT in the modem bring the delay under 100 ms (22 and 44 ms) and
    the download near the downlink's rate (19.27 and 19.13 Mbit/s; docs/models/cobalt.md)."""
    text = (ROOT / "examples" / "home_link.toml").read_text()
    up = 'queue = { kind = "droptail", limit = "256p" }'
    assert up in text
    f = tmp_path / "home.toml"
    f.write_text(text.replace(up, f'queue = {{ kind = "{kind}", limit = "256p" }}', 1))
    flows = bufferlab.load(f).run().flows.set_index("name")
    lo, hi = voice_delay
    assert lo < flows.loc["voice", "delay_mean_s"] < hi
    download = flows.loc["download", "goodput_bps"]
    assert download < 8e6 if kind == "droptail" else download > 15e6
