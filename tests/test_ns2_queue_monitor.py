"""ns-2's queue monitors as scripts use them while the run goes on: the integrators read, reset
and extended (`$int set sum_ 0`, `newpoint`, `lastx_`, `lasty_`; crates/bufferlab-core/src/
monitor/ns2_integrator.rs), the link's own samples (`queue-sample-timeout`), `$ns
detach-agent`, the traffic generators' `packet_size_` and CBR's `interval_`, and variables
read back as ns-2 prints them. Each compared with ns-2.35 where it is installed, and checked
without it where a property says enough."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from conftest import ROOT, assert_prints_as_ns2, needs_ns, run_both, run_cli, trace_events

EX = ROOT / "examples" / "ns2"

# A Reno flow from n0 to n2 (its FTP not started) over a 10 Mb/s, 2 ms access link and a 1 Mb/s,
# 10 ms bottleneck of LIMIT packets.
RENO_PATH = """\
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 10ms DropTail
$ns queue-limit $n1 $n2 LIMIT
set tcp [new Agent/TCP/Reno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
"""

# A Reno flow fills a 20-packet queue; a proc prints the mean queue of each second from the
# packet integrator and resets it, as the tutorials average a queue over intervals.
RESET_EACH_SECOND = (
    "set ns [new Simulator]\n"
    + RENO_PATH.replace("LIMIT", "20")
    + """\
set qm [$ns monitor-queue $n1 $n2 ""]
set pint [$qm get-pkts-integrator]
set last 0
proc sample {} {
    global ns pint qm last
    set now [$ns now]
    puts "$now [expr [$pint set sum_] / ($now - $last)] [$qm set pkts_]"
    $pint set sum_ 0.0
    set last $now
    $ns at [expr $now + 1.0] "sample"
}
$ns at 0.0 "$ftp start"
$ns at 1.0 "sample"
$ns at 8.5 "exit 0"
$ns run
"""
)

# The integrators' own variables, and a newpoint at another height (the script's brackets
# are substituted when the event is scheduled, at time 0: `newpoint 0 0` at 0.1 s, which
# takes the piece since the last change off the sum, as in ns-2).
INTEGRATOR_VARIABLES = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set qm [$ns monitor-queue $n0 $n1 ""]
set pint [$qm get-pkts-integrator]
set bint [$qm get-bytes-integrator]
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set null [new Agent/Null]
$ns attach-agent $n1 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set rate_ 2Mb
proc show {} {
    global pint bint ns
    puts "[$ns now] [$pint set sum_] [$pint set lasty_] [$pint set lastx_] [$bint set sum_]"
}
$ns at 0.0 "show"
$ns at 0.0 "$cbr start"
$ns at 0.05 "show"
$ns at 0.1 "show; $pint newpoint [$ns now] [$pint set lasty_]; show; $pint set sum_ 0; show"
$ns at 0.2 "show"
$ns at 0.3 "exit 0"
$ns run
"""


def _script(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_reset_integrator_averages_each_interval(tmp_path: Path) -> None:
    """Without ns-2: a mean over one second cannot exceed the 20-packet limit (when a reset
    was ignored, the sums ran on: 29, 45, ... packets)."""
    r = run_cli("run", str(_script(tmp_path, "reset.tcl", RESET_EACH_SECOND)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    means = [float(line.split()[1]) for line in r.stdout.splitlines()]
    assert len(means) == 8
    assert all(0 < m <= 20 for m in means), means


@needs_ns
def test_reset_integrators_print_as_ns2(tmp_path: Path) -> None:
    out = assert_prints_as_ns2(_script(tmp_path, "r.tcl", RESET_EACH_SECOND), cwd=tmp_path)
    assert out.splitlines()[1].startswith("2 16.0770")  # the second second's own mean


@needs_ns
def test_integrator_variables_and_newpoint_are_ns2s_doubles(tmp_path: Path) -> None:
    out = assert_prints_as_ns2(_script(tmp_path, "i.tcl", INTEGRATOR_VARIABLES), cwd=tmp_path)
    # every digit of ns-2's doubles, the negative sum the newpoint leaves included
    assert "0.73080000000000023" in out and "-2.0260799999999963" in out


def _outputs(cwd: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(cwd.iterdir()) if p.is_file()}


@needs_ns
def test_the_queue_sample_example_writes_ns2s_files(tmp_path: Path) -> None:
    """examples/ns2/queue_sample.tcl: the link's own samples (qm.out), the sink's throughput
    and what it prints, byte for byte, with both agents detached before the end."""
    ns_dir, bl_dir, _ = run_both(EX / "queue_sample.tcl", "8", tmp_path=tmp_path)
    mine, theirs = _outputs(bl_dir), _outputs(ns_dir)
    assert mine == theirs
    samples = mine["qm.out"].splitlines()
    assert len(samples) == 81  # 0 to 8 s every 0.1 s (the last at 7.9999999999999876 s)
    assert any(float(s.split()[3]) > 0 for s in samples)  # the queue was not always empty


DETACH = (
    "set ns [new Simulator]\nset tf [open det.tr w]\n$ns trace-all $tf\n"
    + RENO_PATH.replace("LIMIT", "10")
    + """\
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n2 $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set rate_ 200Kb
proc show {} {
    global ns sink lm tcp
    puts "[$ns now] [$sink set bytes_] [$lm set npkts_] [$tcp set ack_] [$tcp set cwnd_]"
}
$ns at 0.0 "$ftp start; $cbr start"
$ns at 2.0 "show; $ns detach-agent $n2 $sink"
$ns at 2.5 "show; $ns detach-agent $n2 $lm"
$ns at 3.0 "show"
$ns at 9.0 "show; close $tf; exit 0"
$ns run
"""
)


def test_a_detached_sink_receives_nothing_more(tmp_path: Path) -> None:
    r = run_cli("run", str(_script(tmp_path, "d.tcl", DETACH)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines()]
    assert [row[0] for row in rows] == ["2", "2.5", "3", "9"]
    # the sink's bytes and the sender's ACK stop at the detach; the sender backs off to 1
    assert len({row[1] for row in rows}) == 1 and len({row[3] for row in rows}) == 1
    assert rows[-1][4] == "1"
    # the loss monitor counted until its own detach half a second later, then stopped
    assert int(rows[1][2]) > int(rows[0][2]) and rows[1][2] == rows[3][2]
    # the sender still retransmits into the network: the trace goes on after 2.5 s
    last = (tmp_path / "det.tr").read_text().splitlines()[-1]
    assert float(last.split()[1]) > 5


@needs_ns
def test_detach_agent_is_ns2s_event_for_event(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = run_both(_script(tmp_path, "d.tcl", DETACH), tmp_path=tmp_path)

    assert trace_events(bl_dir / "det.tr") == trace_events(ns_dir / "det.tr")


CBR_VARIABLES = """\
set ns [new Simulator]
set cbr [new Application/Traffic/CBR]
puts "[$cbr set rate_] [$cbr set interval_] [$cbr set packetSize_] [$cbr set packet_size_]"
$cbr set packet_size_ 1000
$cbr set rate_ 1mb
puts "[$cbr set rate_] [$cbr set interval_] [$cbr set packetSize_]"
$cbr set interval_ 0.005
puts "[$cbr set rate_] [$cbr set interval_]"
$cbr set interval_ 3ms
$cbr set packetSize_ 500
puts "[$cbr set rate_] [$cbr set interval_]"
set e [new Application/Traffic/Pareto]
puts "[$e set shape_] [$e set burst_time_] [$e set idle_time_] [$e set rate_]"
set s [new Agent/TCPSink/DelAck]
set tcp [new Agent/TCP]
$tcp set window_ 20
puts "[$s set interval_] [$tcp set window_] [$tcp set tcpTick_] [$tcp set maxrto_]"
"""


@needs_ns
def test_variables_read_back_as_ns2_prints_them(tmp_path: Path) -> None:
    """448Kb reads 448000, 500ms 0.5, 100ms 0.10000000000000001; packet_size_ is packetSize_
    and an interval_ given to a CBR sets its rate_ (ns-lib's Application/Traffic set)."""
    out = assert_prints_as_ns2(_script(tmp_path, "v.tcl", CBR_VARIABLES), cwd=tmp_path)
    assert out.splitlines()[0] == "448000 0.0037499999999999999 210 210"


SIZED_CBR = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 10Mb 1ms DropTail
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n1 $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packet_size_ 1000
$cbr set interval_ 0.01
$ns at 0.0 "$cbr start"
$ns at 1.005 {puts "[$lm set npkts_] [$lm set bytes_]"; exit 0}
$ns run
"""


def test_packet_size_and_interval_shape_the_cbr_flow(tmp_path: Path) -> None:
    """Without ns-2: 1000-byte packets every 10 ms (packet_size_ was ignored before: 210)."""
    r = run_cli("run", str(_script(tmp_path, "c.tcl", SIZED_CBR)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout.split() == ["101", "101000"]


@pytest.mark.parametrize("ending", ["exit 0\n", ""])
def test_files_the_script_leaves_open_are_written(tmp_path: Path, ending: str) -> None:
    """ns-2 ends with Tcl's exit, which flushes and closes every channel: so does bufferlab,
    with or without the script's `exit`."""
    script = _script(tmp_path, "o.tcl", "set f [open left.txt w]\nputs $f hello\n" + ending)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert (tmp_path / "left.txt").read_text() == "hello\n"


# RED's variable traces as the RED examples make them: the average and the current queue of
# a byte-mode RED bottleneck, to one file (red.cc REDQueue::trace).
RED_TRACE = (
    "set ns [new Simulator]\n"
    + RENO_PATH.replace("1Mb 10ms DropTail", "1Mb 10ms RED").replace("LIMIT", "25")
    + """\
set redq [[$ns link $n1 $n2] queue]
set tchan_ [open all.q w]
$redq trace curq_
$redq trace ave_
$redq attach $tchan_
$ns at 0.0 "$ftp start"
$ns at 3.0 "close $tchan_; exit 0"
$ns run
"""
)


def test_red_traces_its_average_and_queue(tmp_path: Path) -> None:
    """Without ns-2: `a TIME AVE` and `Q TIME BYTES` lines at each change, in time order, the
    queue in whole packets of 1040 bytes (byte mode), the average below the limit."""
    r = run_cli("run", str(_script(tmp_path, "red.tcl", RED_TRACE)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = [ln.split() for ln in (tmp_path / "all.q").read_text().splitlines()]
    assert {ln[0] for ln in lines} == {"a", "Q"}
    times = [float(ln[1]) for ln in lines]
    assert times == sorted(times) and times[0] > 0.06
    queues = [int(ln[2]) for ln in lines if ln[0] == "Q"]
    assert all(q % 1040 == 0 and 0 <= q <= 25 * 1040 for q in queues)
    assert all(a != b for a, b in pairwise(queues))  # changes only
    assert all(0 < float(ln[2]) < 25 * 1040 for ln in lines if ln[0] == "a")


# A packet-mode RED (thresholds 5/15, q_weight_ 0.002) under a NewReno flow with a DelAck sink
# and a 500-byte CBR, 20 s: the average and queue in packets.
RED_TRACE_PACKETS = """\
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set q_weight_ 0.002
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns duplex-link $n0 $n2 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 10Mb 3ms DropTail
$ns duplex-link $n2 $n3 1.5Mb 20ms RED
$ns queue-limit $n2 $n3 30
set tcp [new Agent/TCP/Newreno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
set udp [new Agent/UDP]
$ns attach-agent $n1 $udp
set null [new Agent/Null]
$ns attach-agent $n3 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 500
$cbr set rate_ 800Kb
set redq [[$ns link $n2 $n3] queue]
set tchan_ [open all.q w]
$redq trace ave_
$redq trace curq_
$redq attach $tchan_
$ns at 0.0 "$ftp start"
$ns at 1.0 "$cbr start"
$ns at 15.0 "$cbr stop"
$ns at 20.0 "close $tchan_; exit 0"
$ns run
"""


@needs_ns
@pytest.mark.parametrize(("text", "lines"), [(RED_TRACE, 385), (RED_TRACE_PACKETS, 8074)])
def test_red_traces_are_ns2s(tmp_path: Path, text: str, lines: int) -> None:
    ns_dir, bl_dir, _ = run_both(_script(tmp_path, "red.tcl", text), tmp_path=tmp_path)
    ours = (bl_dir / "all.q").read_text()
    assert ours == (ns_dir / "all.q").read_text()
    assert len(ours.splitlines()) == lines
