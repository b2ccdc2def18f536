#!/usr/bin/env python3
"""Start-up time of the `bufferlab` command (issue #19: `bufferlab run` of a 1-packet scenario
under 100 ms), measured as the issue asks: `/usr/bin/time -f %e` around the whole process.

Configurations, run in turn (one of each per round, so that a change in the machine's load
hits all of them alike), medians over the rounds:

* ``python``: ``python -c pass``, the interpreter alone (the floor);
* ``fast``: ``bufferlab run FILE --json``, the console script (its fast path);
* ``typer``: the same command through the typer app alone (``bufferlab.cli.typer_main``), the
  way every command went before the fast path;
* ``baseline`` (with ``--baseline-rev REV``): ``bufferlab run FILE --json`` with the Python
  package of git revision REV (``git archive``) in front of the installed one, on the same
  compiled core: the Python side before and after, side by side;
* ``ns2 script``: ``bufferlab run examples/ns2/dynamic_apps.tcl`` (issue #20: an ns-2 script
  faster than ns-2 runs it), and ``ns-2``: ``ns`` on the same script, when ``ns`` is installed.

    python3 bench/cli_startup.py                          # `make bench` runs this
    python3 bench/cli_startup.py --rounds 7 --baseline-rev a5d934d

Standard library only. FILE is one millisecond of one CBR packet over a 1-pair dumbbell, so
the simulation itself takes well under a millisecond.

Bytecode: by default the commands run as they do for a user, Python's bytecode caches
(``__pycache__``) written by a warm-up run and read afterwards, whatever
``PYTHONDONTWRITEBYTECODE`` says. ``--no-bytecode-cache`` measures every start compiling the
package's sources (its ``__pycache__`` folders deleted, ``PYTHONDONTWRITEBYTECODE=1``), as in a
shell that sets that variable on an editable install.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / "bin"

ONE_PACKET = """\
name = "one-packet"
description = "One CBR packet in one simulated millisecond: the command's own cost"
duration = "1ms"
seed = 1

[topology]
kind = "dumbbell"
pairs = 1

[links.access]
rate = "100Mbps"
delay = "1ms"

[links.bottleneck]
rate = "10Mbps"
delay = "1ms"

[[flows]]
name = "cbr"
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "1Mbps", packet_size = "1000B" }
"""

TYPER_MAIN = "import sys; from bufferlab.cli import typer_main; typer_main(sys.argv[1:])"


def timed(cmd: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """(seconds by GNU time's %e, seconds by this process's clock) of one run of ``cmd``."""
    with tempfile.NamedTemporaryFile("r") as rep:
        t0 = time.perf_counter()
        p = subprocess.run(
            ["/usr/bin/time", "-o", rep.name, "-f", "%e", *cmd],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"error: {' '.join(cmd)} exited with {p.returncode}: {p.stderr.strip()}")
        return float(rep.read().split()[-1]), wall


def baseline_package(rev: str, into: Path) -> Path:
    """The Python package of ``rev`` under ``into``, with the installed compiled core."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "python/bufferlab"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    pkg = into / "python"
    for so in (ROOT / "python" / "bufferlab").glob("_core*.so"):
        shutil.copy2(so, pkg / "bufferlab" / so.name)
    return pkg


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="runs of each configuration (7)")
    ap.add_argument("--baseline-rev", help="also time the Python package of this git revision")
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="compile bufferlab's sources at every start (PYTHONDONTWRITEBYTECODE=1)",
    )
    a = ap.parse_args()
    python, bufferlab = VENV_BIN / "python", VENV_BIN / "bufferlab"
    if not bufferlab.exists():
        sys.exit("error: .venv/bin/bufferlab is missing; run `make build` first")
    if not Path("/usr/bin/time").exists():
        sys.exit("error: /usr/bin/time (GNU time) is missing; apt-get install time")
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / "one_packet.toml"
        scenario.write_text(ONE_PACKET)
        drop = ("PYTHONPATH", "BUFFERLAB_DEBUG", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        if a.no_bytecode_cache:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
            for cache in (ROOT / "python" / "bufferlab").rglob("__pycache__"):
                shutil.rmtree(cache)
        args = ["run", str(scenario), "--json"]
        configs: dict[str, tuple[list[str], dict[str, str]]] = {
            "python": ([str(python), "-c", "pass"], env),
            "fast": ([str(bufferlab), *args], env),
            "typer": ([str(python), "-c", TYPER_MAIN, *args], env),
        }
        if a.baseline_rev:
            pkg = baseline_package(a.baseline_rev, Path(tmp))
            configs["baseline"] = ([str(bufferlab), *args], {**env, "PYTHONPATH": str(pkg)})
        script = ROOT / "examples" / "ns2" / "dynamic_apps.tcl"  # prints, writes no file
        configs["ns2 script"] = ([str(bufferlab), "run", str(script)], env)
        if shutil.which("ns"):
            configs["ns-2"] = (["ns", str(script)], env)
        for cmd, e in configs.values():  # warm the file cache and the bytecode caches
            timed(cmd, e, tmp)
        load0 = os.getloadavg()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        for _ in range(a.rounds):
            for name, (cmd, e) in configs.items():
                times[name].append(timed(cmd, e, tmp))
        load1 = os.getloadavg()
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    cache = "no bytecode cache" if a.no_bytecode_cache else "bytecode caches"
    print(
        f"bufferlab run <1-packet scenario> --json (and ns2 script: examples/ns2/"
        f"dynamic_apps.tcl): {a.rounds} rounds, {cache}, {stamp}, "
        f"commit {rev}, {os.cpu_count()} cores ({cpu_model()}), load average {load0[0]:.2f} "
        f"before and {load1[0]:.2f} after"
    )
    print("\n| configuration | median s (time %e) | all runs (time %e) | median s (perf_counter) |")
    print("|---|---|---|---|")
    for name, runs in times.items():
        gnu = [g for g, _ in runs]
        own = [w for _, w in runs]
        every = ", ".join(f"{g:.2f}" for g in gnu)
        print(f"| {name} | {statistics.median(gnu):.2f} | {every} | {statistics.median(own):.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
