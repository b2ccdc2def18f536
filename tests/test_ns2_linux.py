"""Agent/TCP/Linux (ns-2.35 tcp/linux/tcp_linux.cc) in `bufferlab run` / `import-ns2`: the
mapping of `select_ca`, the refusals, and the agreement with ns-2.35 that
docs/ns2-scripts.md ("Agent/TCP/Linux") quotes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, assert_script_refused, needs_ns, run_cli, run_ns

DUMBBELL = ROOT / "bench" / "validation" / "ns2_dumbbell.tcl"

SCRIPT = """set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 10Mb 10ms DropTail
set tcp [new Agent/TCP/Linux]
$tcp set window_ 100
set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
{SELECT}
$ns at 0.1 "$ftp start"
$ns at 2 "puts [$tcp set ack_]; exit 0"
$ns run
"""


def _tcp_table(tmp_path: Path, select: str) -> tuple[str, str]:
    script = tmp_path / "l.tcl"
    script.write_text(SCRIPT.replace("{SELECT}", select))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "l.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    line = next(x for x in (tmp_path / "l.toml").read_text().splitlines() if x.startswith("tcp ="))
    return line, r.stdout + r.stderr


@pytest.mark.parametrize(
    ("select", "expect"),
    [
        # no select_ca: ns-2's own window rules, tcp_tick_ 0.01; delay_growth_ false
        # (Agent/TCP/Linux's default) and the agent's own recovery (ns2_agent.linux)
        (
            "",
            'tcp = { preset = "ns2", cc = "newreno", sack = true, window = "100p", '
            'ns2_agent = { delay_growth = false, linux = "none" }',
        ),
        (
            "$tcp select_ca reno",
            'tcp = { preset = "ns2", cc = "newreno", sack = true, window = "100p", '
            'clock_granularity = "1ms", ns2_agent = { delay_growth = false, linux = "reno" }',
        ),
        (
            "$tcp select_ca cubic",
            'tcp = { preset = "ns2", cc = "cubic", sack = true, cubic_beta = 0.8, cubic_c = 0.4, '
            'cubic_fast_convergence = true, window = "100p", clock_granularity = "1ms", '
            'ns2_agent = { delay_growth = false, linux = "cubic" }',
        ),
        (
            '$ns at 0 "$tcp select_ca cubic"',
            'tcp = { preset = "ns2", cc = "cubic", sack = true, cubic_beta = 0.8, cubic_c = 0.4, '
            'cubic_fast_convergence = true, window = "100p", clock_granularity = "1ms", '
            'ns2_agent = { delay_growth = false, linux = "cubic" }',
        ),
    ],
)
def test_select_ca_maps_to_the_tcp_table(tmp_path: Path, select: str, expect: str) -> None:
    line, out = _tcp_table(tmp_path, select)
    assert line.startswith(expect), line
    # each sender's boot_time_ is below its tick (1 ms once a module is installed)
    phase = float(re.search(r"clock_phase = ([0-9.e-]+)", line).group(1))  # type: ignore[union-attr]
    assert 0 < phase < (0.01 if not select else 0.001)
    assert "loss recovery" not in out  # modelled: no warning any more


def test_select_ca_prints_what_ns2_prints(tmp_path: Path) -> None:
    """tcp_linux.cc `command` printf's the command, and for a name it lacks the list of its
    modules, and goes on without one (ns-2's own window rules)."""
    script = tmp_path / "l.tcl"
    script.write_text(SCRIPT.replace("{SELECT}", "$tcp select_ca cubic\n$tcp select_ca nosuch"))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == [
        "cmd select_ca cubic",
        "cmd select_ca nosuch",
        "Error: do not find nosuch as a congestion control algorithm",
        "List of cc (total 15) : reno naive_reno highspeed bic htcp scalable cubic westwood "
        "vegas hybla illinois yeah veno compound lp",
    ]


def test_unmodelled_modules_and_parameters_are_refused(tmp_path: Path) -> None:
    head = "set tcp [new Agent/TCP/Linux]\n"
    assert_script_refused(
        tmp_path, head + "$tcp select_ca highspeed\n", 3, "Linux module highspeed is not modelled"
    )
    assert_script_refused(
        tmp_path,
        head + "$tcp set_ca_param cubic beta 717\n",
        3,
        "the Linux modules' parameters are not modelled",
    )


def test_select_ca_during_the_run_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "l.tcl"
    script.write_text(SCRIPT.replace("{SELECT}", '$ns at 1 "$tcp select_ca cubic"'))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    assert "select_ca during the run is not modelled" in r.stderr


# The networks of docs/ns2-scripts.md's table (bench/validation/ns2_dumbbell.tcl arguments):
# N1-N4 the table's first networks, N5 and N6 the project's own (more flows and RTTs, a
# 30-packet buffer; RED with delayed-ACK sinks).
NETWORKS = {
    "N1": "n=4 bw=10Mb delay=20ms adelays=1ms,5ms,10ms,20ms starts=0,0.1,0.2,0.3 limit=50 "
    "time=60 window=200",
    "N2": "n=8 bw=20Mb delay=10ms adelays=2ms,5ms,10ms,15ms,20ms,25ms,30ms,40ms "
    "starts=0,0.1,0.2,0.3,0.4,0.5,0.6,0.7 limit=100 delack=1 time=60 window=200",
    "N3": "n=4 bw=10Mb delay=20ms adelays=1ms,5ms,10ms,20ms starts=0,0.1,0.2,0.3 qtype=RED "
    "limit=100 time=60 window=200",
    "N4": "n=2 bw=5Mb delay=30ms adelays=1ms,1ms starts=0,0.5 limit=20 time=60 window=100",
    "N5": "n=6 bw=15Mb delay=15ms adelays=1ms,3ms,8ms,15ms,25ms,40ms "
    "starts=0,0.2,0.4,0.6,0.8,1.0 limit=30 time=60 window=150",
    "N6": "n=3 bw=8Mb delay=25ms adelays=2ms,10ms,30ms starts=0,0.3,0.6 qtype=RED limit=60 "
    "delack=1 time=60 window=120",
}

# Runs where ns-2.35 and bufferlab part (docs/ns2-scripts.md says why): N5 with reno, where
# flow 6's opening packet is dropped while packet 1 went with it (delay_growth_ false): ns-2's
# sink holds packet 1 out of order behind the missing packet 0, bufferlab's receiver, which
# models packet 0 as the handshake's SYN, acknowledges it at once.
DIFFERS = {("N5", "reno")}


def _json(text: str) -> dict:
    line = next(x for x in text.splitlines() if x.startswith('{"simulator"'))
    return json.loads(line)


@needs_ns
@pytest.mark.parametrize("net", sorted(NETWORKS))
@pytest.mark.parametrize("ca", ["", "reno", "cubic"])
def test_agreement_with_ns2(tmp_path: Path, net: str, ca: str) -> None:
    """Agent/TCP/Linux's own recovery (tcp/sender/ns2_linux.rs) against ns-2.35 (measured
    2026-11-30, docs/ns2-scripts.md): the issue's bar, aggregate goodput within 3 %, drops,
    mean queue within 15 %; and where nothing parts the two (every run but DIFFERS), every
    flow's goodput within 15 % and the same drops and retransmissions."""
    args = ["tcp=Linux", *NETWORKS[net].split(), f"ca={ca}"]
    ns = run_ns(DUMBBELL, *args, cwd=tmp_path)
    assert ns.returncode == 0, ns.stderr
    bl = run_cli("run", str(DUMBBELL), *args, cwd=tmp_path)
    assert bl.code == 0, bl.stderr
    a, b = _json(ns.stdout), _json(bl.stdout)
    ga = sum(f["goodput_bps"] for f in a["flows"])
    gb = sum(f["goodput_bps"] for f in b["flows"])
    assert abs(gb - ga) <= 0.03 * ga, (ga, gb)
    qa, qb = a["queue"]["avg_packets"], b["queue"]["avg_packets"]
    assert abs(qb - qa) <= 0.15 * qa, (qa, qb)
    da, db = a["queue"]["drops"], b["queue"]["drops"]
    assert abs(db - da) <= 0.15 * da, (da, db)
    if (net, ca or "none") in DIFFERS:
        return  # per flow: N5 reno's flow 6 gets 15.3 % more, flow 5 15.1 % less (DIFFERS)
    for fa, fb in zip(a["flows"], b["flows"], strict=True):
        assert abs(fb["goodput_bps"] - fa["goodput_bps"]) <= 0.15 * fa["goodput_bps"], (fa, fb)
    assert db == da
    assert [f["rexmit_packets"] for f in b["flows"]] == [f["rexmit_packets"] for f in a["flows"]]


ONE_FLOW = """set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 100Mb 1ms DropTail
$ns duplex-link $n1 $n2 2Mb 20ms DropTail
$ns queue-limit $n1 $n2 10
set tcp [new Agent/TCP/Linux]
$tcp set window_ 100
set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $n0 $tcp
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
{SELECT}
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.1 "$ftp start"
$ns at 10 "close $f; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize("select", ["", "$tcp select_ca reno", "$tcp select_ca cubic"])
def test_one_flow_trace_is_ns2s(tmp_path: Path, select: str) -> None:
    """One flow through a 10-packet buffer for 10 s (slow start's overshoot, FACK recovery
    with rate halving, the moderated exit, congestion avoidance): the ns-2 trace of every
    packet is ns-2.35's, byte for byte, without a module and with reno and cubic."""
    script = tmp_path / "one.tcl"
    script.write_text(ONE_FLOW.replace("{SELECT}", select))
    ns = run_ns(script, cwd=tmp_path)
    assert ns.returncode == 0, ns.stderr
    want = (tmp_path / "out.tr").read_text()
    assert want.count("\nd ") > 5  # losses, recovered
    (tmp_path / "out.tr").unlink()
    bl = run_cli("run", str(script), cwd=tmp_path)
    assert bl.code == 0, bl.stderr
    assert (tmp_path / "out.tr").read_text() == want
