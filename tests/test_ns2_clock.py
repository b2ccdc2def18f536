"""ns-2's clock (`clock = "ns2"`, crates/bufferlab-core/src/clock.rs): a script's scenario keys
every event by the double ns-2 computes for it, so `$ns now` prints ns-2's value and events
simultaneous on paper run in ns-2's order; a start the script computed in doubles is kept. Also
the RTT variables a script reads, in ns-2's fixed point."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conftest import ONE_FTP_FLOW, ROOT, assert_prints_as_ns2, needs_ns, run_cli, run_ns

PEERS = ROOT.parent / "shared" / "peers" / "ns2"

# One packet each way over a link of `delay`: the transfer's `done` prints the time with all
# its digits. Over 5 us, ns-2's doubles give 0.10930000000000002 s, picoseconds 0.1093.
ONE_PACKET = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb [lindex $argv 0] DropTail
set tcp [new Agent/TCP]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
$tcp proc done {} { global ns; puts [format %.17g [$ns now]] }
$ns at 0.1 "$tcp advance 1"
$ns at 1.0 "exit 0"
$ns run
"""

# Two CBR sources started at 0.1 * 7 and 0.1 * 3 (0.7000000000000001 and 0.30000000000000004
# in doubles), sampled by a proc that reschedules itself with `$ns after`.
CBR_STARTS = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n2 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 10Mb 2ms DropTail
foreach {i t0} [list 0 [expr {0.1 * 7}] 1 [expr {0.1 * 3}]] {
    set udp($i) [new Agent/UDP]
    set lm($i) [new Agent/LossMonitor]
    $ns attach-agent [set n$i] $udp($i)
    $ns attach-agent $n2 $lm($i)
    $ns connect $udp($i) $lm($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set rate_ 1Mb
    $cbr($i) attach-agent $udp($i)
    $ns at $t0 "$cbr($i) start"
}
proc sample {} {
    global ns lm
    puts "[$ns now] [$lm(0) set npkts_] [$lm(1) set npkts_]"
    $ns after 0.0333 sample
}
$ns at 0.5 sample
$ns at 1.2 "exit 0"
$ns run
"""


@needs_ns
def test_now_is_ns2s_double(tmp_path: Path) -> None:
    for delay in ("5us", "19us", "13ms"):
        script = tmp_path / "one.tcl"
        script.write_text(ONE_PACKET)
        out = assert_prints_as_ns2(script, delay, cwd=tmp_path)
        assert out.strip()
    # the case where the two clocks differ in the last digits
    assert assert_prints_as_ns2(script, "5us", cwd=tmp_path).strip() == "0.10930000000000002"


@needs_ns
def test_starts_and_samples_at_ns2s_doubles(tmp_path: Path) -> None:
    script = tmp_path / "cbr.tcl"
    script.write_text(CBR_STARTS)
    out = assert_prints_as_ns2(script, cwd=tmp_path)
    assert len(out.splitlines()) == 22  # 0.5 s, then every 33.3 ms to 1.2 s


def test_import_keeps_the_scripts_start_and_clock(tmp_path: Path) -> None:
    script = tmp_path / "cbr.tcl"
    script.write_text(CBR_STARTS.replace("$ns at 0.5 sample\n", ""))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "s.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    s = tomllib.loads((tmp_path / "s.toml").read_text())
    assert s["clock"] == "ns2"
    starts = sorted(f.get("ns2_start_s") for f in s["flows"])
    assert starts == [0.1 * 3, 0.1 * 7] and starts != [0.3, 0.7]
    # a start that is not the flow's: one line naming the field
    bad = (tmp_path / "s.toml").read_text().replace("0.7000000000000001", "0.9")
    (tmp_path / "bad.toml").write_text(bad)
    r = run_cli("run", str(tmp_path / "bad.toml"), cwd=tmp_path)
    assert r.code == 2
    assert "ns2_start_s" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@needs_ns
@pytest.mark.skipif(not PEERS.is_dir(), reason="../shared/peers/ns2 is not beside the repository")
@pytest.mark.parametrize(
    "script,args",
    [
        # before ns-2's clock: parted at 0.30 s (two packets at a full RED queue in one
        # instant), then at 1.23 s (RED's idle time in doubles), 1.49 s (CBR starts at 0.1 * i),
        # 17.55 s (a retransmission timer keyed at now + its delay in picoseconds, not at
        # ns-2's double); the CBR packet at 20 s (0.8 + 1200 x 0.016 s added up, just below)
        # was left out; the flags lacked cong_action (`A`)
        ("paperB.tcl", ["time=20"]),
        # parted at 3.53 s (an arrival as the packet ahead leaves, RED's average 2 bytes off)
        ("paperD.tcl", ["qtype=RED", "time=10", "qdt=0", "cwdt=0"]),
        # Sack1 with 1 % loss: parted at 3.03 s, then at 5.19 s (a segment no longer timed
        # after a SACK retransmission below it, where tcp.cc times on)
        ("paperA.tcl", ["time=10"]),
        # 5 % loss: parted at 28.88 s (a timer and an ACK at one instant, in the other order)
        ("paperA.tcl", ["bw=4Mb", "loss=0.05", "qlim=10", "time=40"]),
        # FQ: parted at 0.555 s under the self-clocked scheduler (another flow's packet next);
        # scripts' FQ links now take ns-2's own (kind = "fq", preset = "ns2")
        ("paperD.tcl", ["qtype=FQ", "time=10", "qdt=0", "cwdt=0"]),
        # Vegas: parted at 2.70 s, where bufferlab averaged the round's RTT from the ACKs'
        # timestamp echoes and ns-2's agent from its own send-time table (tcp-vegas.cc)
        ("paperD.tcl", ["tcp=Vegas", "time=10", "qdt=0", "cwdt=0"]),
        # Vegas over RED: parted at 1.15 s (cwnd_ summed in bytes, not packets), 4.23 s (a
        # round counted from the highest packet sent, not t_seqno_), 4.46 s (Vegas's clock in
        # picoseconds, not ns-2's doubles), 4.82 s (firstsent_ kept when packet 0 was resent
        # after a timeout), 5.65 s (an expired packet's resend not timed), 50.30 s (a window
        # of 0 with nothing outstanding never timed out); seed 34 at 111.82 s (duplicates
        # with nothing outstanding not counted)
        ("paperD.tcl", ["tcp=Vegas", "qtype=RED", "time=60", "qdt=0", "cwdt=0"]),
        ("paperD.tcl", ["tcp=Vegas", "qtype=RED", "time=120", "seed=34", "qdt=0", "cwdt=0"]),
    ],
)
def test_peer_traces_are_ns2s_byte_for_byte(tmp_path: Path, script: str, args: list[str]) -> None:
    traces = {}
    for who in ("ns", "bl"):
        (tmp_path / who).mkdir()
        tr = tmp_path / who / "t.tr"
        full = [*args, f"tr={tr}", "keep=1"]
        if who == "ns":
            assert run_ns(PEERS / script, *full, cwd=tmp_path / who).returncode == 0
        else:
            r = run_cli("run", str(PEERS / script), *full, cwd=tmp_path / who)
            assert r.code == 0, r.stderr
        traces[who] = tr.read_bytes()
    assert traces["ns"].count(b"\n") > 10_000
    assert traces["bl"] == traces["ns"]


@needs_ns
def test_rtt_variables_are_ns2s_fixed_point(tmp_path: Path) -> None:
    """tcp.cc binds `rtt_`, `srtt_`, `rttvar_` and `backoff_` to `t_rtt_` (ticks), `t_srtt_`
    (8 x srtt in ticks), `t_rttvar_` (4 x rttvar) and `t_backoff_`: a script reads those
    integers, before the run (ns-2's initial values) and during it."""
    script = tmp_path / "rtt.tcl"
    script.write_text(
        ONE_FTP_FLOW.replace("1Mb 10ms DropTail", "1Mb 25ms DropTail")
        + """\
$ns queue-limit $n0 $n1 8
proc show {} {
    global ns tcp
    puts "[$ns now] [$tcp set rtt_] [$tcp set srtt_] [$tcp set rttvar_] [$tcp set backoff_]"
    $ns after 0.5 show
}
show
$ns at 0.1 "$ftp start"
$ns at 10 "exit 0"
$ns run
"""
    )
    out = assert_prints_as_ns2(script, cwd=tmp_path)
    rows = [ln.split() for ln in out.splitlines()]
    assert rows[0][1:] == ["0", "0", "4800", "1"]
    assert any(int(r[2]) > 0 for r in rows)  # srtt_ sampled once the flow runs
