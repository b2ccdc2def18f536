"""The wheel path of the README: `make wheel` builds an abi3 wheel that installs with pip into a
fresh virtual environment on a PATH without cargo or rustc, and both the command line and the
Python API work from it (not from this checkout's editable install)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    # The script `make wheel` runs, into a directory of the test's own, without its
    # profile-guided steps (three builds; the wheel is the same package, only slower).
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "pgo_wheel.py"), "--no-pgo", "--out", str(dist)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wheels = list(dist.glob("bufferlab-*.whl"))
    assert len(wheels) == 1, wheels
    assert "-abi3-" in wheels[0].name, wheels[0].name  # one wheel for every Python >= 3.11
    venv = tmp_path_factory.mktemp("venv") / "v"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheels[0])],
        check=True,
        capture_output=True,
    )
    return venv


def _env_without_rust(venv: Path) -> dict[str, str]:
    path = os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    for tool in ("cargo", "rustc"):
        assert shutil.which(tool, path=path) is None, f"{tool} is on the test's PATH"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "VIRTUAL"))}
    env.update(PATH=path, HOME=env.get("HOME", "/tmp"), COLUMNS="80")
    env.pop("PYTHONPATH", None)
    return env


def test_the_wheel_runs_an_example_without_rust(wheel_venv: Path, tmp_path: Path) -> None:
    env = _env_without_rust(wheel_venv)
    r = subprocess.run(
        ["bufferlab", "run", str(ROOT / "examples" / "dumbbell_udp.toml")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert "bottleneck" in r.stdout and "cbr" in r.stdout
    bad = subprocess.run(
        ["bufferlab", "run", str(ROOT / "examples" / "dumbbell_udp.toml"), "--set", "duration=-1s"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr


def test_the_wheel_serves_the_python_api(wheel_venv: Path, tmp_path: Path) -> None:
    code = (
        "import bufferlab, pathlib, sys\n"
        f"assert pathlib.Path(bufferlab.__file__).is_relative_to({str(wheel_venv)!r}), "
        "bufferlab.__file__\n"
        f"res = bufferlab.run({str(ROOT / 'examples' / 'dumbbell_udp.toml')!r}, seed=2)\n"
        "print(len(res.flows), res.fairness['jain'] > 0)\n"
    )
    r = subprocess.run(
        [str(wheel_venv / "bin" / "python"), "-c", code],
        cwd=tmp_path,
        env=_env_without_rust(wheel_venv),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["3", "True"]


def test_the_release_workflow_builds_every_platform_with_maturin() -> None:
    """The release workflow cannot run here (no network in CI); at least it parses and builds
    abi3 wheels for Linux, macOS and Windows with maturin's action, with the same profile as
    `make wheel`."""
    yaml = pytest.importorskip("yaml")
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    job = wf["jobs"]["wheels"]
    oses = {m["os"].split("-")[0] for m in job["strategy"]["matrix"]["include"]}
    assert oses == {"ubuntu", "macos", "windows"}
    steps = {s.get("uses", "").split("@")[0]: s for s in job["steps"]}
    assert "--profile fast" in steps["PyO3/maturin-action"]["with"]["args"]
    assert "make wheel" in (ROOT / "README.md").read_text()
