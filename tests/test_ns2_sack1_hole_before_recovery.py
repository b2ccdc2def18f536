"""Sack1's `send_much` while the scoreboard holds a hole but no recovery has started, as a
script of ours shows under ns-2.35 and bufferlab.

tcp-sack1.cc `Sack1TcpAgent::send_much`: the loop takes `scb_->GetNextRetran()` first, and
retransmits that hole only `if (recover_ > 0 && ...)`; otherwise nothing is found and the loop
ends, new data included. `recover_` is 0 (packet 0) from `reset()` until the first fast
recovery or timeout, and again after a fast recovery ends (`recover_ = 0` in `recv`). So an
application write that comes between the first and the third duplicate ACK of the
connection's first loss sends nothing; the duplicate ACKs' `send_one` (singledup_) still
sends one new packet each. bufferlab keeps `recover_` in bytes, where packet 0 is not 0, and
retransmitted the hole and sent new data on such a write (quiescent `tcp_cbr` at 2.5 s; the
rule is tcp/sender/ns2_sack1_send.rs `sack1_recover_set`, whose own test is a Telnet's,
tests/test_ns2_recovery_exits.py). Here a CBR over a Sack1 agent, writing every 1.1 ms,
loses chosen packets."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_ns, run_both

# argv: the data packets the first link drops (ErrorModel/List)
SCRIPT = """\
set drops [lindex $argv 0]
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 5Mb 10ms DropTail
$ns queue-limit $n1 $n2 50
set tcp [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 1]
$tcp set window_ 100
$tcp set packetSize_ 500
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $tcp
$cbr set packetSize_ 500
$cbr set interval_ 0.0011
set em [new ErrorModule Fid]
set drop [new ErrorModel/List]
$drop droplist $drops
[$ns link $n0 $n1] errormodule $em
$em insert $drop
$em bind $drop 1
$ns at 0.05 "$cbr start"
$ns at 2 "close $f; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize("drops", ["150", "300 700"])
def test_a_write_before_the_first_recovery_sends_nothing(tmp_path: Path, drops: str) -> None:
    script = tmp_path / "holes.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, _ = run_both(script, drops, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_text()
    assert ours == (ns_dir / "out.tr").read_text()
    lines = [ln.split() for ln in ours.splitlines()]
    sent = [x for x in lines if x[0] == "+" and x[2] == "0" and x[4] == "tcp"]
    # the first packet lost (at the first link's head: a `d` line and no `+`) goes again
    # once, by the fast retransmit (cong_action), not by a write before it
    first = next(int(x[10]) for x in lines if x[0] == "d" and x[2] == "0")
    again = [x for x in sent if int(x[10]) == first]
    assert len(again) == 1 and "A" in again[0][6]
