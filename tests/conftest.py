"""Shared fixtures: the repository's example, small scenarios, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "dumbbell_udp.toml"

# A small Poisson scenario over a 1-pair dumbbell: fast, random, with drops at the bottleneck.
POISSON = """\
name = "poisson-small"
duration = "3s"
seed = 7

[topology]
kind = "dumbbell"
pairs = 1

[links.access]
rate = "100Mbps"
delay = "1ms"

[links.bottleneck]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "20p" }

[[flows]]
name = "p"
src = "s0"
dst = "d0"
app = { kind = "poisson", rate = "9Mbps", packet_size = "1000B" }

[monitor]
queue_interval = "10ms"
"""

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


def run_cli(*args: str, cwd: Path = ROOT) -> CliResult:
    """Runs `python -m bufferlab ARGS` in a subprocess, exactly as a user would."""
    env = dict(os.environ)
    env.pop("BUFFERLAB_DEBUG", None)
    env["COLUMNS"] = "200"
    p = subprocess.run(
        [sys.executable, "-m", "bufferlab", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return CliResult(p.returncode, p.stdout, p.stderr)


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
