"""Run one network as an ensemble in bufferlab and in its peer (ns-2.35 or ns-3.44).

Why ensembles (issue #22, docs/validation.md "Ensembles"): per-flow shares of deterministic
DropTail runs are chaotic in ns-2 and ns-3 themselves (lengthening an access link by 1 us moves
one flow's goodput by 20-50 %), so one run is one draw. Member m (1..K) of a network gets, in
both simulators alike:

* flow i starts at U(0, 1 s) (rounded to 0.1 ms);
* sender i's access delay is the network's plus U(0, 0.5 ms) (rounded to 1 us);
* the simulators' random seed is m (ns-2 `defaultRNG seed`, ns-3 `RngRun`, bufferlab `seed`).

The draws come from Python's `random.Random(f"{network}/{m}")` (Mersenne Twister, seeded by the
string), so they are the same on every machine. Members run at most two at a time under
`nice -n 10`.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

from .networks import NS2_TCP, NS3_TCP, Network

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent
ROOT = BENCH.parent
NS2_SCRIPT = HERE / "ns2_dumbbell.tcl"
NS3_BINARY = BENCH / ".peers" / "ns3_dumbbell"
DEFAULT_RUNNER = ROOT / "target" / "release" / "examples" / "run"

START_JITTER_S = 1.0
DELAY_JITTER_MS = 0.5
NICE = ["nice", "-n", "10"]


def member_jitter(net: Network, m: int) -> dict:
    """The start times (s) and sender access delays (ms) of member m, the same in both."""
    rng = random.Random(f"{net.name}/{m}")
    starts = [round(rng.uniform(0, START_JITTER_S), 4) for _ in range(net.flows)]
    delays = [round(d + rng.uniform(0, DELAY_JITTER_MS), 3) for d in net.sender_delays()]
    return {"member": m, "seed": m, "starts": starts, "access_ms": delays}


def _us(ms: float) -> str:
    """A delay in whole microseconds, the unit all three simulators parse exactly."""
    return f"{round(ms * 1000)}us"


# ------------------------------------------------------------------------------------------
# bufferlab
# ------------------------------------------------------------------------------------------


def scenario_toml(net: Network, j: dict) -> str:
    """The bufferlab scenario of one member."""
    buf = net.buffer_packets()
    if net.peer == "ns2":
        cc, sack = NS2_TCP[net.tcp]
        tcp = (f'{{ preset = "ns2", cc = "{cc}", sack = {str(sack).lower()}, '
               f'window = "{net.window}p", delayed_ack = {str(net.delack).lower()} }}')
        access_q = '{ kind = "droptail", limit = "1000p", flavour = "ns2" }'
        bq = (f'{{ kind = "red", preset = "ns2", limit = "{buf * 500}B" }}' if net.qdisc == "RED"
              else f'{{ kind = "droptail", limit = "{buf}p", flavour = "ns2" }}')
        framing: list[str] = []
        device: list[str] = []
    else:
        tcp = (f'{{ preset = "ns3", cc = "{NS3_TCP[net.tcp]}", mss = 1448, '
               f"delayed_ack = {str(net.delack).lower()} }}")
        access_q = '{ kind = "droptail", limit = "100p" }'
        if net.qdisc == "RED":
            lo, hi = red_thresholds_ns3(buf)
            bq = (f'{{ kind = "red", preset = "ns3", limit = "{buf}p", min_th = {lo}, '
                  f'max_th = {hi}, max_p = 0.02, q_weight = 0.002, mean_pktsize = "1500B" }}')
        else:
            bq = f'{{ kind = "droptail", limit = "{buf}p" }}'
        # ns-3's 2-byte PPP framing on every link and its 1-packet device queue under the
        # bottleneck's disc (bench/lab/cases.py NS3_FRAMING, NS3_DEVICE_QUEUE).
        framing = ['overhead = "2B"']
        device = ["device_queue = 1"]
    out = [
        f'name = "validation-{net.name}-{j["member"]}"',
        f'duration = "{net.duration:g}s"',
        f"seed = {j['seed']}",
        "[topology]",
        'kind = "dumbbell"',
        f"pairs = {net.flows}",
        "sender_delays = [" + ", ".join(f'"{_us(d)}"' for d in j["access_ms"]) + "]",
        "[links.access]",
        f'rate = "{net.access_rate_mbps:g}Mbps"',
        'delay = "1ms"',
        f"queue = {access_q}",
        *framing,
        "[links.bottleneck]",
        f'rate = "{net.rate_mbps:g}Mbps"',
        f'delay = "{net.delay_ms:g}ms"',
        f"queue = {bq}",
        *framing,
        *device,
    ]
    for i, s in enumerate(j["starts"]):
        out += ["[[flows]]", f'name = "tcp{i}"', f'src = "s{i}"', f'dst = "d{i}"',
                f'start = "{s:g}s"', 'app = { kind = "bulk" }', f"tcp = {tcp}"]
    return "\n".join(out) + "\n"


def red_thresholds_ns3(buf: int) -> tuple[float, float]:
    """ns-3 RED thresholds in packets: 1/4 and 3/4 of the limit (paper 003's proportions)."""
    return max(1.0, round(buf / 4, 2)), max(2.0, round(3 * buf / 4, 2))


def _measures_bufferlab(report: dict) -> dict:
    fl = report["flows"]
    bq = next(q for q in report["queues"] if q["link"] == "bottleneck" and q["from"] == "r0")
    return {
        "goodput_mbps": sum(f["goodput_bps"] for f in fl) / 1e6,
        "flow_goodput_mbps": [f["goodput_bps"] / 1e6 for f in fl],
        "drops": bq["drops"],
        "queue_packets": bq["avg_packets"],
        "rexmit": sum(f["tcp"]["retransmitted_segments"] for f in fl),
        "timeouts": sum(f["tcp"]["timeouts"] for f in fl),
    }


def run_bufferlab(net: Network, j: dict, runner: str | None) -> dict:
    """One member in bufferlab: with `runner` the example binary (cargo build --release -p
    bufferlab-core --example run), else the Python package (bufferlab._core.run)."""
    text = scenario_toml(net, j)
    if runner:
        with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
            f.write(text)
            f.flush()
            p = subprocess.run([*NICE, runner, f.name], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"bufferlab {net.name} member {j['member']}: {p.stderr.strip()}")
        report = json.loads(p.stdout)
    else:
        from bufferlab import _core

        report = json.loads(_core.run(text, f"<{net.name}/{j['member']}>"))
    return _measures_bufferlab(report)


# ------------------------------------------------------------------------------------------
# The peers
# ------------------------------------------------------------------------------------------


def ns2_args(net: Network, j: dict) -> list[str]:
    buf = net.buffer_packets()
    args = ["ns", str(NS2_SCRIPT), f"tcp={net.tcp}", f"n={net.flows}", f"bw={net.rate_mbps:g}Mb",
            f"delay={net.delay_ms:g}ms", f"abw={net.access_rate_mbps:g}Mb",
            "adelays=" + ",".join(_us(d) for d in j["access_ms"]), "radelay=1ms",
            "starts=" + ",".join(f"{s:g}" for s in j["starts"]), f"window={net.window}",
            f"delack={int(net.delack)}", f"time={net.duration:g}", f"seed={j['seed']}"]
    args += (["qtype=RED", "qib=1", "meanpkt=500", f"limit={buf}"] if net.qdisc == "RED"
             else ["qtype=DropTail", f"limit={buf}"])
    return args


def ns3_args(net: Network, j: dict) -> list[str]:
    buf = net.buffer_packets()
    args = [str(NS3_BINARY), f"--nTcp={net.flows}", f"--accessRate={net.access_rate_mbps:g}Mbps",
            "--accessDelay=1ms", "--accessDelays=" + ",".join(_us(d) for d in j["access_ms"]),
            "--starts=" + ",".join(f"{s:g}" for s in j["starts"]),
            f"--bnRate={net.rate_mbps:g}Mbps", f"--bnDelay={net.delay_ms:g}ms", "--segSize=1448",
            f"--simTime={net.duration:g}", f"--qlimit={buf}p", f"--tcp={net.tcp}",
            f"--delAck={2 if net.delack else 1}", "--tcpStats=1", f"--seed={j['seed']}"]
    if net.qdisc == "RED":
        lo, hi = red_thresholds_ns3(buf)
        args += ["--qdisc=RED", f"--minTh={lo:g}", f"--maxTh={hi:g}", "--maxP=0.02", "--qw=0.002"]
    else:
        args += ["--qdisc=DropTail"]
    return args


def run_peer(net: Network, j: dict) -> dict:
    args = ns2_args(net, j) if net.peer == "ns2" else ns3_args(net, j)
    p = subprocess.run([*NICE, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{net.peer} {net.name} member {j['member']}: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    fl = r["flows"]
    q = r["queue"]
    if net.peer == "ns2":
        rexmit = sum(f["rexmit_packets"] for f in fl)
        timeouts = sum(f["timeouts"] for f in fl)
        queue = q["avg_packets"]
    else:
        rexmit = sum(f["tcp"]["retransmitted_segments"] for f in fl)
        timeouts = sum(f["tcp"]["timeouts"] for f in fl)
        # ns-3's queue disc plus its 1-packet device queue: bufferlab's port queue holds both.
        queue = q["avg_packets"] + q["device_avg_packets"]
    return {
        "goodput_mbps": sum(f["goodput_bps"] for f in fl) / 1e6,
        "flow_goodput_mbps": [f["goodput_bps"] / 1e6 for f in fl],
        "drops": q["drops"],
        "queue_packets": queue,
        "rexmit": rexmit,
        "timeouts": timeouts,
    }


def peer_available(peer: str) -> str | None:
    """None if the peer can run, else why not."""
    if peer == "ns2":
        return None if shutil.which("ns") else "ns-2 (`ns`) is not installed: make system-deps"
    if not NS3_BINARY.exists():
        return f"{NS3_BINARY} is missing: bash bench/peers/build_ns3.sh"
    return None


def run_network(net: Network, k: int, runner: str | None, jobs: int = 2,
                log=None) -> dict:
    """K members of one network in both simulators (at most `jobs` processes at a time)."""
    net.check()
    members = [member_jitter(net, m) for m in range(1, k + 1)]
    with cf.ThreadPoolExecutor(jobs) as pool:
        peer = [pool.submit(run_peer, net, j) for j in members]
        bl = [pool.submit(run_bufferlab, net, j, runner) for j in members]
        out_peer = [f.result() for f in peer]
        out_bl = [f.result() for f in bl]
    if log:
        for j, p, b in zip(members, out_peer, out_bl, strict=True):
            log(f"{net.name} member {j['member']}: drops {net.peer} {p['drops']} bufferlab "
                f"{b['drops']}, timeouts {p['timeouts']} / {b['timeouts']}")
    return {"network": net.describe(), "k": k, "members": members,
            "peer": out_peer, "bufferlab": out_bl}
