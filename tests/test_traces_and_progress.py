"""ns-2 traces and pcap from the CLI and the Python API; progress callbacks and Ctrl-C giving
partial results, clearly marked."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import bufferlab

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dumbbell_udp.toml"


def test_cli_writes_filtered_ns2_trace_and_pcap(tmp_path: Path) -> None:
    trace = tmp_path / "out.tr"
    pcap = tmp_path / "pcap"
    cmd = [sys.executable, "-m", "bufferlab", "run", str(EXAMPLE), "--json"]
    cmd += ["--trace-ns2", str(trace), "--trace-link", "bottleneck", "--trace-events", "d"]
    cmd += ["--pcap", str(pcap), "--pcap-link", "bottleneck"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    report = json.loads(out.stdout)
    lines = trace.read_text().splitlines()
    drops = next(q for q in report["queues"] if q["link"] == "bottleneck" and q["from"] == "r0")
    assert len(lines) == drops["drops"] > 0
    assert all(line.split()[0] == "d" and len(line.split()) == 12 for line in lines)
    assert sorted(p.name for p in pcap.iterdir()) == [
        "bottleneck.pcap",  # both directions in time order
        "bottleneck_r0-r1.pcap",
        "bottleneck_r1-r0.pcap",
    ]


def test_bad_trace_filter_is_an_answer(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "bufferlab", "run", str(EXAMPLE)]
    cmd += ["--trace-ns2", str(tmp_path / "t.tr"), "--trace-link", "nowhere"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert 'no link is named "nowhere"' in out.stderr


def test_progress_callback_can_stop_a_run_with_partial_results() -> None:
    calls: list[float] = []

    def progress(sim_s: float, end_s: float, events: int, wall_s: float) -> bool:
        calls.append(sim_s)
        assert end_s == 20.0 and events > 0 and wall_s >= 0
        return sim_s < 4.0

    res = bufferlab.run(EXAMPLE, progress=progress)
    assert res.partial
    assert 4.0 <= res.raw["sim_time_s"] < 4.1
    assert calls == sorted(calls)
    full = bufferlab.run(EXAMPLE)
    assert not full.partial and full.raw["sim_time_s"] == 20.0


def test_ctrl_c_returns_partial_results(tmp_path: Path) -> None:
    long = tmp_path / "long.toml"
    long.write_text(EXAMPLE.read_text().replace('duration = "20s"', 'duration = "100000s"'))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bufferlab", "run", str(long), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    report = json.loads(stdout)
    assert report["partial"] is True
    assert 0 < report["sim_time_s"] < 100000
    assert "PARTIAL" in stderr
