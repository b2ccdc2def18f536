"""ns-2.35's ECN reaction at the TCP sender (tcp.cc `ecn`, `newtimer`, `timeout`,
`dupack_action`; tcp-reno.cc, tcp-newreno.cc, tcp-sack1.cc `dupack_action`), found through
ns-2's validation suite test-suite-ecn.tcl: an ECN echo halves a window of one packet to half a
packet (nothing is sent until the timer expires, and a second echo at that window backs the
timer off), a loss inside the window of an ECN reduction is retransmitted without a second
halving, and after the opening packet's timeout the ECN negotiation on its ACK is a reduction
too. A script of the project's own marks (and drops) chosen packets with list error models;
its trace is compared with ns-2.35's byte for byte."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from conftest import needs_ns, run_both

# An ECN flow over a 1 Mb/s link whose head marks the data packets of `marks` (counted from
# packet 0, ErrorModel/List markecn_); the first link drops those of `drops`.
SCRIPT = """\
set agent [lindex $argv 0]
set sinkc [lindex $argv 1]
set marks [lindex $argv 2]
set drops [lindex $argv 3]
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
set em [new ErrorModule Fid]
set mark [new ErrorModel/List]
$mark droplist $marks
$mark set markecn_ true
[$ns link $n1 $n2] errormodule $em
$em insert $mark
$em bind $mark 1
if {$drops != ""} {
  set em2 [new ErrorModule Fid]
  set drop [new ErrorModel/List]
  $drop droplist $drops
  [$ns link $n0 $n1] errormodule $em2
  $em2 insert $drop
  $em2 bind $drop 1
}
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
$ns at 4 "close $f; exit 0"
$ns run
"""

AGENTS = [
    ("TCP", "TCPSink"),
    ("TCP/Reno", "TCPSink"),
    ("TCP/Newreno", "TCPSink"),
    ("TCP/Sack1", "TCPSink/Sack1"),
]


def _same_trace(tmp_path: Path, agent: tuple[str, str], marks: str, drops: str) -> str:
    script = tmp_path / "ecnwin.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, _ = run_both(script, *agent, marks, drops, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_text()
    assert ours == (ns_dir / "out.tr").read_text()
    return ours


@needs_ns
@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a[0])
def test_echoes_at_a_window_of_one(tmp_path: Path, agent: tuple[str, str]) -> None:
    """Marks on consecutive packets: the second echo finds cwnd_ at 1 and halves it to 0.5;
    the next packet goes out an RTO later, with cong_action (`A`), and so on with the timer
    backed off (`ecn_backoff_`)."""
    trace = _same_trace(tmp_path, agent, "1 3 4 6 7", "")
    sent = [ln.split() for ln in trace.splitlines() if ln.startswith("- ") and " 0 1 tcp " in ln]
    gaps = [float(b[1]) - float(a[1]) for a, b in pairwise(sent)]
    assert max(gaps) > 0.19  # a send held for the timer (minrto_ 0.2 s), not an ACK clock


@needs_ns
@pytest.mark.parametrize("agent", AGENTS, ids=lambda a: a[0])
@pytest.mark.parametrize(("marks", "drops"), [("5", "9"), ("12", "14 15")])
def test_loss_inside_the_ecn_window(
    tmp_path: Path, agent: tuple[str, str], marks: str, drops: str
) -> None:
    """A packet lost after a marked one in the same window: the fast retransmit does not halve
    the window again (dupack_action's `last_cwnd_action_ == CWND_ACTION_ECN` branch)."""
    _same_trace(tmp_path, agent, marks, drops)


@needs_ns
@pytest.mark.parametrize("agent", [AGENTS[0], AGENTS[1], AGENTS[3]], ids=lambda a: a[0])
def test_opening_packet_lost(tmp_path: Path, agent: tuple[str, str]) -> None:
    """The opening packet dropped: after its timeout, its ACK's ECN-echo (the negotiation) is a
    reduction (`last_cwnd_action_ == CWND_ACTION_TIMEOUT` in ecn()), so the first data packet
    carries cong_action."""
    trace = _same_trace(tmp_path, agent, "200", "0")
    first_data = next(ln.split() for ln in trace.splitlines() if " tcp 1040 " in ln)
    assert "A" in first_data[6]
