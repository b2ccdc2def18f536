"""`$ns eventtrace-all` (python/bufferlab/ns2/eventtrace.py, the engine's
tcp/sender/ns2_events.rs): the TCP agents' `E` lines in the trace-all file, compared with
ns-2.35 where it is installed; and what is refused in one line."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli, trace_events

# Tahoe, Reno, NewReno and Sack1 senders through one small bottleneck queue: its overflows
# give fast retransmits (FAST_RETX, RENO_FAST_RETX, NEWRENO_FAST_RETX with its
# NEWRENO_FAST_RECOVERY lines, FAST_RECOVERY), timeouts and slow starts. The TCP agent made
# before eventtrace-all writes no E line (fid 9).
SCRIPT = """\
set ns [new Simulator]
set f [open all.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 1ms DropTail
$ns duplex-link $n1 $n2 800Kb 40ms DropTail
$ns queue-limit $n1 $n2 7
set early [$ns create-connection TCP/Reno $n0 TCPSink $n2 9]
$early set window_ 8
$ns eventtrace-all
set fid 1
foreach kind {TCP TCP/Reno TCP/Newreno TCP/Sack1} sink {TCPSink TCPSink TCPSink TCPSink/Sack1} {
  set tcp [$ns create-connection $kind $n0 $sink $n2 $fid]
  $tcp set window_ 24
  $ns at [expr {0.1 * $fid}] "[$tcp attach-app FTP] start"
  incr fid
}
$ns at 0.3 "[$early attach-app FTP] start"
$ns at 6 "close $f; exit 0"
$ns run
"""


@needs_ns
def test_event_lines_as_ns2(tmp_path: Path) -> None:
    script = tmp_path / "ev.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir = run_both(script, tmp_path=tmp_path)[:2]
    ours = [ln for ln in trace_events(bl_dir / "all.tr") if ln[0] == "E"]
    theirs = [ln for ln in trace_events(ns_dir / "all.tr") if ln[0] == "E"]
    assert ours == theirs
    kinds = {ln[5] for ln in ours}
    assert {"FAST_RETX", "RENO_FAST_RETX", "NEWRENO_FAST_RETX", "FAST_RECOVERY"} <= kinds
    assert "SLOW_START" in kinds and "9" not in {ln[6] for ln in ours}
    # the whole file, packet lines and E lines in their order
    assert (bl_dir / "all.tr").read_bytes() == (ns_dir / "all.tr").read_bytes()


def _refusal(tmp_path: Path, text: str) -> str:
    script = tmp_path / "r.tcl"
    script.write_text(text)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_unmodelled_event_traces_are_refused(tmp_path: Path) -> None:
    base = (
        "set ns [new Simulator]\nset f [open all.tr w]\n$ns trace-all $f\n"
        "set n0 [$ns node]; set n1 [$ns node]\n$ns duplex-link $n0 $n1 1Mb 10ms DropTail\n"
    )
    vegas = (
        base + "$ns eventtrace-all\nset t [$ns create-connection TCP/Vegas $n0 TCPSink $n1 1]\n"
        '$ns at 0 "[$t attach-app FTP] start"\n$ns at 1 "exit 0"\n$ns run\n'
    )
    line = _refusal(tmp_path, vegas)
    assert "Agent/TCP/Vegas" in line and "not modelled" in line
    other = base + "set g [open other.tr w]\n$ns eventtrace-all $g\n$ns run\n"
    assert "not modelled" in _refusal(tmp_path, other)
