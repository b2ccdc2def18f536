"""The table of docs/ns2-scripts.md "The ns-2 peer scripts": each peer script of
../shared/peers/ns2 run by ns-2.35 (`ns`) and by `bufferlab run` with the same arguments, the
numbers of the JSON line it prints side by side, ns-2 / bufferlab.

    .venv/bin/python -m bench.validation.ns2_peer_table

tests/test_ns2_peer_table.py checks that the page shows what this prints on the current code.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT.parent / "shared" / "peers" / "ns2"

#: (script, arguments, what the row is, RED's average in bytes)
ROWS: list[tuple[str, str, str, bool]] = [
    ("paperB.tcl", "time=20", "RED, packet mode", False),
    ("paperD.tcl", "time=60", "Reno, DropTail", False),
    ("paperD.tcl", "qtype=RED time=60", "byte mode", True),
    ("paperA.tcl", "time=100", "RED bytes + 1 % loss, `e` lines", True),
    ("paperA.tcl", "bw=4Mb loss=0.05 qlim=10 time=100", "", False),
    ("paperA.tcl", "bw=4Mb loss=0 qlim=10 time=100", "", False),
    ("paperA.tcl", "bw=4Mb loss=0.05 buf=10000 time=100", "byte mode", True),
    ("paperC.tcl", "topo=2 time=60", "", False),
    ("scale.tcl", "time=10 trace=0 qdt=0 cwdt=0", "100 flows", False),
]

HEADER = (
    "| run | TCP thr. sum kbps | UDP thr. sum kbps | queue drops | mean queue pkts "
    "| RED `ave_` mean |\n|---|---|---|---|---|---|"
)


def json_line(cmd: list[str], cwd: Path) -> dict:
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600).stdout
    for line in out.splitlines():
        try:
            return json.loads(line)
        except ValueError:
            continue
    raise SystemExit(f"no JSON line from {' '.join(cmd)}")


def get(obj: dict, *keys: str):
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
        if obj is None:
            return None
    return obj


def pair(a, b, fmt: str, unit: str = "") -> str:
    if a is None and b is None:
        return "-"
    return f"{fmt.format(a)} / {fmt.format(b)}{unit}"


def row(script: str, args: str, what: str, ave_bytes: bool, bufferlab: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        n = json_line(["ns", str(PEERS / script), *args.split()], Path(d))
        b = json_line([bufferlab, "run", str(PEERS / script), *args.split()], Path(d))
    tcp = pair(get(n, "agg_tcp", "thr_sum_kbps"), get(b, "agg_tcp", "thr_sum_kbps"), "{:.1f}")
    if script == "paperC.tcl":
        tcp += " (agent goodput)"
    udp = get(n, "agg_udp", "thr_sum_kbps"), get(b, "agg_udp", "thr_sum_kbps")
    drops = get(n, "q_drops"), get(b, "q_drops")
    queue = get(n, "q_mean_pkts"), get(b, "q_mean_pkts")
    ave = get(n, "red_ave_mean"), get(b, "red_ave_mean")
    red = n.get("qtype") == "RED" or script == "paperA.tcl"
    cells = [
        f"`{script} {args}`" + (f" ({what})" if what else ""),
        tcp,
        pair(*udp, "{:.1f}") if udp[0] is not None else "-",
        pair(*drops, "{}") if drops[0] is not None else "-",
        pair(*queue, "{:.2f}") if queue[0] is not None else "-",
        (pair(*ave, "{:.0f}", " B") if ave_bytes else pair(*ave, "{:.2f}")) if red else "-",
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bufferlab", default=str(ROOT / ".venv" / "bin" / "bufferlab"))
    args = ap.parse_args()
    if shutil.which("ns") is None or not PEERS.is_dir():
        sys.exit("needs ns (Debian package ns2) and ../shared/peers/ns2")
    print(HEADER)
    for script, sargs, what, ave_bytes in ROWS:
        print(row(script, sargs, what, ave_bytes, args.bufferlab), flush=True)


if __name__ == "__main__":
    main()
