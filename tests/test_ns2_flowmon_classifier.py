"""A flow monitor's classifier (`$fmon classifier`, `$fcl lookup auto src dst fid`), its
`$fmon traceDist` at the histogram defaults
(python/bufferlab/ns2/flowmon_classifier.py) and `pmarks_` with ECN (the engine's
monitor/ns2_flowmon.rs), compared with ns-2.35 where it is installed; and the histograms
refused in one line."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli

# Two TCP flows (fid 3 and 5) over a 1 Mb bottleneck; fid 9 never sends. At 0.05 s no packet
# has reached the monitor yet (lookup gives ""), later the flows' records are found by fid.
CLASSIFIER = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 6
set fm [$ns makeflowmon Fid]
$fm traceDist stdout
$ns attach-fmon [$ns link $n1 $n2] $fm
set a [$ns create-connection TCP/Reno $n0 TCPSink $n2 3]
set b [$ns create-connection TCP $n0 TCPSink $n2 5]
$a set window_ 30
$b set window_ 30
$ns at 0.1 "[$a attach-app FTP] start"
$ns at 0.2 "[$b attach-app FTP] start"
proc show {} {
  global ns fm
  set cl [$fm classifier]
  puts "[$ns now] same [expr {$cl == [$fm classifier]}] marks [$fm set pmarks_]"
  foreach fid {3 5 9} {
    set f [$cl lookup auto 0 0 $fid]
    if {$f == ""} { puts "  $fid none"; continue }
    puts "  $fid [$f set flowid_] [$f set pdrops_] [$f set pmarks_] [$f set pdepartures_] \\
      [$f set bdepartures_] [expr {[lsearch [$fm flows] $f] >= 0}]"
  }
}
$ns at 0.05 "show"
$ns at 1.5 "show"
$ns at 3 "show; exit 0"
$ns run
"""


@needs_ns
def test_classifier_lookup_and_marks_as_ns2(tmp_path: Path) -> None:
    script = tmp_path / "cl.tcl"
    script.write_text(CLASSIFIER)
    _, _, out = run_both(script, tmp_path=tmp_path)
    lines = out.splitlines()
    assert lines[1:4] == ["  3 none", "  5 none", "  9 none"]
    assert lines[-1] == "  9 none" and "marks 0" in lines[-4]
    drops = [int(ln.split()[2]) for ln in lines[-3:-1]]
    assert sum(drops) > 0  # the bottleneck dropped: the counters are not trivially 0


def _refusal(tmp_path: Path, text: str) -> str:
    script = tmp_path / "r.tcl"
    script.write_text(text)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


_BASE = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 20ms RED
set fm [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n0 $n1] $fm
"""


# ECN senders through a marking RED queue: the monitor and its flows count the departures
# that carry the CE mark (queue-monitor.cc QueueMonitor::out), checked at three instants.
MARKS = """\
Queue/RED set setbit_ true
Agent/TCP set ecn_ 1
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms RED
$ns queue-limit $n1 $n2 30
set fm [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n1 $n2] $fm
set a [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
set b [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
$a set window_ 40
$b set window_ 40
$ns at 0 "[$a attach-app FTP] start; [$b attach-app FTP] start"
proc show {} {
  global ns fm
  set cl [$fm classifier]
  puts "[$ns now] [$fm set pmarks_] [$fm set pdrops_] [$fm set pdepartures_]"
  foreach fid {1 2} {
    set f [$cl lookup auto 0 0 $fid]
    puts "  $fid [$f set pmarks_] [$f set pdrops_]"
  }
}
foreach t {1 2 4} { $ns at $t "show" }
$ns at 4 "exit 0"
$ns run
"""


@needs_ns
def test_marks_counted_as_ns2(tmp_path: Path) -> None:
    script = tmp_path / "marks.tcl"
    script.write_text(MARKS)
    _, _, out = run_both(script, tmp_path=tmp_path)
    assert int(out.splitlines()[-3].split()[1]) > 0  # RED marked some packets


def test_histograms_are_refused(tmp_path: Path) -> None:
    text = "QueueMonitor set keepRTTstats_ 1\n" + _BASE + "$fm traceDist stdout\n$ns run\n"
    line = _refusal(tmp_path, text)
    assert "keepRTTstats_" in line and "not modelled" in line
