"""Finite TCP transfers from ns-2 scripts: `$ftp send NBYTES`, `$ftp produce N`,
`$ftp producemore N`, `$tcp advance N` / `advanceby N` (ns-2.35 tcp.cc sendmsg, advance,
advanceby; tcl/lib/ns-source.tcl), through the engine's Session.set_data: the first write
starts a held connection, later ones continue it after it went idle. Checked against ns-2.35
where `ns` is installed, and on their own (a send of N bytes delivers ceil(N / size_)
packets)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import ROOT, needs_ns, run_cli, run_ns

EX = ROOT / "examples" / "ns2" / "short_transfers.tcl"
needs_set_data = pytest.mark.skipif(
    not hasattr(getattr(_core, "Session", None), "set_data"),
    reason="the compiled core has no Session.set_data yet (make build)",
)

HEAD = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
$ns queue-limit $n0 $n1 10
set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
"""

# One Reno flow written to by FTP's send, produce and producemore (produce after the opening
# packet: curseq_ set to N, so data up to N - 1), and a NewReno agent with 500-byte packets
# and no application written to by advance, advanceby and send; a proc schedules one more
# send. A poller prints ack_, t_seqno_ and cwnd_ of both whenever one changes (10 ms), so the
# idle timeouts (cwnd_ 1 an RTO after the last ACK) show.
CONTINUE = (
    HEAD
    + """\
set tcp2 [new Agent/TCP/Newreno]
$tcp2 set packetSize_ 500
set sink2 [new Agent/TCPSink]
$ns attach-agent $n0 $tcp2
$ns attach-agent $n1 $sink2
$ns connect $tcp2 $sink2
set last ""
proc poll {} {
	global ns tcp tcp2 last
	set now [$ns now]
	set s "[$tcp set ack_] [$tcp set t_seqno_] [$tcp set cwnd_] |\\
		[$tcp2 set ack_] [$tcp2 set t_seqno_] [$tcp2 set cwnd_]"
	if {$s != $last} { puts [format "%.2f %s" $now $s]; set last $s }
	$ns at [expr $now + 0.01] "poll"
}
proc later {} {
	global ns ftp
	$ns at [expr [$ns now] + 0.5] "$ftp send 1"
}
proc finish {} {
	global sink sink2
	puts "end [$sink set bytes_] [$sink2 set bytes_]"
	exit 0
}
$ns at 0.1 "$ftp send 2500"
$ns at 0.3 "$ftp produce 10"
$ns at 2.0 "$ftp producemore 5"
$ns at 2.05 "$ftp producemore 30"
$ns at 0.2 "$tcp2 advance 20"
$ns at 0.25 "$tcp2 advanceby 15"
$ns at 1.5 "$tcp2 send 100000"
$ns at 3.0 "later"
$ns at 0.0 "poll"
$ns at 5 "finish"
$ns run
"""
)


