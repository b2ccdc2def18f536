"""UDP messages larger than the agent's packetSize_: ns-2.35's `UdpAgent::sendmsg` (udp.cc)
sends floor(nbytes / packetSize_) packets of packetSize_ bytes, then one of the remainder,
all at once (the scenario's flow `max_datagram`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import needs_ns, run_cli, run_ns

needs_session = pytest.mark.skipif(
    not hasattr(_core, "Session"), reason="the compiled core has no Session yet (make build)"
)

# A CBR source handing its UDP agent (packetSize_ 1000, ns-2's default) 2500-byte messages
# over a 1 Mb/s link with a 10-packet queue: 1000 + 1000 + 500 bytes each. The rate is chosen
# so that no message arrives at the very instant a transmission ends.
CBR = """\
set ns [new Simulator]
set tf [open out.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
$ns queue-limit $n0 $n1 10
set udp [new Agent/UDP]
$udp set fid_ 1
set mon [new Agent/LossMonitor]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $mon
$ns connect $udp $mon
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 2500
$cbr set rate_ 1.0737Mb
$cbr attach-agent $udp
$ns at 0.1 "$cbr start"
$ns at 2.05 "$cbr stop"
proc finish {} {
    global ns tf mon
    $ns flush-trace
    close $tf
    puts "[$mon set npkts_] [$mon set bytes_] [$mon set nlost_]"
    exit 0
}
$ns at 2.5 finish
$ns run
"""

# An Exponential on-off source of 1000-byte messages over an agent of packetSize_ 400.
EXPO = (
    CBR.replace("$udp set fid_ 1", "$udp set fid_ 1\n$udp set packetSize_ 400")
    .replace("Application/Traffic/CBR", "Application/Traffic/Exponential")
    .replace("$cbr set packetSize_ 2500", "$cbr set packetSize_ 1000")
    .replace("$cbr set rate_ 1.0737Mb", "$cbr set rate_ 800Kb")
    .replace('2.05 "$cbr stop"', '100 "$cbr stop"')
    .replace("at 2.5 finish", "at 100.5 finish")
)


def _lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines()]


def _run(tmp_path: Path, text: str) -> tuple[list[int], list[list[str]]]:
    (tmp_path / "u.tcl").write_text(text)
    r = run_cli("run", "u.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    return [int(x) for x in r.stdout.split()], _lines(tmp_path / "out.tr")


@needs_session
def test_cbr_message_split_into_full_packets_and_the_remainder(tmp_path: Path) -> None:
    (npkts, nbytes, _), trace = _run(tmp_path, CBR)
    sent = [ln for ln in trace if ln[0] == "+"]
    # each message: 1000, 1000, 500 at one instant, numbered one after the other
    assert len(sent) % 3 == 0 and len(sent) > 300
    for i in range(0, len(sent), 3):
        msg = sent[i : i + 3]
        assert [ln[5] for ln in msg] == ["1000", "1000", "500"]
        assert len({ln[1] for ln in msg}) == 1
        assert [int(ln[10]) for ln in msg] == list(range(i, i + 3))
    got = [ln for ln in trace if ln[0] == "r"]
    assert npkts == len(got) and nbytes == sum(int(ln[5]) for ln in got)


@needs_session
def test_exponential_message_split(tmp_path: Path) -> None:
    (npkts, nbytes, _), trace = _run(tmp_path, EXPO)
    sizes = Counter(ln[5] for ln in trace if ln[0] == "+")
    assert set(sizes) == {"400", "200"} and sizes["400"] == 2 * sizes["200"] > 100
    got = [ln for ln in trace if ln[0] == "r"]
    assert npkts == len(got) and nbytes == sum(int(ln[5]) for ln in got)


@needs_ns
@needs_session
def test_cbr_split_as_ns2(tmp_path: Path) -> None:
    """ns-2.35 and bufferlab (2026-11-27): LossMonitor npkts_ 291, bytes_ 250500, nlost_ 24
    in both, and the 921 trace lines identical in event, time, nodes, type, size, fid,
    addresses and sequence number."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "u.tcl").write_text(CBR)
    ns = run_ns(Path("u.tcl"), cwd=tmp_path / "ns")
    r = run_cli("run", "u.tcl", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    assert r.stdout.split() == ns.stdout.split()
    key = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10]
    a, b = _lines(tmp_path / "ns" / "out.tr"), _lines(tmp_path / "bl" / "out.tr")
    assert [[ln[i] for i in key] for ln in a] == [[ln[i] for i in key] for ln in b]


@needs_ns
@needs_session
def test_exponential_split_as_ns2(tmp_path: Path) -> None:
    """Every message is 400 + 400 + 200 bytes in both, and since the source draws its bursts
    and idle times from ns-2's default RNG as ns-2 does (expoo.cc), the runs are the same:
    2026-11-27, 100 s, 5762 messages, 17286 packets, LossMonitor bytes_ 5762000 in both (the
    `npkts_ bytes_ nlost_` line identical), every instant's trace events the same (within an
    instant a departure may be written before the arrival ns-2 writes first). Before the
    draws were ns-2's: bufferlab 5538 messages."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "u.tcl").write_text(EXPO)
    ns = run_ns(Path("u.tcl"), cwd=tmp_path / "ns")
    r = run_cli("run", "u.tcl", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout == "17286 5762000 0\n"
    for d in ("ns", "bl"):
        sizes = Counter(ln[5] for ln in _lines(tmp_path / d / "out.tr") if ln[0] == "+")
        assert set(sizes) == {"400", "200"} and sizes["400"] == 2 * sizes["200"], (d, sizes)

    def instants(path: Path) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for ln in _lines(path):
            out.setdefault(ln[1], Counter())[" ".join(ln[i] for i in (0, 2, 3, 4, 5, 7, 8, 9))] += 1
        return out

    assert instants(tmp_path / "ns" / "out.tr") == instants(tmp_path / "bl" / "out.tr")
