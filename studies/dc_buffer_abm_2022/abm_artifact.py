"""The ABM artifact's numbers in published.json, computed again from its recorded flow files.

    python3 studies/dc_buffer_abm_2022/abm_artifact.py REPO           # print the rows
    python3 studies/dc_buffer_abm_2022/abm_artifact.py REPO --check   # exit 1 if one moved

REPO is a clone of github.com/inet-tub/ns3-datacenter (a bare clone will do). Its flow files
(`simulator/ns-3.35/examples/ABM/dump_sigcomm/fcts-*.fct`) were removed by commit cd3c5c6
("moving to ns-3.39"); they are read from its parent, with `git show`.

The rules are those of the artifact's parser, `examples/ABM/parseData-singleQ.py` (read, not
copied): a file's columns are time, flowsize, fct, basefct, slowdown, basertt, flowstart,
priority, incast; a short flow is a flow with incast = 0 and flowsize under the BDP,
10 Gbit/s x 80 us / 8 = 100 000 B; the incast answers are the flows with incast = 1; a
percentile is element int(n q) - 1 of the sorted slowdowns; the median is the middle element
(or the mean of the two middle ones), as numpy's.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

COMMIT = "db55c0bbbcccb7003a16adbd72e5714e2de7836a"  # the parent of cd3c5c6
DUMP = "simulator/ns-3.35/examples/ABM/dump_sigcomm"
BDP = 10e9 * 80e-6 / 8
BUFFERS = ["9.6", "8", "7", "6", "5.12", "3.44"]
LOADS = ["0.2", "0.4", "0.6", "0.8"]
# published.json table -> the files of its rows (run-buffer.sh: TcpProt 2 = DCTCP; run-main.sh:
# TcpProt 1 = CUBIC, burst 0.3, 2 queries/s; algorithm 101 = DT, 104 = IB, 110 = ABM)
TABLES = {
    "abm_buffer_dt_dctcp": [("buffer_kb", b, f"fcts-buffer-2-101-{b}.fct") for b in BUFFERS],
    "abm_buffer_abm_dctcp": [("buffer_kb", b, f"fcts-buffer-2-110-{b}.fct") for b in BUFFERS],
    "abm_buffer_ib_dctcp": [("buffer_kb", b, f"fcts-buffer-2-104-{b}.fct") for b in BUFFERS],
    "abm_load_dt_cubic": [("load", x, f"fcts-single-1-101-{x}-0.3-2.fct") for x in LOADS],
    "abm_load_abm_cubic": [("load", x, f"fcts-single-1-110-{x}-0.3-2.fct") for x in LOADS],
}


def _pct(v: list[float], q: float) -> float:
    return sorted(v)[int(len(v) * q) - 1]


def _median(v: list[float]) -> float:
    s, n = sorted(v), len(v)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _g4(x: float) -> float:
    return float(f"{x:.4g}")


def row(text: str) -> dict[str, float | int]:
    rows = [ln.split() for ln in text.splitlines()[1:] if len(ln.split()) >= 9]
    short = [float(r[4]) for r in rows if float(r[1]) < BDP and r[8] == "0"]
    incast = [float(r[4]) for r in rows if r[8] == "1"]
    return {
        "small_p99": _g4(_pct(short, 0.99)),
        "small_p50": _g4(_median(short)),
        "small_mean": _g4(math.fsum(short) / len(short)),
        "incast_p99": _g4(_pct(incast, 0.99)),
        "n_small": len(short),
        "n_incast": len(incast),
    }


def compute(repo: Path) -> dict[str, list[dict[str, float | int]]]:
    out = {}
    for table, files in TABLES.items():
        rows = []
        for key, label, name in files:
            text = subprocess.run(
                ["git", "-C", str(repo), "show", f"{COMMIT}:{DUMP}/{name}"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            rows.append({key: float(label), **row(text)})
        out[table] = rows
    return out


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    got = compute(Path(sys.argv[1]))
    if "--check" not in sys.argv:
        print(json.dumps(got, indent=1))
        return 0
    pub = json.loads((Path(__file__).parent / "published.json").read_text())["tables"]
    bad = [t for t, rows in got.items() if pub[t]["rows"] != rows]
    for t in bad:
        print(f"{t}: published.json differs from the artifact's files", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
