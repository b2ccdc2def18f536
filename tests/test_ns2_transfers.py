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
from conftest import (
    NS,
    ONE_FTP_FLOW,
    ROOT,
    assert_prints_as_ns2,
    assert_script_refused,
    needs_ns,
    run_cli,
    run_ns,
)

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


TRANSFERS_DONE = ROOT / "examples" / "ns2" / "transfers_done.tcl"


@needs_ns
@needs_set_data
def test_done_and_restarted_ftp_as_ns2(tmp_path: Path) -> None:
    """examples/ns2/transfers_done.tcl: four transfers chained by `$tcp done` (each done asks
    for the next with producemore) and a bulk FTP stopped (`advance 0`: its done comes when a
    new ACK reaches maxseq_ - 1) and started again, which goes on with the same connection:
    ns-2.35 and bufferlab print the same 9 lines (2026-11-27)."""
    assert len(assert_prints_as_ns2(TRANSFERS_DONE, cwd=tmp_path).splitlines()) == 9


@needs_set_data
def test_done_follows_each_transfer(tmp_path: Path) -> None:
    """Without ns: `done` runs after the new ACK that covers the data (ack_ is curseq_ - 1
    then); producemore (advanceby) reopens it, `$ftp send` (sendmsg) does not; FTP stop
    (`advance 0`) after `$ftp start` (`advance 268435456` for attach-source's Source/FTP)
    brings one more when the last ACK comes. ns-2.35 prints `done 0.1946 5`, `done 1.0656 8`,
    `done 2.7130 52` and `at 2.5 34 52`, `at 3.4 52 52`, `at 4.9 53 53` for this script
    (2026-11-27)."""
    script = tmp_path / "done.tcl"
    script.write_text(
        HEAD
        + """\
$tcp proc done {} {
\tglobal ns
\tputs [format "done %.4f %d" [$ns now] [$self set ack_]]
}
proc show {} {
\tglobal ns tcp
\tputs [format "at %.1f %d %d" [$ns now] [$tcp set ack_] [$tcp set maxseq_]]
}
$ns at 0.1 "$ftp send 5000"
$ns at 1.0 "$ftp producemore 3"
$ns at 2.0 "$ftp start"
$ns at 2.5 "$ftp stop"
$ns at 2.5 "show"
$ns at 3.4 "show"
$ns at 3.5 "$ftp send 2000"
$ns at 4.9 "show"
$ns at 5 "exit 0"
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = [ln.split() for ln in r.stdout.splitlines()]
    done = [(float(ln[1]), int(ln[2])) for ln in lines if ln[0] == "done"]
    shown = [(float(ln[1]), int(ln[2]), int(ln[3])) for ln in lines if ln[0] == "at"]
    assert [a for _, a in done[:2]] == [5, 8]
    assert 0.1 < done[0][0] < 1.0 < done[1][0] < 2.0
    # the stop at 2.5 s: curseq_ = maxseq_, done at the ACK of maxseq_ - 1 or beyond
    maxseq_at_stop = shown[0][2]
    assert len(done) == 3 and 2.5 < done[2][0] < 3.4 and done[2][1] >= maxseq_at_stop - 1
    # the send after it adds two packets to curseq_ (= maxseq_ since the stop), so one more
    # goes out (t_seqno_ < curseq_), acknowledged by 4.9 s; no done follows (sendmsg)
    assert shown[2][1] == shown[2][2] == maxseq_at_stop + 1


@needs_set_data
def test_what_is_not_modelled_exits_2(tmp_path: Path) -> None:
    cbr = HEAD.removeprefix("set ns [new Simulator]\n") + (
        "set udp [new Agent/UDP]\n"
        "set null [new Agent/Null]\n"
        "$ns attach-agent $n0 $udp\n"
        "$ns attach-agent $n1 $null\n"
        "$ns connect $udp $null\n"
        "set cbr [new Application/Traffic/CBR]\n"
        "$cbr attach-agent $udp\n"
        '$ns at 0.1 "$cbr send 1000"\n'
        '$ns at 2 "exit 0"\n'
        "$ns run\n"
    )
    # the send runs at 0.1 s inside `$ns run`, the script's last line (after the first)
    line = len(cbr.splitlines()) + 1
    assert_script_refused(tmp_path, cbr, line, "finite sends are modelled for FTP over TCP")
    # ns-2's Vegas agent times out while idle (tcp-vegas.cc timeout()): not modelled
    body = _started_later("Agent/TCP/Vegas", "Agent/TCPSink", "")
    assert body.startswith("set ns [new Simulator]\n")
    line = body.splitlines().index("$ns run") + 1
    assert_script_refused(
        tmp_path,
        body.removeprefix("set ns [new Simulator]\n"),
        line,
        "producemore 3 at 1.5 s: more data for a Vegas agent",
    )


# An Application/FTP and an attach-source FTP (Source/FTP) started and stopped by `$ns at`
# events given before $ns run, their `seqno_` (tcp.cc curseq_) read on the way, and the first
# agent's `done` after its stop.
STATIC_STOP = (
    ONE_FTP_FLOW
    + """\
set tcp2 [new Agent/TCP]
set sink2 [new Agent/TCPSink]
$ns attach-agent $n0 $tcp2
$ns attach-agent $n1 $sink2
$ns connect $tcp2 $sink2
set src [$tcp2 attach-source FTP]
proc show {} {
	global ns tcp tcp2
	puts "[$ns now] [$tcp set seqno_] [$tcp2 set seqno_] max [$tcp set maxseq_]\\
		[$tcp2 set maxseq_] ack [$tcp set ack_] [$tcp2 set ack_]"
}
$ns at 0.29 show
$ns at 0.31 show
$ns at 0.1 "$ftp start"
$ns at 0.1 "$src start"
$ns at 0.2 show
$ns at 0.3 "$ftp stop"
$ns at 0.3 "$src stop"
$ns at 0.4 show
$tcp proc done {} { global ns; puts [format "done %.6f %d" [$ns now] [$self set ack_]] }
$ns at 2 "exit 0"
$ns run
"""
)


@needs_set_data
def test_seqno_and_done_after_a_stop_given_before_the_run(tmp_path: Path) -> None:
    """`seqno_` is 0 before anything, TCP_MAXSEQ + 1 (Source/FTP: 268435456 + 1) once started
    (the opening packet adds one), maxseq_ after the stop (`advance 0`), and `done` comes after
    the stop when a new ACK reaches maxseq_ - 1. ns-2.35 prints these same 5 lines
    (2026-11-27)."""
    (tmp_path / "s.tcl").write_text(STATIC_STOP)
    r = run_cli("run", "s.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = [ln.split() for ln in r.stdout.splitlines()]
    assert lines[0][1:3] == ["1073741825", "268435457"]
    after = lines[2]  # 0.31 s: seqno_ is maxseq_ for both
    assert after[1:3] == after[4:6]
    assert lines[-1][0] == "done" and int(lines[-1][2]) >= int(after[4]) - 1
    if NS is not None:
        assert assert_prints_as_ns2(tmp_path / "s.tcl", cwd=tmp_path) == r.stdout


# Data, then `$ftp start` while it is in flight (curseq_ becomes TCP_MAXSEQ: the done the data
# would have brought never comes), then a stop and a start again 20 ms later, before the last
# ACK of the stop (its done does not come either); a proc reads the agent along the way.
STARTED_WHILE_WATCHED = (
    ONE_FTP_FLOW
    + """\
$tcp proc done {} { global ns; puts [format "done %.4f %d" [$ns now] [$self set ack_]] }
proc show {} {
\tglobal ns tcp
\tputs "[$ns now] [$tcp set ack_] [$tcp set t_seqno_] [$tcp set maxseq_] [$tcp set cwnd_]"
}
foreach t {0.45 0.51 0.53 0.6 0.8 1.0} { $ns at $t show }
$ns at 0.1 "$ftp send 50000"
$ns at 0.3 "$ftp start"
$ns at 0.5 "$ftp stop"
$ns at 0.52 "$ftp start"
proc fin {} { global tcp; puts "end [$tcp set ack_]"; exit 0 }
$ns at 1.5 fin
$ns run
"""
)


@needs_set_data
def test_a_start_cancels_the_done_the_data_would_bring(tmp_path: Path) -> None:
    """No `done` after `$ftp start` (TCP_MAXSEQ), and the engine's stop at the ACK it had been
    watching for does not hold the run back: every sample is taken at its time (before the
    fix, the 0.8 s sample read the agent as it was at that ACK, ack_ 60, and the end too).
    ns-2.35 prints the same 7 lines (2026-11-27: ack_ 77 at 0.8 s, 161 at the end)."""
    (tmp_path / "s.tcl").write_text(STARTED_WHILE_WATCHED)
    r = run_cli("run", "s.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert not [ln for ln in lines if ln.startswith("done")]
    acks = [int(ln.split()[1]) for ln in lines[:-1]]
    assert acks == sorted(acks) and len(acks) == 6 and lines[-1] == "end 161"
    if NS is not None:
        assert assert_prints_as_ns2(tmp_path / "s.tcl", cwd=tmp_path) == r.stdout
