#!/usr/bin/env python3
"""ns-2.35 against bufferlab's `ns2` preset on networks other than the bench's (issue #22):
the recovery-variant comparison (was bench/ns2_recovery/compare.py), which sets several
bufferlab builds (`--runner`, e.g. before and after a rule) beside ns-2 over a fixed grid.
For paired ensembles with confidence intervals use `python3 -m bench.validation run`.

Reference: ns-2.35 (Debian package `ns2`), `tcp/tcp-newreno.cc`, `tcp/tcp-sack1.cc` and the
defaults of `tcl/lib/ns-default.tcl`; the ns-2 side is `ns2_dumbbell.tcl` next to this file.

Each network is a dumbbell with n one-way FTP flows (window_ 20 unless said, packetSize_ 1000 +
40 B header), its own access delays (an RTT mix), DropTail or RED (ns-2 RED in bytes with
mean_pktsize_ 500, as bench/lab/cases.py maps it), with and without delayed ACKs, run for
`--time` seconds from start times jittered by `--jitters` seeds (flow i starts at
0.2 i + U(0, 1) s, the same draw in both simulators). Per run: bottleneck drops,
retransmitted packets, timeouts, goodput (Mbps) and mean queue (packets); the table gives
ensemble means over the jitters and each network, and the relative difference to ns-2.

    python3 -m bench.validation.recovery --tcp Newreno --runner target/release/examples/run \
        [--runner /tmp/run_before --label before] [--time 100] [--jitters 3]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import random
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: (n, bottleneck rate Mb, one-way delay ms, access delays ms, buffer packets, window_)
NETWORKS = {
    "n2_mix": (2, 1.5, 10, [2, 25], 20, 20),
    "n3_long": (3, 1.0, 40, [5, 10, 50], 30, 20),
    "n4_mix": (4, 3.0, 15, [1, 8, 20, 40], 40, 20),
    "n8_5M": (8, 5.0, 10, [1, 3, 6, 10, 15, 20, 28, 35], 100, 20),
    "n6_10M_w64": (6, 10.0, 25, [2, 6, 10, 15, 22, 30], 200, 64),
}
CC = {"Newreno": ("newreno", False), "Sack1": ("newreno", True), "Reno": ("reno", False)}


def starts(n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [round(0.2 * i + rng.random(), 4) for i in range(n)]


def ns2_run(tcp, net, q, delack, seed, time):
    n, bw, d, ad, buf, win = NETWORKS[net]
    args = ["ns", str(HERE / "ns2_dumbbell.tcl"), f"tcp={tcp}", f"n={n}", f"bw={bw}Mb",
            f"delay={d}ms", "adelays=" + ",".join(f"{x}ms" for x in ad),
            "starts=" + ",".join(str(s) for s in starts(n, seed)), f"window={win}",
            f"delack={int(delack)}", f"time={time}", f"seed={seed}"]
    args += (["qtype=RED", "qib=1", "meanpkt=500", f"limit={buf}"] if q == "RED"
             else ["qtype=DropTail", f"limit={buf}"])
    r = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    fl = r["flows"]
    return dict(drops=r["queue"]["drops"], rexmit=sum(f["rexmit_packets"] for f in fl),
                timeouts=sum(f["timeouts"] for f in fl),
                goodput=sum(f["goodput_bps"] for f in fl) / 1e6,
                queue=r["queue"]["avg_packets"])


def toml(tcp, net, q, delack, seed, time) -> str:
    n, bw, d, ad, buf, win = NETWORKS[net]
    cc, sack = CC[tcp]
    bq = (f'{{ kind = "red", preset = "ns2", limit = "{buf * 500}B" }}' if q == "RED"
          else f'{{ kind = "droptail", limit = "{buf}p", flavour = "ns2" }}')
    out = [f'name = "ns2-recovery-{net}"', f'duration = "{time}s"', f"seed = {seed}",
           "[topology]", 'kind = "dumbbell"', f"pairs = {n}",
           "sender_delays = [" + ", ".join(f'"{x}ms"' for x in ad) + "]",
           "[links.access]", 'rate = "100Mbps"', 'delay = "1ms"',
           'queue = { kind = "droptail", limit = "1000p", flavour = "ns2" }',
           "[links.bottleneck]", f'rate = "{bw}Mbps"', f'delay = "{d}ms"', f"queue = {bq}"]
    for i, s in enumerate(starts(n, seed)):
        out += ["[[flows]]", f'name = "tcp{i}"', f'src = "s{i}"', f'dst = "d{i}"',
                f'start = "{s}s"', 'app = { kind = "bulk" }',
                f'tcp = {{ preset = "ns2", cc = "{cc}", sack = {str(sack).lower()}, '
                f'window = "{win}p", delayed_ack = {str(delack).lower()} }}']
    return "\n".join(out) + "\n"


def bl_run(runner, tcp, net, q, delack, seed, time):
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(toml(tcp, net, q, delack, seed, time))
        f.flush()
        p = subprocess.run([runner, f.name], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    r = json.loads(p.stdout)
    fl = r["flows"]
    bq = next(x for x in r["queues"] if x["link"] == "bottleneck" and x["from"] == "r0")
    return dict(drops=bq["drops"], rexmit=sum(f["tcp"]["retransmitted_segments"] for f in fl),
                timeouts=sum(f["tcp"]["timeouts"] for f in fl),
                goodput=sum(f["goodput_bps"] for f in fl) / 1e6, queue=bq["avg_packets"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcp", default="Newreno", choices=sorted(CC))
    ap.add_argument("--runner", action="append", required=True)
    ap.add_argument("--label", action="append")
    ap.add_argument("--time", type=float, default=100)
    ap.add_argument("--jitters", type=int, default=3)
    ap.add_argument("--json", help="write every run here")
    a = ap.parse_args()
    labels = a.label or [f"bufferlab{i}" for i in range(len(a.runner))]
    cases = [(net, q, dl, s) for net in NETWORKS for q in ("DropTail", "RED")
             for dl in (False, True) for s in range(1, a.jitters + 1)]
    keys = ["drops", "rexmit", "timeouts", "goodput", "queue"]
    res: dict[str, list[dict]] = {}
    with cf.ThreadPoolExecutor(2) as pool:
        res["ns-2"] = list(pool.map(lambda c: ns2_run(a.tcp, *c, a.time), cases))
        for lab, run in zip(labels, a.runner, strict=False):
            res[lab] = list(pool.map(lambda c, run=run: bl_run(run, a.tcp, *c, a.time), cases))
    if a.json:
        Path(a.json).write_text(json.dumps({"cases": cases, "runs": res}, indent=1))

    def mean(rows, k):
        return sum(r[k] for r in rows) / len(rows)

    print(f"Agent/TCP/{a.tcp}: {len(cases)} runs per simulator ({len(NETWORKS)} networks x "
          f"DropTail/RED x delayed ACK off/on x {a.jitters} jitters), {a.time:g} s each\n")
    groups = [("all", lambda c: True), ("DropTail", lambda c: c[1] == "DropTail"),
              ("RED", lambda c: c[1] == "RED"), ("no delack", lambda c: not c[2]),
              ("delack", lambda c: c[2])]
    print("| runs | simulator | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for gname, pred in groups:
        idx = [i for i, c in enumerate(cases) if pred(c)]
        base = {k: mean([res["ns-2"][i] for i in idx], k) for k in keys}
        for lab in res:
            m = {k: mean([res[lab][i] for i in idx], k) for k in keys}
            cells = []
            for k in keys:
                v = f"{m[k]:.3g}" if k in ("goodput", "queue") else f"{m[k]:.1f}"
                if lab != "ns-2" and base[k]:
                    v += f" ({100 * (m[k] / base[k] - 1):+.0f} %)"
                cells.append(v)
            print(f"| {gname} | {lab} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
