"""Links whose capacity varies (docs/models/trace_links.md): a Mahimahi trace named by a
scenario file is read from the file's folder, a bad trace or a path leading out of the folder
is refused in one line naming the field (exit 2), the Python builder takes a trace and a rate
schedule, and the shipped traces are what their generator writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import bufferlab
from bufferlab import ScenarioError
from conftest import ROOT, run_cli

SCENARIO = """
name = "trace-link"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "1Gbps"
delay = "1ms"
[links.bottleneck]
{capacity}
delay = "10ms"
queue = {{ kind = "droptail", limit = "100p" }}
[[flows]]
name = "f0"
src = "s0"
dst = "d0"
app = {{ kind = "cbr", rate = "20Mbps", packet_size = "1500B" }}
"""


def _write(folder: Path, capacity: str) -> Path:
    p = folder / "s.toml"
    p.write_text(SCENARIO.format(capacity=capacity))
    return p


def test_a_trace_is_read_beside_the_scenario_and_sets_the_capacity(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    # two opportunities a millisecond: 24.064 Mbit/s of raw capacity, 1500-byte packets at 24
    (tmp_path / "traces" / "two.trace").write_text("1\n1\n")
    res = bufferlab.load(_write(tmp_path, 'trace = "traces/two.trace"')).run()
    link = res.links.set_index(["link", "from"]).loc[("bottleneck", "r0")]
    assert link["rate_bps"] == 24_064_000
    # 20 Mbit/s offered, below the capacity: all delivered after the first millisecond
    f = res.flows.set_index("name").loc["f0"]
    assert f["lost_packets"] == 0
    assert f["rx_bytes"] >= 1500 * (2000 * 20 // 12 - 30)


def test_refusals_are_one_line_naming_the_field(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "outside.trace").write_text("1\n")
    (inner / "bad.trace").write_text("1\n3\n2\n")
    for capacity, words in [
        ('trace = "../outside.trace"', ["links.bottleneck.trace", "outside the scenario's folder"]),
        ('trace = "bad.trace"', ["links.bottleneck.trace", "line 3", "must not decrease"]),
        ('rate_schedule = [["1s", "1Mbps"]]', ["links.bottleneck.rate_schedule[0]", "0s"]),
    ]:
        path = _write(inner, capacity)
        r = run_cli("run", str(path))
        assert r.code == 2, r
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        for w in words:
            assert w in lines[0], lines[0]


def _built(bottleneck: dict[str, object]) -> bufferlab.ScenarioBuilder:
    b = bufferlab.dumbbell(
        pairs=1,
        duration="1s",
        access={"rate": "1Gbps", "delay": "1ms"},
        bottleneck={"delay": "10ms", **bottleneck},
    )
    return b.flow("f0", "s0", "d0", app={"kind": "cbr", "rate": "20Mbps", "packet_size": "1500B"})


def test_the_builder_takes_a_trace_and_a_schedule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a scenario without a file reads from the working folder
    Path("one.trace").write_text("1\n")
    res = _built({"trace": "one.trace"}).run()
    link = res.links.set_index(["link", "from"]).loc[("bottleneck", "r0")]
    assert link["rate_bps"] == 12_032_000
    # one 1500-byte packet a millisecond leaves the backlogged link
    assert abs(int(link["tx_packets"]) - 999) <= 1
    res = _built({"rate_schedule": [["0s", "6Mbps"], ["0.5s", "2Mbps"]]}).run()
    link = res.links.set_index(["link", "from"]).loc[("bottleneck", "r0")]
    assert link["rate_bps"] == 4_000_000
    with pytest.raises(ScenarioError, match=r"links\.bottleneck\.trace"):
        _built({"trace": "../x.trace"}).run()


def test_the_shipped_traces_are_what_their_generator_writes() -> None:
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "traces" / "make_traces.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_example_runs() -> None:
    res = bufferlab.load(ROOT / "examples" / "cellular_trace.toml").run()
    link = res.links.set_index(["link", "from"]).loc[("bottleneck", "r0")]
    assert link["rate_bps"] == 9_101_406
    assert res.flows.set_index("name").loc["download", "goodput_bps"] > 5e6
