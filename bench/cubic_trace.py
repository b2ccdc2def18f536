#!/usr/bin/env python3
"""Set bufferlab's cwnd / ssthresh series beside ns-3's own traces for one bench case and one
start offset, and print where they first part (issue #18, docs/validation.md "CUBIC against
ns-3's TcpCubic").

    python3 bench/cubic_trace.py f_cubic_3_20p --stagger 0.001
    python3 bench/cubic_trace.py f_cubic_3_20p --stagger 0.001 --until 2 --flow 0 --dump

ns-3 writes every change of cwnd, ssthresh and congestion state (`ns3_dumbbell --trace`);
bufferlab samples its series every `--interval` (`[monitor] cwnd_interval`). Each bufferlab
sample is compared with ns-3's last value at or before the same instant; the first sample
where cwnd differs by more than `--tol` segments is printed with the ns-3 events around it.
It needs bench/.peers/ns3_dumbbell (bench/peers/build_ns3.sh) and the example runner
(`cargo build --release -p bufferlab-core --example run`).
"""

from __future__ import annotations

import argparse
import bisect
import json
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))
from bench.validation.cases import staggered  # noqa: E402
from lab.cases import cases  # noqa: E402


def ns3_trace(args: list[str], path: Path) -> dict[int, dict[str, list]]:
    """Per flow: `cwnd`, `ssthresh` and `state` as lists of (time, value)."""
    subprocess.run(
        [str(BENCH / ".peers" / "ns3_dumbbell"), *args, f"--trace={path}"],
        capture_output=True,
        text=True,
        check=True,
    )
    out: dict[int, dict[str, list]] = {}
    for line in path.read_text().splitlines():
        t, i, what, v = line.split()
        rec = out.setdefault(int(i), {"cwnd": [], "ssthresh": [], "state": []})
        rec[what].append((float(t), v if what == "state" else int(v)))
    return out


def at(series: list, t: float):
    """The last value at or before t (None before the first)."""
    k = bisect.bisect_right([x[0] for x in series], t + 1e-12)
    return series[k - 1][1] if k else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("case")
    ap.add_argument("--stagger", type=float, default=0.001, help="flow i starts at i*stagger s")
    ap.add_argument("--interval", default="1ms", help="bufferlab's cwnd sampling interval")
    ap.add_argument("--until", type=float, default=10.0, help="simulated seconds to compare")
    ap.add_argument("--tol", type=float, default=1.0, help="tolerance in segments")
    ap.add_argument("--flow", type=int, help="only this flow")
    ap.add_argument("--dump", action="store_true", help="print both series side by side")
    ap.add_argument("--runner", default=str(ROOT / "target" / "release" / "examples" / "run"))
    a = ap.parse_args()
    case = next((c for c in cases() if c["id"] == a.case), None)
    if case is None or not case.get("ns3"):
        print(f"case: {a.case!r} is not a bench case paired with ns-3", file=sys.stderr)
        return 2
    import re

    flows = int(re.search(r"^pairs = (\d+)", case["toml"], re.M).group(1))
    mss = int(re.search(r"mss = (\d+)", case["toml"]).group(1))
    with tempfile.TemporaryDirectory() as d:
        toml = Path(d) / "case.toml"
        toml.write_text(staggered(case["toml"], flows, a.stagger))
        r = json.loads(
            subprocess.run(
                [
                    a.runner,
                    str(toml),
                    f"duration={a.until}s",
                    f'monitor.cwnd_interval="{a.interval}"',
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        args = [x for x in case["ns3"] if not x.startswith("--simTime")]
        ns3 = ns3_trace(
            [*args, f"--simTime={a.until}", f"--stagger={a.stagger}"], Path(d) / "ns3.trace"
        )
    for k, s in enumerate(r["series"]["tcp"]):
        if a.flow is not None and k != a.flow:
            continue
        n = ns3.get(k, {"cwnd": [], "ssthresh": [], "state": []})
        first = None
        for j, t in enumerate(s["t_s"]):
            ours = s["cwnd_bytes"][j] / mss
            theirs = at(n["cwnd"], t)
            if a.dump:
                ss = s["ssthresh_bytes"][j]
                print(
                    f"{t:9.4f} flow {k}: bufferlab cwnd {ours:7.2f} ssthresh "
                    f"{'-' if ss is None else f'{ss / mss:7.2f}'} | ns-3 cwnd "
                    f"{'-' if theirs is None else f'{theirs / mss:7.2f}'} ssthresh "
                    f"{at(n['ssthresh'], t)} state {at(n['state'], t)}"
                )
            if first is None and theirs is not None and abs(ours - theirs / mss) > a.tol:
                first = (t, ours, theirs / mss)
        if first is None:
            print(f"flow {k}: cwnd within {a.tol} segments of ns-3's until {a.until} s")
            continue
        t, ours, theirs = first
        print(
            f"flow {k}: first divergence at t = {t:.4f} s: bufferlab cwnd {ours:.2f} segments, "
            f"ns-3 {theirs:.2f}; ns-3 events around it:"
        )
        ev = sorted((x[0], w, x[1]) for w in ("cwnd", "ssthresh", "state") for x in n[w])
        for te, w, v in ev:
            if t - 0.05 <= te <= t + 0.01:
                print(f"    {te:9.5f} {w:8} {v if w == 'state' else f'{v / mss:.2f}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
