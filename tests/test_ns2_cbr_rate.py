"""A CBR's `interval_`, `rate_` and `packetSize_` set by the script while the run goes on, as a
script of ours shows under ns-2.35 and bufferlab.

ns-2.35 (tools/cbr_traffic.cc, trafgen.cc): ns-lib's `Application/Traffic/CBR instproc set`
makes `interval_` a `rate_` (packetSize_ x 8 / interval); both variables are bound to C++ and
the timer already set is not touched. `TrafficGenerator::timeout` sends `size_` as it is when
the timer expires, then `next_interval` recomputes `interval_ = (size_ << 3) / rate_`: the
packet pending keeps its time (and goes out with the new size), the gap after it is the new
one. The quiescent suite's `tcp_cbr` does it to a CBR over a Sack1 agent."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from conftest import needs_ns, run_both, trace_events

# A CBR over UDP changed mid-gap (0.505 s, between its packets at 0.50 and 0.51 s), by
# packetSize_ and by rate_; a CBR over a Sack1 agent changed twice; both through a 1.5 Mb/s
# bottleneck they overload at times.
SCRIPT = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 20
set udp [$ns create-connection UDP $n0 Null $n2 1]
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set packetSize_ 200
$cbr set interval_ 0.01
set tcp [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
$tcp set packetSize_ 500
set cbr2 [new Application/Traffic/CBR]
$cbr2 attach-agent $tcp
$cbr2 set packetSize_ 500
$cbr2 set interval_ 0.02
proc show {} {
    global ns cbr cbr2
    puts "[$ns now] [$cbr set interval_] [$cbr set rate_] [$cbr set packetSize_]\
 [$cbr2 set interval_]"
}
$ns at 0.01 "$cbr start"
$ns at 0.05 "$cbr2 start"
$ns at 0.505 "$cbr set interval_ 0.002; show"
$ns at 1.0 "$cbr2 set interval_ 0.004"
$ns at 1.503 "$cbr set packetSize_ 400; show"
$ns at 2.0 "$cbr set rate_ 100kb; show"
$ns at 2.5 "$cbr2 set rate_ 1Mb; show"
$ns at 4 "close $f; exit 0"
$ns run
"""


def _sends(lines: list[list[str]], kind: str) -> list[tuple[float, int]]:
    """(time, size) of each packet of `kind` entering the first link at n0."""
    return [
        (float(x[1]), int(x[5]))
        for x in lines
        if x[0] == "+" and x[2] == "0" and x[3] == "1" and x[4] == kind
    ]


@needs_ns
def test_cbr_interval_rate_and_size_changed_during_the_run_are_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "cbr_rate.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    # interval_ reads back from the new rate_ (ns-lib: packetSize_ x 8 / rate_)
    assert out.splitlines()[0] == "0.505 0.002 800000 200 0.02"
    lines = trace_events(bl_dir / "out.tr")
    cbr = _sends(lines, "cbr")
    times = [round(t, 6) for t, _ in cbr]
    # the packet pending at 0.505 keeps its time (0.51), the next comes 2 ms after it: not
    # at 0.507 (a timer rescheduled from the change) nor 0.512 - 0.01
    i = times.index(0.51)
    assert times[i - 1] == 0.5 and times[i + 1] == 0.512
    # packetSize_ 400 at 1.503: the packet pending then (1.504) goes out with it, and the
    # gap after it is 400 x 8 / rate_ (4 ms)
    assert [(round(t, 6), s) for t, s in cbr if 1.4995 < t < 1.509] == [
        (1.5, 200),
        (1.502, 200),
        (1.504, 400),
        (1.508, 400),
    ]
    # rate_ 100kb at 2 s: 400 B every 32 ms from the packet after the one pending
    gaps = {round(b - a, 6) for a, b in pairwise(times) if a > 2.1}
    assert gaps == {0.032}
    # the Sack1 agent's writes follow its CBR: faster from 1 s, and losses on the way
    tcp = [t for t, _ in _sends(lines, "tcp") if 1.1 < t < 1.2]
    assert len(tcp) >= 20
    assert any(x[0] == "d" for x in lines)
