"""ns-2's Telnet application (apps/telnet.cc) and Source/Telnet (ns-source.tcl): exponential
inter-arrival times of mean `interval_` drawn from the default RNG, one packet written to the
TCP agent at each; `interval_` changed while the run goes on; stop and a later start. The
script is compared with ns-2.35 where it is installed (what it prints, the values the default
RNG gives after the run's draws, and its trace byte for byte); tcplib's empirical
distribution (`interval_ 0`) is refused in one line."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli

TELNET = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 5ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 10
set tcp [new Agent/TCP/Reno]
$tcp set packetSize_ 500
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set tel [$tcp attach-app Telnet]
puts "[$tel info class] [$tel set interval_]"
$tel set interval_ INTERVAL
$ns at 0.1 "$tel start"
$ns at 1.5 "$tel set interval_ 0.002"
$ns at 2.5 "$tel stop"
$ns at 3.0 "$tel start"
set tcp2 [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
set src [new Source/Telnet]
$src attach $tcp2
puts "[$src info class] [Source/Telnet info superclass]"
$src set interval_ 0.05
$ns at 0.5 "$src start"
proc show {} {
    global ns tcp tcp2
    puts "[$ns now] [$tcp set ack_] [$tcp set t_seqno_] [$tcp2 set ack_] [ns-random]"
    $ns at [expr [$ns now] + 0.5] show
}
$ns at 0.0 show
$ns at 4.0 "close $f; exit 0"
$ns run
"""


@needs_ns
def test_telnet_sources_are_ns2s_packet_for_packet(tmp_path: Path) -> None:
    script = tmp_path / "telnet.tcl"
    script.write_text(TELNET.replace("INTERVAL", "0.02"))
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    lines = out.splitlines()
    assert lines[:2] == ["Application/Telnet 1", "Source/Telnet Application/Telnet"]
    # the agents' progress and the default RNG's next value, every 0.5 s: the same draws
    assert len(lines) == 2 + 8
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    assert len(ours.splitlines()) > 5000


def test_tcplib_interarrivals_are_refused(tmp_path: Path) -> None:
    script = tmp_path / "telnet.tcl"
    script.write_text(TELNET.replace("INTERVAL", "0"))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(err) == 1
    assert "Application/Telnet" in err[0] and "interval_ 0" in err[0]
    assert "tcplib" in err[0] and "not modelled" in err[0]


ONE_START = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms FIRST
$ns duplex-link $n1 $n2 1.5Mb 20ms RED
$ns queue-limit $n1 $n2 10
set tcp [new Agent/TCP/Sack1]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink/Sack1]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set tn [new Application/Telnet]
$tn attach-agent $tcp
$tn set interval_ 0.02
$ns at 0.5 "$tn start"
$ns at 2.0 "$tn set interval_ 0.002"
$ns at 3.5 "$tn stop"
$ns at 4.0 "puts \\"[$tcp set ack_] [ns-random]\\"; close $f; exit 0"
$ns run
"""


@needs_ns
def test_a_telnet_started_once_runs_in_the_engine_as_in_ns2(tmp_path: Path) -> None:
    """Started once and stopped for good, behind a DropTail first hop: the engine runs the
    timer (traffic/ns2_telnet.rs). The opening packet leaves with the first write (0.58 s,
    not the start), the new interval_ counts from the draw after the next packet, and the
    packets written before the stop still go out; the RED bottleneck draws from the same
    default RNG, so every draw is in ns-2's order or the trace differs."""
    script = tmp_path / "telnet.tcl"
    script.write_text(ONE_START.replace("FIRST", "DropTail"))
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert len(out.split()) == 2  # ack_ and the default RNG's next value, as ns-2's
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    assert len(ours.splitlines()) > 4000
    first = ours.splitlines()[0].split()
    assert first[0] == b"+" and float(first[1]) > 0.5


@needs_ns
def test_a_telnet_behind_a_random_first_hop_keeps_ns2s_draw_order(tmp_path: Path) -> None:
    """A RED queue on the sender's own link draws inside ns-2's `sendmsg`, before the
    timer's next draw: that Telnet stays in the script's loop (telnet.py), and still agrees."""
    script = tmp_path / "telnet.tcl"
    script.write_text(ONE_START.replace("FIRST", "RED"))
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    assert (bl_dir / "out.tr").read_bytes() == (ns_dir / "out.tr").read_bytes()
