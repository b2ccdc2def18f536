"""Shared fixtures: the repository's example, small scenarios, a CLI runner, and ns-2.35 (`ns`)
for the tests that run the same script in both."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomli_w

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dumbbell_udp.toml"


def dumbbell(
    *,
    pairs: int = 1,
    access: tuple[str, str] = ("100Mbps", "1ms"),
    bottleneck: tuple[str, str] = ("10Mbps", "10ms"),
    queue: dict[str, Any] | str | None = None,
    flows: list[dict[str, Any]] = (),  # type: ignore[assignment]
    monitor: dict[str, Any] | None = None,
    **top: Any,
) -> dict[str, Any]:
    """A dumbbell scenario as a dict: ``pairs`` sender/receiver pairs, access and bottleneck
    links (rate, delay), the bottleneck's queue (a dict, or a TOML inline table as text), the
    flows and the monitor table; other keyword arguments are top-level keys (name, duration,
    seed). The one builder the Python tests share (the Rust tests have theirs in
    crates/bufferlab-core/tests/common)."""
    if isinstance(queue, str):
        queue = tomllib.loads(f"q = {queue}")["q"]
    links: dict[str, Any] = {
        "access": {"rate": access[0], "delay": access[1]},
        "bottleneck": {"rate": bottleneck[0], "delay": bottleneck[1]},
    }
    if queue is not None:
        links["bottleneck"]["queue"] = queue
    sc: dict[str, Any] = {**top, "topology": {"kind": "dumbbell", "pairs": pairs}, "links": links}
    sc["flows"] = list(flows)
    if monitor:
        sc["monitor"] = monitor
    return sc


def dumbbell_toml(**kw: Any) -> str:
    """:func:`dumbbell` written as TOML text."""
    return tomli_w.dumps(dumbbell(**kw))


# A small Poisson scenario over a 1-pair dumbbell: fast, random, with drops at the bottleneck.
POISSON = dumbbell_toml(
    name="poisson-small",
    duration="3s",
    seed=7,
    queue={"kind": "droptail", "limit": "20p"},
    flows=[
        {
            "name": "p",
            "src": "s0",
            "dst": "d0",
            "app": {"kind": "poisson", "rate": "9Mbps", "packet_size": "1000B"},
        }
    ],
    monitor={"queue_interval": "10ms"},
)

# Two nodes joined by a link and a third one on its own: a flow to it has no route.
UNROUTABLE = """\
name = "unroutable"
duration = "1s"

[topology]
kind = "custom"
nodes = ["a", "b", "c"]

[links.ab]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"

[[flows]]
name = "lost"
src = "a"
dst = "c"
app = { kind = "cbr", rate = "100kbps" }
"""


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*args: str, cwd: Path = ROOT, columns: int = 200) -> CliResult:
    """Runs `python -m bufferlab ARGS` in a subprocess, exactly as a user would, its tables
    fitted to ``columns`` (``$COLUMNS``)."""
    env = dict(os.environ)
    env.pop("BUFFERLAB_DEBUG", None)
    env["COLUMNS"] = str(columns)
    p = subprocess.run(
        [sys.executable, "-m", "bufferlab", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return CliResult(p.returncode, p.stdout, p.stderr)


# ns-2.35 (Debian's ns2; `make system-deps` installs it) for the ns-2 script comparisons.
NS = shutil.which("ns")
needs_ns = pytest.mark.skipif(NS is None, reason="ns-2 (`ns`, Debian package ns2) is not installed")

# ns-2's peer scripts live in ../shared beside the repository (CI has it; a user's clone does
# not): the tests that run them skip with this reason when it is absent.
NS2_PEERS = ROOT.parent / "shared" / "peers" / "ns2"
needs_ns2_peers = pytest.mark.skipif(
    not (NS2_PEERS / "common.tcl").exists(),
    reason=f"the ns-2 peer scripts are not beside the repository ({NS2_PEERS})",
)
# ns-2.35's own validation suites (bench/ns2suite), beside the repository as the peers are.
NS2_TESTSUITE = ROOT.parent / "shared" / "ns2-testsuite"
needs_ns2_testsuite = pytest.mark.skipif(
    not (NS2_TESTSUITE / "tcl" / "test").is_dir(),
    reason=f"ns-2's validation suites are not beside the repository ({NS2_TESTSUITE})",
)


def run_ns(
    script: Path, *args: str, cwd: Path, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    """Runs ns-2.35 on a script with its arguments in ``cwd``."""
    return subprocess.run(
        ["ns", str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def assert_prints_as_ns2(script: Path, *args: str, cwd: Path) -> str:
    """Runs the script with its arguments under ns-2.35 and under `bufferlab run` in ``cwd``:
    both succeed and print the same; returns what they print."""
    ns = run_ns(script, *args, cwd=cwd)
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(script), *args, cwd=cwd)
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout
    return r.stdout


def run_both(script: Path, *args: str, tmp_path: Path) -> tuple[Path, Path, str]:
    """Runs the script with its arguments under ns-2.35 (in ``tmp_path/ns``) and under
    `bufferlab run` (in ``tmp_path/bl``): both succeed and print the same; returns the two
    folders (ns-2's, bufferlab's) and what they print."""
    ns_dir, bl_dir = tmp_path / "ns", tmp_path / "bl"
    ns_dir.mkdir()
    bl_dir.mkdir()
    ns = run_ns(script, *args, cwd=ns_dir)
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(script), *args, cwd=bl_dir)
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout
    return ns_dir, bl_dir, r.stdout


def trace_without(text: str, knob: re.Pattern[str], tmp_path: Path) -> bytes:
    """`bufferlab run`'s out.tr for the script `text` with the lines `knob` matches taken out
    (run in ``tmp_path/p``): a test that a variable is exercised checks it differs from the
    trace with them."""
    plain = tmp_path / "plain.tcl"
    plain.write_text(knob.sub("", text))
    (tmp_path / "p").mkdir()
    assert run_cli("run", str(plain), cwd=tmp_path / "p").code == 0
    return (tmp_path / "p" / "out.tr").read_bytes()


def trace_events(path: Path) -> list[list[str]]:
    """An ns-2 trace file's lines, split into fields: every field, the flags (ns-2's
    `cong_action` is `A`) and packet ids included, which bufferlab sets as ns-2 does."""
    return [ln.split() for ln in path.open()]


def run_module(module: str) -> str:
    """What `python -m MODULE` prints, run from the repository (a generator of a doc table)."""
    out = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


# One Reno agent on n0 to a TCPSink on n1 over a 1 Mb/s, 10 ms DropTail link, an FTP attached
# (not started): the network of the one-flow ns-2 scripts of the tests.
ONE_FTP_FLOW = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
"""


def assert_script_refused(tmp_path: Path, body: str, line: int, message: str) -> None:
    """`bufferlab run` of the ns-2 script `set ns [new Simulator]` + ``body`` exits 2 with one
    line naming the script's line ``line`` and saying ``message``."""
    script = tmp_path / "bad.tcl"
    script.write_text("set ns [new Simulator]\n" + body)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: bad.tcl:{line}"), r.stderr
    assert message in err[0]


@pytest.fixture
def example() -> Path:
    return EXAMPLE


@pytest.fixture
def poisson_file(tmp_path: Path) -> Path:
    p = tmp_path / "poisson.toml"
    p.write_text(POISSON)
    return p


@pytest.fixture
def cli():
    return run_cli
