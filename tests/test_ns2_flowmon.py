"""ns-2 idioms of the red and pi validation suites (issue #35): flow monitors
(`$ns makeflowmon Fid`, `$ns attach-fmon $link $fm 1`, the monitor's and its flows' counters,
`$fm flows`, `reset`, `$fm dump`; monitor/ns2_flowmon.rs), PI's `$piq trace curq_`, and CBQ
refused in one line. Each script is compared with ns-2.35 where it is installed: what it
prints and the files it writes, byte for byte."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli

# Two flows (TCP fid 1, CBR fid 7) through a RED bottleneck that drops some packets early and
# some forced; the counters printed and dumped at 1.5 s, at 2 s (then reset) and at 3 s.
FLOWMON = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms RED
$ns queue-limit $n1 $n2 15
set fm [$ns makeflowmon Fid]
set ch [open flows.tr w]
$fm attach $ch
$ns attach-fmon [$ns link $n1 $n2] $fm 1
set back [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n2 $n1] $back
set tcp [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
$tcp set window_ 40
set udp [$ns create-connection UDP $n0 Null $n2 7]
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 600k
$cbr attach-agent $udp
set ftp [$tcp attach-app FTP]
proc show {} {
  global fm ns back
  set a {}
  foreach v {parrivals_ pdepartures_ pdrops_ epdrops_ barrivals_ bdrops_ ebdrops_ bdepartures_} {
    lappend a [$fm set $v]
  }
  puts "[$ns now] $a back [$back set parrivals_] [$back set pdrops_] [llength [$back flows]]"
  foreach f [$fm flows] {
    puts "  [$f set flowid_] [$f set src_] [$f set dst_] [$f set parrivals_] \\
      [$f set pdepartures_] [$f set pdrops_] [$f set epdrops_] [$f set bdrops_]"
  }
  $fm dump
}
$ns at 0.1 "$ftp start; $cbr start"
$ns at 1.5 "show"
$ns at 2 "show; foreach f \\[\\$fm flows\\] {\\$f reset}; \\$fm reset"
$ns at 3 "show; close $ch; exit 0"
$ns run
"""


@needs_ns
def test_flow_monitor_counts_and_dumps_as_ns2(tmp_path: Path) -> None:
    script = tmp_path / "fm.tcl"
    script.write_text(FLOWMON)
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    lines = out.splitlines()
    assert len(lines) == 9
    # RED dropped packets early and forced, and the counts went back to 0 at 2 s
    totals = [[int(w) for w in ln.split()[1:9]] for ln in lines if not ln.startswith(" ")]
    assert totals[0][2] > totals[0][3] >= 0 and totals[1][3] > 0
    assert totals[2][0] < totals[1][0]
    ours = (bl_dir / "flows.tr").read_bytes()
    assert ours == (ns_dir / "flows.tr").read_bytes()
    assert len(ours.splitlines()) == 6


PI_TRACE = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns simplex-link $n1 $n2 1Mb 20ms PI
$ns simplex-link $n2 $n1 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 20
set piq [[$ns link $n1 $n2] queue]
set q [open all.q w]
$piq trace curq_
$piq attach $q
set tcp [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
set ftp [$tcp attach-app FTP]
$ns at 0.1 "$ftp start"
$ns at 3 "close $q; exit 0"
$ns run
"""


@needs_ns
def test_pi_curq_trace_as_ns2(tmp_path: Path) -> None:
    script = tmp_path / "pi.tcl"
    script.write_text(PI_TRACE)
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    ours = (bl_dir / "all.q").read_bytes()
    assert ours == (ns_dir / "all.q").read_bytes()
    assert len(ours.splitlines()) > 10


def test_cbq_is_refused_naming_it(tmp_path: Path) -> None:
    script = tmp_path / "c.tcl"
    script.write_text(
        "set ns [new Simulator]\nset a [$ns node]\nset b [$ns node]\n"
        "$ns simplex-link $a $b 1.5Mb 5ms CBQ/WRR\n"
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "CBQ/WRR (class-based queueing, Floyd and Jacobson 1995)" in r.stderr
    assert "link sharing" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
