"""bufferlab._core.Session: the engine driven step by step (for the ns-2 script runner). Stepping
changes nothing in the results, and the ns-2 variables read between steps are the run's own."""

from __future__ import annotations

import json

import pytest

import bufferlab
from bufferlab import ScenarioError, _core
from conftest import ROOT

TEXT = (ROOT / "examples" / "dumbbell_tcp.toml").read_text()


def test_stepping_gives_the_run_of_one_call() -> None:
    s = _core.Session(TEXT)
    t = 0.0
    while t < s.end():
        s.run_until(t)
        assert s.now() == pytest.approx(t)
        t += 0.7
    stepped = json.loads(s.finish())
    whole = bufferlab.run(ROOT / "examples" / "dumbbell_tcp.toml").flows
    got = [f["goodput_bps"] for f in stepped["flows"]]
    assert got == list(whole["goodput_bps"])
    assert [f["lost_packets"] for f in stepped["flows"]] == list(whole["lost_packets"])


def test_ns2_variables_between_steps() -> None:
    s = _core.Session(TEXT, seed=3)
    acks, received = [], []
    for t in (5.0, 10.0, 20.0):
        s.run_until(t)
        acks.append(s.probe("tcp0", "ack_"))
        received.append(s.probe("tcp0", "bytes_"))
        cwnd = s.probe("tcp0", "cwnd_")
        assert cwnd is not None and cwnd >= 1.0
    assert acks == sorted(acks) and acks[0] > 0  # segments acknowledged only grow
    assert received == sorted(received) and received[0] > 0
    # bytes_ is what the flow's counters say at that time: 20 s of a fair share of 2 Mbit/s
    assert 0.5e6 < received[-1] < 20 * 2e6 / 8
    assert s.probe("tcp0", "no_such_var_") is None
    assert s.probe("nobody", "cwnd_") is None


def test_errors_are_scenario_errors(tmp_path) -> None:
    s = _core.Session(TEXT)
    with pytest.raises(ScenarioError, match="zero or more"):
        s.run_until(-1.0)
    s.finish()
    with pytest.raises(ScenarioError, match="finished"):
        s.run_until(1.0)
    with pytest.raises(ScenarioError, match="duration"):
        _core.Session(TEXT.replace('duration = "200s"', 'duration = "-1s"'))
    trace = tmp_path / "out.tr"
    s = _core.Session(TEXT, ns2_trace=str(trace))
    s.run_until(1.0)
    s.finish()
    first = trace.read_text().splitlines()[0].split()
    assert first[0] in "+-rd" and float(first[1]) >= 0.0
