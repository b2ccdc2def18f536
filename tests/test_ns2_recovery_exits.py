"""How ns-2.35's fast recoveries end, three rules that made ns-2's own suites differ
(newreno `newreno5`, ecn `ecn_smallwin1Ecn_reno`, quiescent `tcp_telnet`). Each script is
the project's own and is compared with ns-2.35 byte for byte where `ns` is installed; each
trace differed from ns-2's before its rule was modelled.

* NewReno with `partial_window_deflation_ 0` leaving fast recovery without `dupwnd_`: its
  `last_cwnd_action_` stays `CWND_ACTION_DUPACK`, so duplicate ACKs past the third inflate the
  window (tcp-newreno.cc `recv`; tcp/sender/ns2_newreno_lingering.rs).
* An ECN echo on the ACK that ends Reno's fast recovery halves `windowd()` = cwnd_ + dupwnd_,
  and that ACK does not open the window (tcp.cc `ecn`, `slowdown`, `recv_newack_helper`;
  tcp/sender/ns2_ecn_recovery.rs).
* Sack1 before its first loss has `recover_` 0: a duplicate ACK's SACK hole stops `send_much`
  (tcp-sack1.cc `send_much`; tcp/sender/ns2_sack1_send.rs).
"""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, trace_events

TOPOLOGY = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
"""

# Packet 30 reaches the bottleneck 60 ms late: three duplicate ACKs fast-retransmit it, the
# original arrives, and the ACKs that follow are partial ones (each retransmits the next
# packet, though it arrived); the ACK of recover_ finds dupwnd_ 0 (partial_window_deflation_
# 0), and the needless retransmissions come back as duplicate ACKs of it.
NEWRENO_REORDER = (
    TOPOLOGY
    + """\
$ns duplex-link $n1 $n2 1Mb 40ms DropTail
$ns queue-limit $n1 $n2 50
Agent/TCP/Newreno set partial_window_deflation_ 0
set tcp [$ns create-connection TCP/Newreno $n0 TCPSink $n2 1]
$tcp set window_ 20
set module [new ErrorModule Fid]
set list [new ErrorModel/List]
$list set delay_pkt_ true
$list set delay_ 0.06
$list droplist {30}
[$ns link $n0 $n1] errormodule $module
$module insert $list
$module bind $list 1
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
proc show {} {
    global ns tcp
    puts "[$ns now] [$tcp set cwnd_] [$tcp set ssthresh_]"
}
foreach t {0.7 0.78 0.8 1.0 2.0} { $ns at $t show }
$ns at 3 {close $f; exit 0}
$ns run
"""
)

# Packets 12 and 26 are marked CE at the bottleneck, packet 23 is dropped before it: the echo
# of 12 halves the window (recover_ = maxseq_ 24); the third duplicate ACK of 22 retransmits
# it without a second halving (CWND_ACTION_ECN); packets 24 to 29 arrive before the
# retransmission, so the ACK that ends the recovery acknowledges 30, above recover_, with
# the echo of 26.
RENO_ECN_EXIT = (
    TOPOLOGY
    + """\
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 30
Agent/TCP set ecn_ 1
set tcp [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
$tcp set window_ 20
proc errors {link pkts mark} {
    set module [new ErrorModule Fid]
    set list [new ErrorModel/List]
    $list set markecn_ $mark
    $list droplist $pkts
    $link errormodule $module
    $module insert $list
    $module bind $list 1
}
errors [$ns link $n1 $n2] {12 26} true
errors [$ns link $n0 $n1] {23} false
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
proc show {} {
    global ns tcp
    puts "[$ns now] [$tcp set cwnd_] [$tcp set ssthresh_]"
}
foreach t {0.3 0.37 0.4 0.5 1.0} { $ns at $t show }
$ns at 2 {close $f; exit 0}
$ns run
"""
)

# A Telnet source slower than the 1.5 Mb/s bottleneck for a second (cwnd_ grows far past what
# is outstanding), then faster: its first drops come before any fast retransmit or timeout
# (recover_ 0), and its writes between the duplicate ACKs call send_much with a hole.
SACK1_TELNET = (
    TOPOLOGY
    + """\
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 15
set tcp [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 1]
$tcp set window_ 100
set telnet [new Application/Telnet]
$telnet attach-agent $tcp
$telnet set interval_ 0.02
$ns at 0.0 "$telnet start"
$ns at 1.0 "$telnet set interval_ 0.002"
$ns at 3 {close $f; puts [$tcp set cwnd_]; exit 0}
$ns run
"""
)


def _same_as_ns(text: str, tmp_path: Path) -> tuple[list[list[str]], str]:
    script = tmp_path / "s.tcl"
    script.write_text(text)
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert (bl_dir / "out.tr").read_bytes() == (ns_dir / "out.tr").read_bytes()
    return trace_events(bl_dir / "out.tr"), out


def _sends(trace: list[list[str]]) -> list[tuple[float, int]]:
    """(time, packet number) of the data packets the sender queues."""
    return [(float(e[1]), int(e[10])) for e in trace if e[:5] == ["+", e[1], "0", "1", "tcp"]]


def _acks(trace: list[list[str]]) -> list[tuple[float, int]]:
    """(time, acknowledged packet) of the ACKs the sender receives."""
    return [(float(e[1]), int(e[10])) for e in trace if e[:5] == ["r", e[1], "1", "0", "ack"]]


@needs_ns
def test_newreno_duplicates_after_an_exit_without_inflation(tmp_path: Path) -> None:
    trace, _ = _same_as_ns(NEWRENO_REORDER, tmp_path)
    acks = _acks(trace)
    # the ACK of recover_ (49), then duplicates of it; new packets go out on some of the
    # duplicates past the third (++dupwnd_), none on the third (dupack_action declined)
    exit_at = next(t for t, a in acks if a == 49)
    dups = [t for t, a in acks if a == 49 and t > exit_at]
    assert len(dups) >= 5
    sent_at = {t for t, _ in _sends(trace)}
    assert dups[2] not in sent_at
    assert any(t in sent_at for t in dups[3:])


@needs_ns
def test_reno_ecn_echo_on_the_ack_that_ends_recovery(tmp_path: Path) -> None:
    trace, out = _same_as_ns(RENO_ECN_EXIT, tmp_path)
    at = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()}
    # before: cwnd_ 6.5 with dupwnd_ 7; the ACK of 30 halves 13.5 and does not open it
    assert at["0.29999999999999999"][0] == "6.5"
    assert at["0.37"] == ["6.5", "6"]
    assert at["0.40000000000000002"] == ["6.75", "6"]
    assert any(a == 30 for _, a in _acks(trace))


@needs_ns
def test_sack1_hole_before_any_recovery_stops_send_much(tmp_path: Path) -> None:
    trace, _ = _same_as_ns(SACK1_TELNET, tmp_path)
    assert any(e[0] == "d" for e in trace)
