"""A scenario file is data: a Python class it names (a queue discipline, a congestion
controller) is imported, and so its code run, only when the caller says to trust it
(`--allow-python`, `allow_python=True`). Before, `class = "os:system"` with
`params = { command = "..." }` ran a shell command from `bufferlab run` and even from
`bufferlab validate`, and a `file.py:Class` beside the scenario ran its module's code."""

from __future__ import annotations

from pathlib import Path

import pytest

import bufferlab
from bufferlab import ScenarioError
from conftest import dumbbell_toml, run_cli

CBR = {"name": "cbr", "src": "s0", "dst": "d0", "app": {"kind": "cbr", "rate": "100kbps"}}


def _scenario(tmp: Path, queue: dict) -> Path:
    path = tmp / "s.toml"
    path.write_text(dumbbell_toml(name="x", duration="1s", queue=queue, flows=[CBR]))
    return path


def _shell_payload(tmp: Path) -> tuple[Path, Path]:
    marker = tmp / "pwned"
    queue = {"kind": "python", "class": "os:system", "params": {"command": f"touch {marker}"}}
    return _scenario(tmp, queue), marker


def _module_payload(tmp: Path) -> tuple[Path, Path]:
    """A queue class in a file beside the scenario whose module writes a file when imported."""
    marker = tmp / "imported"
    (tmp / "q.py").write_text(
        "import pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "from bufferlab import QueueDisc\n"
        "class Q(QueueDisc):\n"
        "    def enqueue(self, pkt, ctx):\n"
        "        return 'accept'\n"
        "    def dequeue(self, ctx):\n"
        "        return None\n"
    )
    return _scenario(tmp, {"kind": "python", "class": "q.py:Q"}), marker


@pytest.mark.parametrize("payload", [_shell_payload, _module_payload])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_the_cli_refuses_a_scenario_naming_python_unless_allowed(
    tmp_path: Path, payload, command: str
) -> None:
    path, marker = payload(tmp_path)
    r = run_cli(command, str(path), cwd=tmp_path)
    assert r.code == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: ")
    assert "links.bottleneck.queue.class" in r.stderr and "--allow-python" in r.stderr
    assert not marker.exists(), "the scenario's Python ran without --allow-python"


def test_the_library_refuses_it_unless_allowed(tmp_path: Path) -> None:
    path, marker = _shell_payload(tmp_path)
    with pytest.raises(ScenarioError, match="allow_python=True"):
        bufferlab.run(path)
    with pytest.raises(ScenarioError, match="allow_python=True"):
        bufferlab.load(path).validate()
    with pytest.raises(ScenarioError, match="allow_python=True"):
        bufferlab.load(path).resolve()
    assert not marker.exists()


def test_a_sweep_refuses_it_unless_allowed(tmp_path: Path) -> None:
    _, marker = _module_payload(tmp_path)
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        "[sweep]\nname = 'py'\nbase = 's.toml'\nreplications = 1\n"
        "[grid]\n'links.bottleneck.rate' = ['1Mbps']\n"
    )
    r = run_cli("sweep", str(sweep), "--db", str(tmp_path / "r.duckdb"), "--quiet", cwd=tmp_path)
    assert "failed" in r.stdout + r.stderr
    assert not marker.exists()


def test_with_allow_python_the_class_runs(tmp_path: Path) -> None:
    path, marker = _module_payload(tmp_path)
    r = run_cli("run", str(path), "--allow-python", "--json", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert marker.read_text() == "ran"
