"""A retransmission timeout after an ECN reduction whose own window has been acknowledged, as
a script of ours shows under ns-2.35 and bufferlab.

tcp.cc `TcpAgent::timeout` sets `recover_ = maxseq_` and then asks `highest_ack_ < recover_
&& last_cwnd_action_ == CWND_ACTION_ECN`: with data outstanding that is only "was the last
window action an ECN reduction", and then `slowdown(CLOSE_CWND_ONE)` leaves `ssthresh_` as
the ECN reduction set it. bufferlab asked whether the ECN reduction's own recovery point was
still ahead, and halved `ssthresh_` once it had been acknowledged (red gentleEcn1: a timeout
at 16.99 s). A packet marked early (5) halves the window; a run of drops later (a tail of a
window, fewer than three duplicate ACKs follow) makes the timeout, no fast retransmit between
them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_ns, run_both

SCRIPT = """\
set agent [lindex $argv 0]
set sinkc [lindex $argv 1]
set drops [lindex $argv 2]
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 10ms DropTail
$ns queue-limit $n1 $n2 20
set tcp [$ns create-connection $agent $n0 $sinkc $n2 1]
$tcp set window_ 20
$tcp set ecn_ 1
set cw [open cwnd.tr w]
$tcp attach $cw
$tcp trace ssthresh_
$tcp trace cwnd_
set em [new ErrorModule Fid]
set mark [new ErrorModel/List]
$mark droplist 5
$mark set markecn_ true
[$ns link $n1 $n2] errormodule $em
$em insert $mark
$em bind $mark 1
set em2 [new ErrorModule Fid]
set drop [new ErrorModel/List]
$drop droplist $drops
[$ns link $n0 $n1] errormodule $em2
$em2 insert $drop
$em2 bind $drop 1
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
$ns at 2 "close $f; close $cw; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize(
    "agent",
    [("TCP", "TCPSink"), ("TCP/Reno", "TCPSink"), ("TCP/Sack1", "TCPSink/Sack1")],
    ids=lambda a: a[0],
)
@pytest.mark.parametrize("drops", ["10 11 12 13", "20 21 22 23 24 25"])
def test_a_timeout_after_an_ecn_reduction_keeps_ssthresh(
    tmp_path: Path, agent: tuple[str, str], drops: str
) -> None:
    script = tmp_path / "ecn_timeout.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, _ = run_both(script, *agent, drops, tmp_path=tmp_path)
    assert (bl_dir / "out.tr").read_bytes() == (ns_dir / "out.tr").read_bytes()
    # the first timeout (cwnd_ back to 1 after the opening) sets no ssthresh_: the ECN
    # reduction's value stays, in both (the variable trace's intermediate values of a later
    # halving are not compared)
    for run in (ns_dir, bl_dir):
        lines = [ln.split() for ln in (run / "cwnd.tr").read_text().splitlines()]
        timeout = next(
            x[0] for x in lines if x[5] == "cwnd_" and x[6] == "1.000" and float(x[0]) > 0.2
        )
        assert [x for x in lines if x[0] == timeout and x[5] == "ssthresh_"] == []
        assert ["ssthresh_", "3"] in [x[5:7] for x in lines]  # the ECN reduction
