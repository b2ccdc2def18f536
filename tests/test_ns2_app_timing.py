"""When ns-2's applications send, as a script of ours shows under ns-2.35 and bufferlab:

* A CBR given `interval_` (ns-lib's `Application/Traffic/CBR instproc set` makes it rate_ =
  packetSize_ * 8 / interval_, a double such as 506666.666... bit/s): cbr_traffic.cc
  `init` computes interval_ = (size_ << 3) / rate_ from that double, and the scheduler adds
  it up in double seconds. A rate rounded to whole bit/s drifts by half a microsecond
  after some 250 packets (ns-2's test-suite-red.tcl flows_* tests, 190 B every 3 ms).
* `$ftp stop` (ns-source.tcl: `advance 0`, curseq_ = maxseq_) while a Reno agent is
  recovering: send_much and send_one send only t_seqno_ < curseq_ (tcp.cc), so the highest
  packet sent is never sent again by them (rule `stop_withholds_highest_sent`; the RED
  `ns1_compat_` case of test_ns2_red_knobs.py stops one at t_seqno_ 68 of maxseq_ 70)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_ns, run_both

# argv: the FTP's stop time
SCRIPT = """\
set stop [lindex $argv 0]
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 8
set tcp [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
$tcp set window_ 40
set ftp [$tcp attach-app FTP]
set udp [$ns create-connection UDP $n0 Null $n2 2]
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 190
$cbr set interval_ 0.003
$cbr attach-agent $udp
proc show {} {
    global tcp ns
    puts "t_seqno_ [$tcp set t_seqno_] maxseq_ [$tcp set maxseq_]"
}
$ns at 0.0 "$ftp start"
$ns at 0.1 "$cbr start"
$ns at $stop "show; $ftp stop"
$ns at 4 "close $f; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize("stop", ["0.55", "0.65", "1.7", "3.3"])
def test_cbr_interval_and_ftp_stop_are_ns2s(stop: str, tmp_path: Path) -> None:
    script = tmp_path / "apps.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, out = run_both(script, stop, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    # well past the 250th CBR packet, and some stops come while the agent recovers
    assert ours.count(b"\n+ ") > 2000
    seqno, maxseq = int(out.split()[1]), int(out.split()[3])
    assert seqno <= maxseq + 1
