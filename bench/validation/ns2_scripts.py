"""ns-2 scripts run unchanged: what each prints and writes under ns-2.35 and `bufferlab run`.

    .venv/bin/python -m bench.validation.ns2_scripts [--bufferlab .venv/bin/bufferlab]

For every script of examples/ns2 (with the arguments below), runs `ns SCRIPT ARGS` and
`bufferlab run SCRIPT ARGS`, each in a folder of its own, and compares what they print and
every file they write, line by line: the Markdown table of docs/validation.md ("ns-2 scripts
run unchanged"). A line counts as the same when it is equal as text. Wall times are of the
whole process (GNU time is not needed: `time.perf_counter` around each): with `--reps N` the
median of N runs of each, `ns` and `bufferlab run` in turn, so that both share the machine's
load alike; the outputs compared are the first run's (both simulators are deterministic).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "ns2"
PEERS = ROOT.parent / "shared" / "peers" / "ns2"

#: (script, arguments): each example with the arguments its header names.
SCRIPTS: list[tuple[str, list[str]]] = [
    ("dumbbell_reno.tcl", ["60", "thr.tr"]),
    ("trace_awk.tcl", ["60", "out.tr", "awk.out"]),
    ("red_cbr.tcl", ["30", "red.out"]),
    ("sampler_class.tcl", ["10", "s.tr"]),
    ("dynamic_apps.tcl", []),
    ("link_traces.tcl", []),
    ("short_transfers.tcl", []),
    ("transfers_done.tcl", []),
    ("pi_aqm.tcl", ["20", "pi.tr"]),
    ("queue_sample.tcl", ["20", "qm.out", "thr.tr"]),
]

#: The peers' scripts (../shared/peers/ns2) at the scale of the bench's c_ns2 and paper D's
#: 200 s: they print one JSON line, compared without its wall-clock fields.
PEER_SCRIPTS: list[tuple[str, list[str]]] = [
    ("scale.tcl", ["time=100", "trace=0", "qdt=0", "cwdt=0"]),
    ("paperD.tcl", ["time=200", "qdt=0", "cwdt=0"]),
]


def run(cmd: list[str], cwd: Path) -> tuple[str, float, int]:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    return p.stdout, time.perf_counter() - t0, p.returncode


def without_clocks(text: str) -> str:
    """JSON lines with their wall-clock fields left out (each simulator times itself)."""
    out = []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        if isinstance(obj, dict):
            obj = {k: v for k, v in obj.items() if "wall" not in k}
        out.append(json.dumps(obj, sort_keys=True))
    return "\n".join(out)


def same_lines(a: str, b: str) -> tuple[int, int]:
    """Lines equal at the same place, and the longer file's line count."""
    la, lb = a.splitlines(), b.splitlines()
    return sum(x == y for x, y in zip(la, lb, strict=False)), max(len(la), len(lb))


def flat(obj: object, at: str = "") -> dict[str, object]:
    """A JSON value as path -> leaf."""
    if isinstance(obj, dict):
        return {k: v for key, val in obj.items() for k, v in flat(val, f"{at}.{key}").items()}
    if isinstance(obj, list):
        return {k: v for i, val in enumerate(obj) for k, v in flat(val, f"{at}[{i}]").items()}
    return {at: obj}


def same_values(a: str, b: str) -> str:
    """For one JSON object printed by each: its values equal (numbers to 1e-6 relative, the
    rounding of a time integral), of all; empty when the output is not that."""
    try:
        fa, fb = flat(json.loads(a)), flat(json.loads(b))
    except ValueError:
        return ""

    def eq(x: object, y: object) -> bool:
        if isinstance(x, int | float) and isinstance(y, int | float):
            return abs(x - y) <= 1e-6 * max(abs(x), abs(y))
        return x == y

    return f"{sum(k in fb and eq(v, fb[k]) for k, v in fa.items())} / {len(fa | fb)} values"


def is_trace(text: str) -> bool:
    """An ns-2 trace file: lines of 12 fields, each starting with an event letter."""
    lines = text.splitlines()[:50]
    return bool(lines) and all(ln[:1] in "+-rde" and len(ln.split()) == 12 for ln in lines)


def same_events(a: str, b: str) -> int:
    """Trace lines equal in event, time, nodes, type, size, flow id, addresses and sequence
    number: all but the flags (ns-2 marks retransmissions `---A---`) and the packet id, which
    follows each simulator's own numbering (docs/ns2-scripts.md, "trace-queue")."""

    def key(line: str) -> list[str]:
        f = line.split()
        return f[:6] + f[7:11]

    return sum(key(x) == key(y) for x, y in zip(a.splitlines(), b.splitlines(), strict=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bufferlab", default=str(ROOT / ".venv" / "bin" / "bufferlab"))
    ap.add_argument("--reps", type=int, default=1, help="runs of each, for the median wall time")
    args = ap.parse_args()
    if shutil.which("ns") is None:
        sys.exit("ns (Debian package ns2) is not installed")
    print("| script | output | same lines / lines | same events or values | ns-2 s | bufferlab s |")
    print("|---|---|---|---|---|---|")
    cases = [(EX / s, a) for s, a in SCRIPTS]
    if PEERS.is_dir():
        cases += [(PEERS / s, a) for s, a in PEER_SCRIPTS]
    for path, sargs in cases:
        script = path.name
        with tempfile.TemporaryDirectory() as d:
            dn, db = Path(d) / "ns", Path(d) / "bl"
            dn.mkdir()
            db.mkdir()
            out_n, t_n, _ = run(["ns", str(path), *sargs], dn)
            out_b, t_b, rc = run([args.bufferlab, "run", str(path), *sargs], db)
            if rc != 0:
                print(f"| {script} | bufferlab exit {rc} | | | {t_n:.3f} | {t_b:.3f} |")
                continue
            outputs = [("printed", without_clocks(out_n), without_clocks(out_b))]
            for f in sorted(p.name for p in dn.iterdir() if p.is_file()):
                b = (db / f).read_text(errors="replace") if (db / f).exists() else ""
                outputs.append((f, (dn / f).read_text(errors="replace"), b))
            walls_n, walls_b = [t_n], [t_b]
            for _ in range(args.reps - 1):
                walls_n.append(run(["ns", str(path), *sargs], dn)[1])
                walls_b.append(run([args.bufferlab, "run", str(path), *sargs], db)[1])
            t_n, t_b = statistics.median(walls_n), statistics.median(walls_b)
            for i, (name, a, b) in enumerate(outputs):
                same, n = same_lines(a, b)
                times = f"{t_n:.3f} | {t_b:.3f}" if i == 0 else " | "
                label = f"{script} {' '.join(sargs)}".strip() if i == 0 else ""
                events = f"{same_events(a, b)}" if is_trace(a) else same_values(a, b)
                print(f"| {label} | {name} | {same} / {n} | {events} | {times} |")


if __name__ == "__main__":
    main()
