"""Idioms of the tutorials' scripts that once ran without an error but not as ns-2 runs them:
`$ns link-lossmodel` (the loss after the link's delay, not at its head), a start time of seven
significant digits from a RandomVariable (written to the scenario as %g's six), an Exponential
source sized by `packet_size_`, an SFQ bottleneck and `attach-app`; a LossMonitor whose flow
lost its first packets (ns-2 counts them: `expected_` starts at 0). Compared with ns-2.35
event for event where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bufferlab.ns2.units import fmt_rate, fmt_time
from conftest import needs_ns, run_both, run_cli, trace_events

TUTORIAL_MIX = """\
set ns [new Simulator]
set tf [open mix.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 5Mb 5ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms SFQ
$ns queue-limit $n1 $n2 20
set em [new ErrorModel]
$em unit pkt
$em set rate_ 0.02
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $n0 $n1
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n2 $lm
$ns connect $udp $lm
$udp set fid_ 1
set exp [new Application/Traffic/Exponential]
$exp set packet_size_ 400
$exp set burst_time_ 200ms
$exp set idle_time_ 100ms
$exp set rate_ 300k
$exp attach-agent $udp
set tcp [new Agent/TCP/Newreno]
$tcp set window_ 30
$tcp set packetSize_ 552
$tcp set fid_ 2
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set rng [new RNG]
$rng seed 7
set rv [new RandomVariable/Exponential]
$rv use-rng $rng
$rv set avg_ 0.5
set t1 [$rv value]
puts "ftp start at $t1"
$ns at $t1 "$ftp start"
$ns at 0.2 "$exp start"
proc finish {} {
    global ns tf sink lm tcp
    $ns flush-trace
    close $tf
    puts "[$sink set bytes_] [$lm set npkts_] [$lm set nlost_] [$lm set bytes_] [$tcp set ack_]"
    exit 0
}
$ns at 20.0 "finish"
$ns run
"""


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "mix.tcl"
    path.write_text(TUTORIAL_MIX)
    return path


def _run_both(text: str, name: str, tmp_path: Path) -> tuple[Path, Path, str]:
    """Writes the script as ``name`` and runs it under ns-2.35 and `bufferlab run`."""
    script = tmp_path / name
    script.write_text(text)
    return run_both(script, tmp_path=tmp_path)


def test_link_losses_happen_at_the_far_end(tmp_path: Path) -> None:
    """Without ns-2: each `d` line of the lossy link comes a transmission and a propagation
    delay after its `-` (ns-2's link-lossmodel sits after the link's delay), with no `r`."""
    r = run_cli("run", str(_script(tmp_path)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "ftp start at 3.027648e+00"
    sent: dict[str, float] = {}
    drops = 0
    for line in (tmp_path / "mix.tr").read_text().splitlines():
        f = line.split()
        if f[2:4] != ["0", "1"]:
            continue
        if f[0] == "-":
            sent[f[11]] = float(f[1])
        elif f[0] == "d":
            drops += 1
            size = int(f[5])
            assert float(f[1]) == pytest.approx(sent[f[11]] + size * 8 / 5e6 + 0.005, abs=2e-6)
    assert drops > 10
    # the TCP flow starts at the RandomVariable's value, all seven digits
    first_tcp = next(ln for ln in (tmp_path / "mix.tr").read_text().splitlines() if " tcp " in ln)
    assert first_tcp.split()[1] == "3.027648"


@needs_ns
def test_the_tutorial_mix_is_ns2s_event_for_event(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = _run_both(TUTORIAL_MIX, "mix.tcl", tmp_path)
    ours, theirs = trace_events(bl_dir / "mix.tr"), trace_events(ns_dir / "mix.tr")
    assert len(theirs) > 25_000
    assert ours == theirs


def test_times_and_rates_keep_every_digit() -> None:
    assert fmt_time(3.027648) == "3.027648s"
    assert fmt_time(0.001234567) == "1.234567ms"
    assert fmt_time(10.123456) == "10.123456s"
    assert fmt_time(0.02) == "20ms"
    assert fmt_rate(123456789) == "123456.789kbps"
    assert fmt_rate(1.5e6) == "1.5Mbps"


# Four SACK flows from random starts and a Pareto on/off source into a DRR bottleneck; the
# Pareto flow's first five packets are dropped, which its LossMonitor counts.
DRR_PARETO = """\
set ns [new Simulator]
set tf [open drr.tr w]
$ns trace-all $tf
set n(0) [$ns node]
set n(1) [$ns node]
for {set i 2} {$i < 6} {incr i} {
    set n($i) [$ns node]
    $ns duplex-link $n($i) $n(0) 10Mb [expr 2*$i]ms DropTail
}
$ns duplex-link $n(0) $n(1) 2Mb 15ms DRR
$ns queue-limit $n(0) $n(1) 40
Queue/DRR set quantum_ 500
set rng [new RNG]
$rng seed 3
set u [new RandomVariable/Uniform]
$u use-rng $rng
$u set min_ 0
$u set max_ 2
for {set i 2} {$i < 6} {incr i} {
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set fid_ $i
    $tcp($i) set window_ 64
    $ns attach-agent $n($i) $tcp($i)
    set snk($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $n(1) $snk($i)
    $ns connect $tcp($i) $snk($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [$u value] "$ftp($i) start"
}
set udp [new Agent/UDP]
$ns attach-agent $n(2) $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n(1) $lm
$ns connect $udp $lm
$udp set fid_ 9
set par [new Application/Traffic/Pareto]
$par set packetSize_ 210
$par set burst_time_ 500ms
$par set idle_time_ 500ms
$par set rate_ 400k
$par set shape_ 1.4
$par attach-agent $udp
$ns at 0.5 "$par start"
proc done {} {
    global ns tf tcp snk lm
    $ns flush-trace
    close $tf
    foreach i {2 3 4 5} {
        puts "$i [$snk($i) set bytes_] [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_]"
    }
    puts "udp [$lm set npkts_] [$lm set nlost_]"
    exit 0
}
$ns at 30 "done"
$ns run
"""


@needs_ns
def test_drr_pareto_and_first_losses_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(DRR_PARETO, "drr.tcl", tmp_path)
    # among what both print, the LossMonitor's 180 losses, 5 of them before any arrival
    assert out.splitlines()[-1] == "udp 3889 180"
    mine, theirs = trace_events(bl_dir / "drr.tr"), trace_events(ns_dir / "drr.tr")
    assert mine == theirs and len(mine) > 100_000


# A Vegas agent, whose opening packet is a full data packet (Reno's is a 40-byte header), to a
# delayed-ACK sink: ns-2.35 answers packet 0 at once.
VEGAS_DELACK = """\
set ns [new Simulator]
set tf [open vegas.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set tcp [new Agent/TCP/Vegas]
$ns attach-agent $n0 $tcp
set s [new Agent/TCPSink/DelAck]
$ns attach-agent $n1 $s
$ns connect $tcp $s
set f [new Application/FTP]
$f attach-agent $tcp
$ns at 0.1 "$f start"
$ns at 3.0 "close $tf; exit 0"
$ns run
"""


def test_a_delayed_ack_sink_answers_the_opening_data_packet_at_once(tmp_path: Path) -> None:
    script = tmp_path / "vegas.tcl"
    script.write_text(VEGAS_DELACK)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = [ln.split() for ln in (tmp_path / "vegas.tr").read_text().splitlines()]
    arrival = next(f for f in lines if f[0] == "r" and f[4] == "tcp")
    ack = next(f for f in lines if f[0] == "+" and f[4] == "ack")
    assert arrival[5] == "1000"  # data, not a 40-byte opening header
    assert ack[1] == arrival[1]  # not 100 ms later


@needs_ns
def test_vegas_to_a_delayed_ack_sink_is_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = _run_both(VEGAS_DELACK, "vegas.tcl", tmp_path)
    mine, theirs = trace_events(bl_dir / "vegas.tr"), trace_events(ns_dir / "vegas.tr")
    assert mine == theirs and len(mine) > 1500


# ECN: RED marks (setbit_) for three SACK flows with ecn_ and delayed-ACK SACK sinks, 20 s.
ECN_RED = """\
Queue/RED set setbit_ true
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Agent/TCP set ecn_ 1
set ns [new Simulator]
set tf [open ecn.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms RED
$ns queue-limit $n1 $n2 40
for {set i 0} {$i < 3} {incr i} {
    set tcp($i) [new Agent/TCP/Sack1]
    $tcp($i) set fid_ $i
    $ns attach-agent $n0 $tcp($i)
    set s($i) [new Agent/TCPSink/Sack1/DelAck]
    $ns attach-agent $n2 $s($i)
    $ns connect $tcp($i) $s($i)
    set f($i) [new Application/FTP]
    $f($i) attach-agent $tcp($i)
    $ns at [expr 0.1 * $i] "$f($i) start"
}
proc fin {} {
    global ns tf s tcp
    close $tf
    for {set i 0} {$i < 3} {incr i} {
        puts "$i [$s($i) set bytes_] [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_]"
    }
    exit 0
}
$ns at 20 "fin"
$ns run
"""


def test_ecn_marks_are_echoed_on_delayed_acks(tmp_path: Path) -> None:
    """Without ns-2: RED marks (E), the sinks echo them (C) on ACKs that still wait for a
    second packet or the timer (ns-2's DelAck sink does not hurry them), senders react (A)."""
    script = tmp_path / "ecn.tcl"
    script.write_text(ECN_RED)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    flags = [ln.split()[6] for ln in (tmp_path / "ecn.tr").open()]
    assert any("E" in f for f in flags) and any("C" in f for f in flags)
    assert any("A" in f for f in flags)


@needs_ns
def test_ecn_red_is_ns2s_event_for_event(tmp_path: Path) -> None:
    """The sinks delay the ACK of a marked packet like any other, and the senders halve to
    W/2 unrounded (tcp.cc ecn() -> slowdown): both parted from ns-2.35 before (at 1.18 s and
    1.32 s)."""
    ns_dir, bl_dir, _ = _run_both(ECN_RED, "ecn.tcl", tmp_path)
    mine, theirs = trace_events(bl_dir / "ecn.tr"), trace_events(ns_dir / "ecn.tr")
    assert mine == theirs and len(mine) > 30_000


# Two flows with fid_ 1 and 2 over an FQ bottleneck (a NewReno with windowInit_ 2 and the old
# 100 ms tcpTick_, a Reno half a second later), their throughput sampled with `$ns after`.
FQ_TWO_FLOWS = """\
Agent/TCP set tcpTick_ 0.1
Agent/TCP set windowInit_ 2
set ns [new Simulator]
set tf [open fq.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns duplex-link $n0 $n2 10Mb 5ms DropTail
$ns duplex-link $n1 $n2 10Mb 15ms DropTail
$ns duplex-link $n2 $n3 1Mb 10ms FQ
set t1 [new Agent/TCP/Newreno]
$ns attach-agent $n0 $t1
set k1 [new Agent/TCPSink]
$ns attach-agent $n3 $k1
$ns connect $t1 $k1
$t1 set fid_ 1
set f1 [new Application/FTP]
$f1 attach-agent $t1
set t2 [new Agent/TCP/Reno]
$ns attach-agent $n1 $t2
set k2 [new Agent/TCPSink]
$ns attach-agent $n3 $k2
$ns connect $t2 $k2
$t2 set fid_ 2
set f2 [new Application/FTP]
$f2 attach-agent $t2
$ns at 0.0 "$f1 start"
$ns at 0.5 "$f2 start"
proc sample {} {
    global ns k1 k2
    puts "[$ns now] [$k1 set bytes_] [$k2 set bytes_]"
    $ns after 1.0 sample
}
$ns at 1.0 sample
$ns at 30 "close $tf; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize("flow_limit", [None, "6"])
def test_fq_is_ns2s_scheduler(flow_limit: str | None, tmp_path: Path) -> None:
    """ns-2's queue/fq.cc (`kind = "fq", preset = "ns2"`): the self-clocked default parted from
    ns-2.35 at 0.58 s, where the bottleneck sent the other flow's packet. FQLink's `new-flow`
    makes each flow's DropTail when its first packet comes, with the class's limit_ then: a
    `Queue set limit_` after the link was made still reaches it."""
    script = FQ_TWO_FLOWS
    if flow_limit is not None:
        script = script.replace("$ns at 0.0", f"Queue set limit_ {flow_limit}\n$ns at 0.0", 1)
    ns_dir, bl_dir, out = _run_both(script, "fq.tcl", tmp_path)
    assert len(out.splitlines()) == 29
    mine, theirs = trace_events(bl_dir / "fq.tr"), trace_events(ns_dir / "fq.tr")
    assert mine == theirs and len(mine) > 40_000
    drops = sum(1 for e in mine if e[0] == "d")
    assert (drops > 0) == (flow_limit is not None), drops


# Class-level agent defaults, a simplex-link pair, RED with automatic thresholds (gentle), a
# Vegas agent to a DelAck sink beside a Reno one, a CBR with random_ 1, trace-queue on the
# bottleneck only and `$ns after`.
VEGAS_RENO_RED = """\
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100
Queue/RED set gentle_ true
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
Queue/RED set q_weight_ -1
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns simplex-link $n0 $n2 20Mb 3ms DropTail
$ns simplex-link $n2 $n0 20Mb 3ms DropTail
$ns duplex-link $n1 $n2 20Mb 7ms DropTail
$ns duplex-link $n2 $n3 3Mb 25ms RED
$ns queue-limit $n2 $n3 60
$ns duplex-link-op $n2 $n3 queuePos 0.5
set qf [open q23.tr w]
$ns trace-queue $n2 $n3 $qf
set v [new Agent/TCP/Vegas]
$v set fid_ 1
$ns attach-agent $n0 $v
set vs [new Agent/TCPSink/DelAck]
$ns attach-agent $n3 $vs
$ns connect $v $vs
set vf [new Application/FTP]
$vf attach-agent $v
set r [new Agent/TCP/Reno]
$r set fid_ 2
$ns attach-agent $n1 $r
set rs [new Agent/TCPSink]
$ns attach-agent $n3 $rs
$ns connect $r $rs
set rf [new Application/FTP]
$rf attach-agent $r
set udp [new Agent/UDP]
$ns attach-agent $n1 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n3 $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr set random_ 1
$cbr set packetSize_ 700
$cbr set rate_ 500Kb
$cbr attach-agent $udp
$ns at 0.1 "$vf start"
$ns at 0.3 "$rf start"
$ns at 1.0 "$cbr start"
$ns after 2.0 {puts "after: [$ns now]"}
proc fin {} {
    global ns qf vs rs lm v r
    close $qf
    puts "[$vs set bytes_] [$rs set bytes_] [$lm set npkts_] [$lm set nlost_]"
    puts "[$v set cwnd_] [$r set cwnd_]"
    exit 0
}
$ns at 25 "fin"
$ns run
"""


@needs_ns
def test_vegas_and_reno_over_red_are_ns2s(tmp_path: Path) -> None:
    """Parted from ns-2.35 at its first line (the DelAck sink delayed Vegas's opening data
    packet), then at 3.64 s (Vegas's round RTT from the ACKs' echoes, not its send times)."""
    ns_dir, bl_dir, out = _run_both(VEGAS_RENO_RED, "ks3.tcl", tmp_path)
    assert out.splitlines()[0] == "after: 2"
    mine, theirs = trace_events(bl_dir / "q23.tr"), trace_events(ns_dir / "q23.tr")
    assert mine == theirs and len(mine) > 20_000


# A sampler that reads the sender's loss state every 10 ms through a run with drops: Reno
# over a 6-packet DropTail queue (the tutorials' `record` proc, with dupacks_, which exited
# with code 2 before 2026-11-27).
DUPACK_SAMPLER = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 6
set tcp [new Agent/TCP/Reno]
$tcp set window_ 40
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
proc record {} {
    global ns tcp
    puts "[$ns now] [$tcp set cwnd_] [$tcp set ssthresh_] [$tcp set dupacks_] [$tcp set ack_]"
    $ns after 0.01 record
}
$ns at 0.0 "$ftp start"
$ns at 0.0 record
$ns at 4.0 "exit 0"
$ns run
"""


@needs_ns
def test_a_sampler_reading_dupacks_prints_as_ns2(tmp_path: Path) -> None:
    _, _, out = _run_both(DUPACK_SAMPLER, "dup.tcl", tmp_path)
    rows = [line.split() for line in out.splitlines()]
    assert len(rows) == 401  # 0 s to 4 s in steps of 10 ms, as ns-2 prints them
    assert max(int(r[3]) for r in rows) >= 3  # a fast retransmit was sampled


# Values ns-2 computes before the run: RED's automatic thresholds and weight when the queue
# gets its link (red.cc initialize_params), kept when the script sets thresh_ afterwards; a
# TCP agent's ssthresh_ = int(window_) at its creation and again at `$ns run` (tcp.cc
# reset()), so a value set before the run is not the run's. Before 2026-11-27 bufferlab read
# 0 0 -1 and 0, ran the flow with ssthresh_ 4 (cwnd_ 8.4 at 0.3 s against ns-2's 20.5), and a
# script whose agents had no application stopped with "no flows".
BEFORE_THE_RUN = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms RED
$ns duplex-link $n0 $n2 10Mb 10ms RED
set tcp [new Agent/TCP/Reno]
puts "new: [$tcp set ssthresh_]"
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
$tcp set window_ 50
$tcp set ssthresh_ 4
puts "set: [$tcp set ssthresh_]"
set q [[$ns link $n0 $n1] queue]
puts "red: [$q set thresh_] [$q set maxthresh_] [$q set q_weight_]"
set q2 [[$ns link $n0 $n2] queue]
$q2 set thresh_ 7
puts "red2: [$q2 set thresh_] [$q2 set maxthresh_] [$q2 set q_weight_]"
set idle [new Agent/TCP/Vegas]
$ns attach-agent $n2 $idle
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0 "$ftp start"
$ns at 0.3 {puts "run: [$tcp set ssthresh_] [$tcp set cwnd_] [$idle set ssthresh_]"}
$ns at 1 "exit 0"
$ns run
"""


@needs_ns
def test_values_computed_before_the_run_are_ns2s(tmp_path: Path) -> None:
    _, _, out = _run_both(BEFORE_THE_RUN, "before.tcl", tmp_path)
    assert out.splitlines()[:4] == [
        "new: 20",
        "set: 4",
        "red: 5 15 0.0039920106560085156",
        "red2: 7 18.75 0.00039992001066557759",
    ]
    assert out.splitlines()[4].startswith("run: 50 ")


NO_TRAFFIC = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set tcp [new Agent/TCP]
$ns attach-agent $n0 $tcp
$ns at 0.5 {puts "at [$ns now]: [$tcp set cwnd_] [$tcp set ssthresh_]"}
$ns at 1 "exit 0"
$ns run
"""


@needs_ns
def test_a_script_without_traffic_runs(tmp_path: Path) -> None:
    _, _, out = _run_both(NO_TRAFFIC, "quiet.tcl", tmp_path)
    assert out == "at 0.5: 1 20\n"


# Vegas (class-level v_alpha_/v_beta_), Sack1 and Reno over DRR from three RTTs, 1 % uniform
# loss after the bottleneck (`$ns lossmodel`), Pareto on/off cross traffic to a LossMonitor,
# `$ns color` (ignored): the printed counts and the 64 318-line trace are ns-2's.
MIXED_DRR_LOSS = """\
set ns [new Simulator]
$ns color 1 Blue
set tf [open out.tr w]
$ns trace-all $tf
Agent/TCP/Vegas set v_alpha_ 2
Agent/TCP/Vegas set v_beta_ 4
for {set i 0} {$i < 6} {incr i} { set n($i) [$ns node] }
$ns duplex-link $n(0) $n(3) 10Mb 1ms DropTail
$ns duplex-link $n(1) $n(3) 10Mb 5ms DropTail
$ns duplex-link $n(2) $n(3) 10Mb 9ms DropTail
$ns duplex-link $n(3) $n(4) 2Mb 15ms DRR
$ns duplex-link $n(4) $n(5) 10Mb 1ms DropTail
$ns queue-limit $n(3) $n(4) 30
set em [new ErrorModel]
$em set rate_ 0.01
$em unit pkt
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns lossmodel $em $n(4) $n(5)
set k 1
foreach {src cls} {0 Vegas 1 Sack1 2 Reno} {
    set t [new Agent/TCP/$cls]
    $t set fid_ $k
    $ns attach-agent $n($src) $t
    if {$cls eq "Sack1"} { set s [new Agent/TCPSink/Sack1] } else { set s [new Agent/TCPSink] }
    $ns attach-agent $n(5) $s
    $ns connect $t $s
    set f [new Application/FTP]
    $f attach-agent $t
    $ns at [expr {0.2 * $k}] "$f start"
    set tcp($k) $t
    incr k
}
set u [new Agent/UDP]
$u set fid_ 9
$ns attach-agent $n(0) $u
set lm [new Agent/LossMonitor]
$ns attach-agent $n(5) $lm
$ns connect $u $lm
set p [new Application/Traffic/Pareto]
$p set burst_time_ 200ms
$p set idle_time_ 300ms
$p set rate_ 800k
$p set packetSize_ 500
$p set shape_ 1.4
$p attach-agent $u
$ns at 1.0 "$p start"
proc finish {} {
    global ns tf tcp lm
    $ns flush-trace; close $tf
    set r {}
    foreach i {1 2 3} { lappend r [$tcp($i) set ack_] }
    puts "[join $r] [$lm set npkts_] [$lm set nlost_]"
    exit 0
}
$ns at 15 finish
$ns run
"""


@needs_ns
def test_vegas_sack1_reno_over_drr_with_loss_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(MIXED_DRR_LOSS, "m.tcl", tmp_path)
    assert out == "845 1222 986 904 70\n"
    assert (bl_dir / "out.tr").read_bytes() == (ns_dir / "out.tr").read_bytes()


# NewReno to DelAck sinks over SFQ with 552-byte packets, finite FTPs (`produce`,
# `producemore`) and a started one stopped, a sampler rescheduling itself with
# `$ns at [expr {[$ns now] + 0.5}]`, and trace-queue: what it prints and the trace are ns-2's.
PRODUCE_SFQ = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 5Mb 2ms DropTail
$ns duplex-link $n1 $n2 800Kb 30ms SFQ
$ns queue-limit $n1 $n2 12
set qf [open q.tr w]
$ns trace-queue $n1 $n2 $qf
for {set i 1} {$i <= 3} {incr i} {
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    $tcp($i) set packetSize_ 552
    $ns attach-agent $n0 $tcp($i)
    set s($i) [new Agent/TCPSink/DelAck]
    $ns attach-agent $n2 $s($i)
    $ns connect $tcp($i) $s($i)
    set ftp($i) [$tcp($i) attach-app FTP]
}
$ns at 0.1 "$ftp(1) produce 400"
$ns at 0.5 "$ftp(2) start"
$ns at 1.5 "$ftp(3) produce 150"
$ns at 4.0 "$ftp(3) producemore 100"
$ns at 6.0 "$ftp(2) stop"
proc done_ {} {}
proc rep {} {
    global ns tcp s
    set o "[$ns now]"
    for {set i 1} {$i <= 3} {incr i} {
        append o " [$tcp($i) set ack_] [$tcp($i) set cwnd_] [$s($i) set bytes_]"
    }
    puts $o
    $ns at [expr {[$ns now] + 0.5}] rep
}
$ns at 0 rep
$ns at 10 "close $qf; exit 0"
$ns run
"""


@needs_ns
def test_produce_and_producemore_over_sfq_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(PRODUCE_SFQ, "p.tcl", tmp_path)
    assert len(out.splitlines()) == 20
    assert (bl_dir / "q.tr").read_bytes() == (ns_dir / "q.tr").read_bytes()
