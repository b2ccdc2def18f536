"""Per-link trace files (`$ns trace-queue n1 n2 $file`, python/bufferlab/ns2/linktrace.py):
each file has its direction's lines of the engine's ns-2 trace, as ns-2 writes them (its
`trace-all` lines whose from and to nodes are that direction's), with or without a trace-all
file, and against ns-2.35 itself the same lines."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import ROOT, needs_ns, run_cli, run_ns

needs_session = pytest.mark.skipif(
    not hasattr(_core, "Session"), reason="the compiled core has no Session yet (make build)"
)

# A two-hop path, one Reno flow over a 1 Mb/s hop with a 5-packet queue (drops), trace-all
# and a trace-queue file for each direction of that hop.
TWO_HOP = """\
set ns [new Simulator]
set all [open all.tr w]
$ns trace-all $all
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 10ms DropTail
$ns queue-limit $n1 $n2 5
set q12 [open q12.tr w]
$ns trace-queue $n1 $n2 $q12
set q21 [open q21.tr w]
$ns trace-queue $n2 $n1 $q21
set tcp [new Agent/TCP/Reno]
$tcp set fid_ 3
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
$ns at 0.1 "$ftp start"
proc finish {} {
    global ns all q12 q21
    $ns flush-trace
    close $all; close $q12; close $q21
    exit 0
}
$ns at 5.0 finish
$ns run
"""


def _lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines()]


@needs_session
def test_trace_queue_files_are_their_directions_lines(tmp_path: Path) -> None:
    script = tmp_path / "tq.tcl"
    script.write_text(TWO_HOP)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    every = _lines(tmp_path / "all.tr")
    for name, hop in (("q12.tr", ("1", "2")), ("q21.tr", ("2", "1"))):
        mine = _lines(tmp_path / name)
        assert mine == [ln for ln in every if (ln[2], ln[3]) == hop]
        assert all(len(ln) == 12 for ln in mine)
    events = Counter(ln[0] for ln in _lines(tmp_path / "q12.tr"))
    # every packet queued leaves or is dropped, but the (at most 5) waiting at the end
    assert events["d"] > 0 and 0 <= events["+"] - events["-"] - events["d"] <= 5


@needs_session
def test_trace_queue_without_trace_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine then writes a trace of its own, split as it grows and removed at the end."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "tmp").mkdir()
    script = tmp_path / "a" / "tq.tcl"
    script.write_text(TWO_HOP)
    assert run_cli("run", str(script), cwd=tmp_path / "a").code == 0
    alone = tmp_path / "b" / "tq.tcl"
    alone.write_text(
        TWO_HOP.replace("set all [open all.tr w]\n$ns trace-all $all\n", "").replace(
            "close $all; ", ""
        )
    )
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    r = run_cli("run", str(alone), cwd=tmp_path / "b")
    assert r.code == 0, r.stderr
    assert not (tmp_path / "b" / "all.tr").exists()
    for name in ("q12.tr", "q21.tr"):
        assert (tmp_path / "b" / name).read_text() == (tmp_path / "a" / name).read_text()
    assert list((tmp_path / "tmp").iterdir()) == []


@needs_ns
@needs_session
def test_trace_queue_as_ns2(tmp_path: Path) -> None:
    """The same script under ns-2.35: each file has as many lines of each event, and the
    same events at the same times, nodes, packet types, sizes, flow ids and sequence numbers
    in the same order (2026-11-27: 1698 and 1649 lines, all identical in these fields; the
    packet ids follow bufferlab's numbering, and ns-2 flags its retransmissions `---A---`)."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "tq.tcl").write_text(TWO_HOP)
    run_ns(Path("tq.tcl"), cwd=tmp_path / "ns")
    r = run_cli("run", "tq.tcl", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    for name in ("q12.tr", "q21.tr"):
        a, b = _lines(tmp_path / "ns" / name), _lines(tmp_path / "bl" / name)
        assert Counter(ln[0] for ln in a) == Counter(ln[0] for ln in b)
        key = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10]  # event time from to type size fid src dst seq
        assert [[ln[i] for i in key] for ln in a] == [[ln[i] for i in key] for ln in b]


# examples/ns2/link_traces.tcl: a link made before trace-all (n0-n1, not in all.tr), the
# classic `$link trace`, the ACK direction traced a second time into the trace-all file, the
# bottleneck queue's drops handed to a Drop trace of their own, and a trace object never
# attached.
HAND = (ROOT / "examples" / "ns2" / "link_traces.tcl").read_text()

# trace-all after the first link and nothing else: only the later link is traced.
AFTER = HAND.split("set f01 [open l01.tr w]")[0] + HAND[HAND.index("set tcp [new") :].replace(
    "close $all; close $f01; close $fd; close $fe", "close $all"
).replace("global ns all f01 fd fe", "global ns all")


@needs_session
def test_trace_all_traces_only_the_links_made_after_it(tmp_path: Path) -> None:
    (tmp_path / "a.tcl").write_text(AFTER)
    r = run_cli("run", "a.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = _lines(tmp_path / "all.tr")
    hops = Counter((ln[2], ln[3]) for ln in lines)
    assert set(hops) == {("1", "2"), ("2", "1")}, hops  # no line of n0-n1, made before
    assert hops[("1", "2")] > 100 and hops[("2", "1")] > 100


@needs_session
def test_traces_attached_by_hand(tmp_path: Path) -> None:
    (tmp_path / "h.tcl").write_text(HAND)
    r = run_cli("run", "h.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    every = _lines(tmp_path / "all.tr")
    # the ACK direction's lines come twice in a row (two trace sets into one file)
    back = [ln for ln in every if (ln[2], ln[3]) == ("2", "1")]
    assert len(back) > 100 and back[0::2] == back[1::2]
    # the bottleneck's drops went to the Drop trace, not to all.tr
    drops = _lines(tmp_path / "drops.tr")
    assert drops and {(ln[0], ln[2], ln[3]) for ln in drops} == {("d", "1", "2")}
    assert not [ln for ln in every if ln[0] == "d"]
    l01 = _lines(tmp_path / "l01.tr")
    assert l01 and {(ln[2], ln[3]) for ln in l01} == {("0", "1")}
    assert Counter(ln[0] for ln in l01).keys() == {"+", "-", "r"}
    assert (tmp_path / "enq.tr").read_text() == ""  # never attached: nothing


@needs_ns
@needs_session
@pytest.mark.parametrize("script", ["AFTER", "HAND"])
def test_trace_all_and_hand_traces_as_ns2(tmp_path: Path, script: str) -> None:
    """Each file under ns-2.35 and bufferlab: the same number of lines and the same event,
    time, nodes, type, size, fid and addresses line by line (2026-11-27: AFTER's all.tr 1897
    lines; HAND's all.tr 2811, l01.tr 995, drops.tr 15, enq.tr 0, all identical)."""
    text = {"AFTER": AFTER, "HAND": HAND}[script]
    names = ["all.tr"] if script == "AFTER" else ["all.tr", "l01.tr", "drops.tr", "enq.tr"]
    _same_trace_lines_as_ns2(tmp_path, text, names)


def _same_trace_lines_as_ns2(tmp_path: Path, text: str, names: list[str]) -> None:
    """Runs the script under ns-2.35 and bufferlab, each in a folder of its own: each file
    has the same lines, line by line in event, time, nodes, type, size, fid and addresses."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "s.tcl").write_text(text)
    run_ns(Path("s.tcl"), cwd=tmp_path / "ns")
    r = run_cli("run", "s.tcl", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    key = [0, 1, 2, 3, 4, 5, 7, 8, 9]  # event time from to type size fid src dst
    for name in names:
        a, b = _lines(tmp_path / "ns" / name), _lines(tmp_path / "bl" / name)
        assert len(a) == len(b), name
        assert [[ln[i] for i in key] for ln in a] == [[ln[i] for i in key] for ln in b], name


# An error model on n1->n2 whose losses go to an EDrop trace in a file of its own, chained to
# a Drop trace (into the trace-all file) that names other nodes; the link's queue drops stay
# in the trace-all file. At 1 % the model loses 4 packets and the queue drops 11 in ns-2.35
# (at 5 % and 2 % the first segment is lost and the 2 s run sees nothing more); bufferlab
# draws the same losses from ns-2's default RNG (test below).
LOSSY = (
    HAND.split("set f01 [open l01.tr w]")[0]
    + """\
set em [new ErrorModel]
$em set rate_ 0.01
$em unit pkt
$em ranvar [new RandomVariable/Uniform]
$ns lossmodel $em $n1 $n2
set fe [open edrop.tr w]
set et [$ns create-trace EDrop $fe $n1 $n2]
set dt [$ns create-trace Drop $all $n2 $n0]
$et target $dt
$dt target [$ns set nullAgent_]
$em drop-target $et
"""
    + HAND[HAND.index("set tcp [new") :]
    .replace("close $all; close $f01; close $fd; close $fe", "close $all; close $fe")
    .replace("global ns all f01 fd fe", "global ns all fe")
)


@needs_session
def test_error_model_losses_to_trace_objects(tmp_path: Path) -> None:
    (tmp_path / "l.tcl").write_text(LOSSY)
    r = run_cli("run", "l.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    every = _lines(tmp_path / "all.tr")
    edrop = _lines(tmp_path / "edrop.tr")
    assert edrop and {(ln[0], ln[2], ln[3]) for ln in edrop} == {("e", "1", "2")}
    # the chained Drop trace writes each loss again, with its own letter and nodes
    chained = [ln for ln in every if (ln[0], ln[2], ln[3]) == ("d", "2", "0")]
    assert [ln[1:2] + ln[4:] for ln in chained] == [ln[1:2] + ln[4:] for ln in edrop]
    queue_drops = [ln for ln in every if (ln[0], ln[2], ln[3]) == ("d", "1", "2")]
    assert queue_drops, "the queue's own drops stay in the link's drop trace"
    assert not {ln[11] for ln in edrop} & {ln[11] for ln in queue_drops}
    plus = {ln[11] for ln in every if ln[0] == "+"}
    assert all(ln[11] not in plus for ln in edrop)  # lost before the queue


@needs_ns
@needs_session
def test_error_model_losses_are_ns2s(tmp_path: Path) -> None:
    """The error model draws `Random::uniform()` for every packet from ns-2's default RNG
    (errmodel.cc CorruptPkt), interleaved with nothing else here: the same packets lost, so
    every line of both files is ns-2's (2026-11-27: all.tr 1665 lines, edrop.tr 4)."""
    _same_trace_lines_as_ns2(tmp_path, LOSSY, ["all.tr", "edrop.tr"])
    assert len(_lines(tmp_path / "bl" / "edrop.tr")) == 4


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("$ns trace-queue $n0 $n1 $all extra\n", "usage: $ns trace-queue n1 n2 ?channel?"),
        ("$ns trace-queue $n0 $n2 [open x.tr w]\n", "there is no link from node 0 to node 2"),
        ("$ns create-trace Hop [open x.tr w] $n0 $n1\n", "create-trace Hop: trace objects of"),
        ("$ns create-trace Drop $all $n0 $n1 nam\n", "nam traces are not written"),
        ("[$ns create-trace Drop $all $n0 $n1] tagged 1\n", "method `tagged` is not modelled"),
    ],
)
def test_trace_errors_exit_2(tmp_path: Path, body: str, message: str) -> None:
    script = tmp_path / "bad.tcl"
    head, tail = TWO_HOP.split("set tcp [new Agent/TCP/Reno]")
    script.write_text(head + body + "set tcp [new Agent/TCP/Reno]" + tail)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith(f"error: bad.tcl:{head.count(chr(10)) + 1}:"), r.stderr
