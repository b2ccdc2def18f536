"""Two builds of the extension side by side: the same reports, instructions and time.

    .venv/bin/python bench/pgo_compare.py --a DIR --b DIR [--rounds 7] [--no-cachegrind]

Each DIR holds a `bufferlab` package with its compiled `_core` (an unpacked wheel, e.g.
`unzip dist/bufferlab-*.whl -d DIR`, or `python` for the development build). For the
profile-guided wheel of `make wheel` against the plain build (docs/performance.md,
"Profile-guided optimisation"), it prints:

* each scenario of SAME's report digest (SHA-256 of the report with `wall_s` zeroed) under
  both builds, and whether they agree;
* with valgrind: the instructions of 10 s of c_ns2 minus those of a 1 ms run (the
  interpreter's start-up and the scenario's set-up), per build (cachegrind, deterministic);
* wall seconds of 100 s of c_ns2 through each build, in turn for --rounds rounds, medians.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
C_NS2 = ROOT / "bench" / "scenarios" / "c_ns2.toml"
SAME = [
    ("bench/scenarios/c_ns2.toml", ["duration=10s"]),
    ("bench/scenarios/b_vegas_drr.toml", []),
    ("examples/dumbbell_udp.toml", []),
    ("examples/l4s_dualpi2.toml", []),
    ("examples/bbr_vs_cubic.toml", []),
    ("examples/parking_lot.toml", []),
]

DIGEST = """
import hashlib, json, sys
from pathlib import Path
from bufferlab import _core
for arg in sys.argv[1:]:
    f, *ov = arg.split(";")
    r = json.loads(_core.run(Path(f).read_text(), source=f, overrides=[o for o in ov if o]))
    r["wall_s"] = 0
    print(hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()[:16])
"""

TIMED = """
import sys, time
from pathlib import Path
from bufferlab import _core
text = Path(sys.argv[1]).read_text()
t0 = time.perf_counter()
_core.run(text, source=sys.argv[1], overrides=sys.argv[2:])
print(time.perf_counter() - t0)
"""


def py(site: Path, code: str, *args: str, wrap: list[str] | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(site)}
    cmd = [*(wrap or []), sys.executable, "-c", code, *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout


def instructions(site: Path, duration: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cg.out"
        wrap = ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}"]
        py(site, TIMED, str(C_NS2), f"duration={duration}", wrap=wrap)
        m = re.search(r"^summary: (\d+)", out.read_text(), re.M)
        assert m, "no cachegrind summary"
        return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", type=Path, required=True, help="first build's package folder")
    ap.add_argument("--b", type=Path, required=True, help="second build's package folder")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--no-cachegrind", action="store_true")
    args = ap.parse_args()
    sites = {"a": args.a.resolve(), "b": args.b.resolve()}
    print(f"a = {sites['a']}\nb = {sites['b']}\n")

    specs = [";".join([str(ROOT / f), *ov]) for f, ov in SAME]
    digests = {k: py(s, DIGEST, *specs).split() for k, s in sites.items()}
    print("| scenario | report digest a | report digest b | same |\n|---|---|---|---|")
    for (f, ov), da, db in zip(SAME, digests["a"], digests["b"], strict=True):
        print(f"| {f} {' '.join(ov)} | {da} | {db} | {'yes' if da == db else 'NO'} |")

    if not args.no_cachegrind and shutil.which("valgrind"):
        print("\n| build | instructions, 10 s of c_ns2 minus 1 ms |\n|---|---|")
        counts = {}
        for k, s in sites.items():
            counts[k] = instructions(s, "10s") - instructions(s, "1ms")
            print(f"| {k} | {counts[k] / 1e6:.1f} M |")
        print(f"\nb / a: {counts['b'] / counts['a']:.3f}")

    times: dict[str, list[float]] = {"a": [], "b": []}
    for _ in range(args.rounds):
        for k, s in sites.items():
            times[k].append(float(py(s, TIMED, str(C_NS2))))
    print("\n| build | 100 s of c_ns2, median wall s | all rounds |\n|---|---|---|")
    for k, ts in times.items():
        print(f"| {k} | {statistics.median(ts):.3f} | {', '.join(f'{t:.3f}' for t in ts)} |")
    ratio = statistics.median(times["a"]) / statistics.median(times["b"])
    print(f"\na / b (medians): {ratio:.2f}x; load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
