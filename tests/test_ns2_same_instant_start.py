"""An application's start given before `$ns run` and the script's events of the same instant
run in the order the script scheduled them, as a script of ours shows under ns-2.35 and
bufferlab.

ns-2.35's scheduler (common/scheduler.cc) numbers events as they are scheduled and queues an
event after those of its time already queued (`CalendarScheduler::insert`): `$ns at 0 "$fa
start"` written before `$ns at 0 "$fb produce 20"` sends fa's first packet first, and a proc
of that instant scheduled after the start reads the agent after it sent. bufferlab's flow
starts are the engine's; the runner starts those scheduled before each script event of
their instant first (python/bufferlab/ns2/same_instant.py, `Session::start_due`), before the
script gets the default RNG, from which a start with `overhead_` draws.
test-suite-adaptive-red.tcl's red3, red3Adapt and red4Adapt turn on it."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, trace_events

# Five Reno agents and a CBR on n0 sharing the first link: fa's start before fb's first
# writes at 0; fc's start at 0.3 before fb's more data, and at 0.3 a start after them
# (fd), fc drawing its send delays from the default RNG (overhead_); the CBR's start at 0.5
# before fe's first write; procs of those instants read what the agents sent and draw.
SCRIPT = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 15
set a [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
set b [$ns create-connection TCP/Reno $n0 TCPSink $n2 2]
set c [$ns create-connection TCP/Reno $n0 TCPSink $n2 3]
set d [$ns create-connection TCP/Reno $n0 TCPSink $n2 4]
set e [$ns create-connection TCP/Reno $n0 TCPSink $n2 6]
foreach x {a b c d e} { set f$x [[set $x] attach-app FTP] }
# fc's sends are delayed by Random::uniform(overhead_) draws from the default RNG
$c set overhead_ 0.01
set udp [$ns create-connection UDP $n0 Null $n2 5]
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 300
$cbr set interval_ 0.01
proc draw {what} {
    puts "0.3 $what drew, then [ns-random]"
}
proc show {what ag} {
    global ns
    puts "[$ns now] $what t_seqno_ [$ag set t_seqno_] maxseq_ [$ag set maxseq_]"
}
$ns at 0.0 "$fa start"
$ns at 0.0 "show a $a"
$ns at 0.0 "$fb produce 20"
$ns at 0.3 "$fc start"
$ns at 0.3 "$fb producemore 30"
$ns at 0.3 "draw c"
$ns at 0.3 "show d $d"
$ns at 0.3 "$fd start"
$ns at 0.5 "$cbr start"
$ns at 0.5 "$fe produce 10"
$ns at 3 "close $f; exit 0"
$ns run
"""


@needs_ns
def test_a_start_before_a_script_event_of_its_instant_runs_first(tmp_path: Path) -> None:
    script = tmp_path / "same_instant.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert (bl_dir / "out.tr").read_bytes() == (ns_dir / "out.tr").read_bytes()
    # the procs after a start of their instant see its first packet sent; before one, not
    assert out.splitlines() == [
        "0 a t_seqno_ 1 maxseq_ 0",
        "0.3 c drew, then 1795991119",
        "0.29999999999999999 d t_seqno_ 0 maxseq_ -1",
    ]
    lines = trace_events(bl_dir / "out.tr")
    first = [x for x in lines if x[0] == "+" and x[2] == "0"]
    # flow ids of the first packets queued at n0 at 0, 0.3 and 0.5 s: in the script's order
    at = {t: [x[7] for x in first if x[1] == t] for t in ("0", "0.3", "0.5")}
    assert at["0"][:2] == ["1", "2"]
    # fc's first packet waits for its overhead_ draw; fd's start comes after fb's burst
    assert at["0.3"][0] == "2" and at["0.3"][-1] == "4" and "3" not in at["0.3"]
    assert at["0.5"][:2] == ["5", "6"]
