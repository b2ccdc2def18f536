#!/usr/bin/env python3
"""Slow-start overshoot with and without an early exit: one bulk flow of the `linux` preset
(IW 10, delayed ACKs, timestamps, SACK, PRR, RACK-TLP; unpaced) alone on a 100 Mbit/s DropTail
dumbbell with a large buffer, its slow start ended

* at the first loss only (`slow_start = "rfc5681"`),
* by classic HyStart as Linux's `tcp_cubic.c` runs it (`"hystart"`, the preset's default for
  CUBIC; crates/bufferlab-core/src/tcp/cc/hystart.rs), for CUBIC,
* by HyStart++ (RFC 9406, `"hystart++"`; crates/bufferlab-core/src/tcp/cc/hystart_pp.rs),

for CUBIC, NewReno and Linux Reno, at two base RTTs (40 and 100 ms) and buffers of 1 to 4 BDP
(at 100 ms, 2 BDP: the linux preset's 4 MiB send buffer caps the window near 3 BDP). Over the
first `--time` seconds (default 5): drops at the bottleneck, its peak queue, retransmitted
segments, timeouts, goodput, and what ended slow start (HyStart exits; HyStart++ entries into
CSS, returns to slow start, entries into congestion avoidance).

    python3 bench/slow_start_compare.py [--bufferlab .venv/bin/bufferlab] [--time 5]

ns-3.44 has classic HyStart (TcpCubic) but no HyStart++, and bufferlab's ns-3 flavour of
classic HyStart is compared with ns-3 in docs/validation.md ("CUBIC against ns-3's
TcpCubic", case f_cubic_1_hystart); no simulator release or mainline Linux runs HyStart++, so
this table has no peer column.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile

RATE_BPS = 100e6
WIRE = 1500  # 1448 B of payload + 52 B of headers (linux preset)
NETS = [  # (bottleneck one-way delay ms, buffer in BDPs); access links 1 ms each way
    (18, 1),
    (18, 4),
    (48, 1),
    (48, 2),
]
VARIANTS = [
    ("cubic", "rfc5681"),
    ("cubic", "hystart"),
    ("cubic", "hystart++"),
    ("newreno", "rfc5681"),
    ("newreno", "hystart++"),
    ("linux_reno", "rfc5681"),
    ("linux_reno", "hystart++"),
]


def scenario(delay_ms: int, bdps: int, cc: str, slow_start: str, secs: float) -> str:
    rtt = 2 * (delay_ms + 2) / 1e3
    limit = max(1, round(bdps * RATE_BPS * rtt / 8 / WIRE))
    return f"""name = "slow-start-overshoot"
duration = "{secs}s"
seed = 1

[topology]
kind = "dumbbell"
pairs = 1

[links.access]
rate = "1Gbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "10000p" }}

[links.bottleneck]
rate = "100Mbps"
delay = "{delay_ms}ms"
queue = {{ kind = "droptail", limit = "{limit}p" }}

[[flows]]
name = "tcp0"
src = "s0"
dst = "d0"
app = {{ kind = "bulk" }}
tcp = {{ preset = "linux", cc = "{cc}", slow_start = "{slow_start}" }}
"""


def run(exe: str, text: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(text)
        f.flush()
        out = subprocess.run([exe, "run", f.name, "--json"], capture_output=True, check=True)
    r = json.loads(out.stdout)
    q = next(q for q in r["queues"] if q["link"] == "bottleneck")
    flow = r["flows"][0]
    t = flow["tcp"]
    st = t.get("cc_state") or {}
    if "hystart_pp_css_entries" in st:
        how = "CSS {}, back {}, CA {}".format(
            st["hystart_pp_css_entries"],
            st["hystart_pp_css_resumes"],
            st["hystart_pp_avoidance_entries"],
        )
    elif "hystart_exits" in st:
        how = f"HyStart exits {st['hystart_exits']}"
    else:
        how = "-"
    return {
        "drops": q["drops"],
        "peak_queue_p": q["max_packets"],
        "retx": t["retransmitted_segments"],
        "timeouts": t["timeouts"],
        "goodput_mbps": flow["goodput_bps"] / 1e6,
        "exit": how,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bufferlab", default=".venv/bin/bufferlab")
    ap.add_argument("--time", type=float, default=5.0)
    a = ap.parse_args()
    print(
        "| base RTT | buffer | cc | slow start | drops | peak queue (p) | retransmitted "
        "| timeouts | goodput Mb/s | what ended slow start |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for delay, bdps in NETS:
        rtt = 2 * (delay + 2)
        limit = max(1, round(bdps * RATE_BPS * rtt / 1e3 / 8 / WIRE))
        for cc, ss in VARIANTS:
            r = run(a.bufferlab, scenario(delay, bdps, cc, ss, a.time))
            print(
                f"| {rtt} ms | {bdps} BDP ({limit}p) | {cc} | {ss} | {r['drops']} "
                f"| {r['peak_queue_p']} | {r['retx']} | {r['timeouts']} "
                f"| {r['goodput_mbps']:.1f} | {r['exit']} |"
            )


if __name__ == "__main__":
    main()