# Writes before and after a `$ftp start` scheduled before $ns run (which then makes the
# agent send without end: FTP start is `send -1`), one while the first is in flight, one after
# the connection went idle; the agent's class and variables are filled in per case.
STARTED_LATER = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
$ns queue-limit $n0 $n1 8
set tcp [new AGENT]
EXTRA
set sink [new SINK]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
set last ""
proc poll {} {
	global ns tcp last
	set now [$ns now]
	set s "[$tcp set ack_] [$tcp set t_seqno_] [$tcp set cwnd_]"
	if {$s != $last} { puts [format "%.2f %s" $now $s]; set last $s }
	$ns at [expr $now + 0.01] "poll"
}
$ns at 0.1 "$ftp send 30000"
$ns at 0.25 "$ftp send 5000"
$ns at 1.5 "$ftp producemore 3"
$ns at 2.0 "$ftp start"
$ns at 2.3 "$ftp send 10"
$ns at 0.0 "poll"
$ns at 2.5 "exit 0"
$ns run
"""


def _started_later(agent: str, sink: str, extra: str) -> str:
    return STARTED_LATER.replace("AGENT", agent).replace("SINK", sink).replace("EXTRA", extra)


@needs_ns
@needs_set_data
@pytest.mark.parametrize(
    ("agent", "sink", "extra", "lines"),
    [
        ("Agent/TCP", "Agent/TCPSink", "$tcp set windowInit_ 4", 73),
        ("Agent/TCP/Sack1", "Agent/TCPSink/Sack1", "$tcp set packetSize_ 1460", 65),
    ],
)
def test_writes_around_a_scheduled_start_as_ns2(
    tmp_path: Path, agent: str, sink: str, extra: str, lines: int
) -> None:
    """ns-2.35 and bufferlab print the same lines (ack_, t_seqno_, cwnd_ at each change;
    2026-11-27)."""
    script = tmp_path / "later.tcl"
    script.write_text(_started_later(agent, sink, extra))
    ns = run_ns(script, cwd=tmp_path)
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert len(ns.stdout.splitlines()) == lines
    assert r.stdout == ns.stdout


def _finish_lines(text: str) -> dict[int, tuple[int, int, int]]:
    return {
        int(m[0]): (int(m[1]), int(m[2]), int(m[3]))
        for m in re.findall(r"flow (\d) ack_ (\d+) t_seqno_ (\d+) bytes_ (\d+)", text)
    }


@needs_ns
@needs_set_data
def test_short_transfers_as_ns2(tmp_path: Path) -> None:
    """examples/ns2/short_transfers.tcl (10 KB then 100 KB more on one connection, 1 MB,
    100 + 50 packets, over a 2 Mb/s DropTail bottleneck with losses): every transfer's start,
    completion time (polled every 10 ms), ack_ and t_seqno_ is ns-2.35's, line for line, and
    so is each sink's bytes_, which counts what it delivered in order (tcp-sink.cc,
    Acker::update), not the duplicates of a go-back-N (13 retransmissions here)."""
    for end in ("10", "4"):
        ns = run_ns(EX, end, cwd=tmp_path)
        assert ns.returncode == 0, ns.stderr
        r = run_cli("run", str(EX), end, cwd=tmp_path)
        assert r.code == 0, r.stderr
        a = [ln for ln in ns.stdout.splitlines() if not ln.startswith("flow ")]
        b = [ln for ln in r.stdout.splitlines() if not ln.startswith("flow ")]
        assert a == b
        fa, fb = _finish_lines(ns.stdout), _finish_lines(r.stdout)
        assert fa.keys() == fb.keys() == {0, 1, 2}
        assert fa == fb
    done = [ln for ln in r.stdout.splitlines() if " done " in ln]
    assert len(done) == 3  # the 4 s run: flow 1's 1 MB is not done by then


@needs_ns
@needs_set_data
def test_continued_connections_as_ns2(tmp_path: Path) -> None:
    """The CONTINUE script under ns-2.35 and bufferlab (2026-11-27): the same 156 lines of
    ack_, t_seqno_ and cwnd_ (each idle timeout's cwnd_ 1 included) but one, which comes one
    poll (10 ms) later: an ACK that arrives at exactly 0.64 s in both (their trace-all
    lines agree in event, time, nodes, type and size), which ns-2 runs before the poll of
    that instant (scheduled after it) and bufferlab after it (the script's event of an
    instant comes first)."""
    script = tmp_path / "continue.tcl"
    script.write_text(CONTINUE)
    ns = run_ns(script, cwd=tmp_path)
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    a, b = ns.stdout.splitlines(), r.stdout.splitlines()
    assert len(a) == len(b) == 157
    later = []
    for x, y in zip(a[:-1], b[:-1], strict=True):
        (tx, rest_x), (ty, rest_y) = x.split(" ", 1), y.split(" ", 1)
        assert rest_x == rest_y, (x, y)
        if tx != ty:
            later.append((float(tx), float(ty)))
    assert len(later) <= 1 and all(0 < ty - tx < 0.011 for tx, ty in later), later
    # the 500-byte agent retransmits; its sink's bytes_ counts what it delivered in order
    assert a[-1] == b[-1]


@needs_set_data
def test_a_send_delivers_ceil_of_its_bytes_in_packets(tmp_path: Path) -> None:
    """sendmsg adds ceil(nbytes / size_) packets: 25 500 bytes are 26 packets of 1000 bytes
    (1040 on the wire), after the 40-byte opening packet; nothing is sent before the first
    write; `send 0` sends nothing; a later advanceby on the agent (no application) goes on
    with the same connection."""
    script = tmp_path / "ceil.tcl"
    script.write_text(
        HEAD.replace("queue-limit $n0 $n1 10", "queue-limit $n0 $n1 100")
        + """\
set tcp2 [new Agent/TCP/Reno]
set sink2 [new Agent/TCPSink]
$ns attach-agent $n0 $tcp2
$ns attach-agent $n1 $sink2
$ns connect $tcp2 $sink2
proc show {what} {
	global ns tcp sink tcp2
	puts "$what [$tcp set ack_] [$tcp set t_seqno_] [$sink set bytes_]\\
		[$tcp2 set ack_] [$tcp2 set t_seqno_]"
}
proc more {} {
	global ns tcp2
	$tcp2 advanceby 4
}
$ns at 0.05 "show before"
$ns at 0.1 "$ftp send 0"
$ns at 0.15 "show zero"
$ns at 0.2 "$ftp send 25500"
$ns at 1.0 "$tcp2 advance 3"
$ns at 1.5 "more"
$ns at 2.9 "show end"
$ns at 3 "exit 0"
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0] == "before -1 0 0 -1 0"
    assert lines[1] == "zero -1 0 0 -1 0"
    assert lines[2] == f"end 26 27 {26 * 1040 + 40} 7 8"


@needs_set_data
def test_what_is_not_modelled_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "stop.tcl"
    script.write_text(
        HEAD
        + """\
$ns at 0.1 "$ftp send 5000"
$ns at 0.5 "$ftp stop"
$ns at 1.0 "$ftp send 5000"
$ns at 2 "exit 0"
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: stop.tcl:"), r.stderr
    assert "send 5000 at 1 s: more data after $app stop is not modelled" in err[0]
    script.write_text(
        HEAD
        + """\
set udp [new Agent/UDP]
set null [new Agent/Null]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$ns at 0.1 "$cbr send 1000"
$ns at 2 "exit 0"
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "finite sends are modelled for FTP over TCP" in err[0], r.stderr
    # ns-2's Vegas agent times out while idle (tcp-vegas.cc timeout()): not modelled
    script.write_text(_started_later("Agent/TCP/Vegas", "Agent/TCPSink", ""))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "producemore 3 at 1.5 s: more data for a Vegas agent" in err[0]
