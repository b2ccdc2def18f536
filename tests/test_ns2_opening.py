"""How ns-2.35 opens its one-way TCP connections, found through ns-2's validation suite
test-suite-tcp-init-win.tcl and its neighbours: flows started by `$ns at` events of one instant
start in the script's order (scheduler.cc, FIFO), packet 0 of an agent with `syn_` false goes
without its headers (tcp.cc `output`), a delayed-ACK sink without `SYN_immediate_ack_` delays
that packet's ACK (tcp-sink.cc `DelAckSink::recv`), `recover_` starts at packet 0 (tcp.cc
`dupack_action` without `bugfix_ss_`), and a variable trace set up before its channel is
attached writes no first line (tcp.cc `TcpAgent::traceVar`). Each script is the project's own;
its traces are compared with ns-2.35's byte for byte."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both

# Three senders started at 0 in the order t2, t3, t1 (t1 was made first); t1 without syn_.
OPENING = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
Agent/TCPSink set SYN_immediate_ack_ false
set a [$ns node]; set b [$ns node]; set r [$ns node]; set k [$ns node]
$ns duplex-link $a $r 100Mb 5ms DropTail
$ns duplex-link $b $r 100Mb 5ms DropTail
$ns duplex-link $r $k 2Mb 20ms DropTail
$ns queue-limit $r $k 30
set t1 [$ns create-connection TCP/Reno $a TCPSink/DelAck $k 0]
$t1 set syn_ false
$t1 set delay_growth_ false
$t1 set windowInit_ 3
set t2 [$ns create-connection TCP/Newreno $b TCPSink $k 1]
set t3 [$ns create-connection TCP $b TCPSink/DelAck $k 2]
$t3 set packetSize_ 500
set c [open cwnd.tr w]
$t2 trace cwnd_
$t2 attach $c
foreach t [list $t2 $t3 $t1] {
  set ftp($t) [$t attach-app FTP]
  $ns at 0.0 "$ftp($t) start"
}
$ns at 2 "close $f; close $c; exit 0"
$ns run
"""

# One NewReno flow without bugfix_ss_ whose first data packet is dropped: three duplicate
# ACKs of packet 0 do not start a fast retransmit (highest_ack_ 0 is not above recover_ 0).
FIRST_LOST = """\
Agent/TCP set bugfix_ss_ 0
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set a [$ns node]; set k [$ns node]
$ns duplex-link $a $k 2Mb 20ms DropTail
set tcp [$ns create-connection TCP/Newreno $a TCPSink $k 0]
$tcp set windowInit_ 4
set em [new ErrorModule Fid]
set drop [new ErrorModel/List]
$drop droplist {1}
[$ns link $a $k] errormodule $em
$em insert $drop
$em bind $drop 0
set ftp [$tcp attach-app FTP]
$ns at 0.0 "$ftp start"
$ns at 2 "close $f; exit 0"
$ns run
"""


def _both(tmp_path: Path, text: str) -> tuple[Path, Path]:
    script = tmp_path / "s.tcl"
    script.write_text(text)
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    assert (bl_dir / "out.tr").read_text() == (ns_dir / "out.tr").read_text()
    return ns_dir, bl_dir


@needs_ns
def test_opening_packets(tmp_path: Path) -> None:
    ns_dir, bl_dir = _both(tmp_path, OPENING)
    lines = [ln.split() for ln in (bl_dir / "out.tr").read_text().splitlines()]
    # the script's start order: t2 (fid 1), then t3 (fid 2), then t1 (fid 0)
    assert [ln[7] for ln in lines if ln[0] == "+"][:3] == ["1", "2", "0"]
    # t1's packet 0 is its 1000 bytes alone, the next ones 1040
    sizes = [ln[5] for ln in lines if ln[0] == "+" and ln[7] == "0" and ln[2] == "0"]
    assert sizes[:2] == ["1000", "1040"]
    cwnd = (bl_dir / "cwnd.tr").read_text()
    assert cwnd == (ns_dir / "cwnd.tr").read_text()
    assert not cwnd.startswith("0.00000")  # no line as the trace was set up


@needs_ns
def test_first_data_packet_lost_without_bugfix_ss(tmp_path: Path) -> None:
    _, bl_dir = _both(tmp_path, FIRST_LOST)
    lines = [ln.split() for ln in (bl_dir / "out.tr").read_text().splitlines()]
    # packet 1, lost as it leaves (`d`), goes again only at the timeout (minrto_ 0.2 s), not
    # after the third duplicate ACK
    lost = next(float(ln[1]) for ln in lines if ln[0] == "d" and ln[10] == "1")
    again = next(float(ln[1]) for ln in lines if ln[0] == "+" and ln[10] == "1")
    assert again - lost > 0.19
