"""What ns-2.35's links suite (tcl/test/test-suite-links.tcl) does to links, in scripts of our
own compared with ns-2.35 byte for byte (the trace with the TCP header's fields, and what the
script prints):

* an error model that delays the packets it chooses instead of dropping them (`delay_pkt_
  true`, `delay_`; errmodel.cc ErrorModel::recv), and two error modules on one link (a second
  `$link errormodule` goes in front of the first);
* `$ns delay`, `$ns bandwidth` and `$ns queue-limit` run during the run (ns-lib.tcl), with
  the reordering a shorter delay makes, or without it (`DelayLink set avoidReordering_ true`);
* ns-2's Delayer (queue/delayer.cc): `block` / `unblock`, channel allocation delays (`alloc`)
  and delay spikes (`spike`) drawn from the default RNG.

Each skips where `ns` is not installed."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both

# Two TCP flows (fid 1 Reno with FTP, fid 2 Sack1 with FTP started later) from n0 to n2 over
# a 1 Mb/s bottleneck n1 -> n2. BEFORE goes before the flows, EVENTS after them.
NET = """\
Trace set show_tcphdr_ 1
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 10
BEFORE
set tcp1 [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
$tcp1 set window_ 20
set tcp2 [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
set ftp1 [$tcp1 attach-app FTP]
set ftp2 [$tcp2 attach-app FTP]
$ns at 0.1 "$ftp1 start"
$ns at 0.4 "$ftp2 start"
EVENTS
$ns at 4 "puts \\"[$tcp1 set ack_] [$tcp2 set ack_]\\"; close $f; exit 0"
$ns run
"""


def _same(tmp_path: Path, before: str = "", events: str = "", first: str = "") -> list[list[str]]:
    script = tmp_path / "links.tcl"
    script.write_text(first + NET.replace("BEFORE", before).replace("EVENTS", events))
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    return [ln.split() for ln in ours.decode().splitlines()]


# dropPkts of support.tcl with delay_pkt_, on the bottleneck, for each flow: a List model
# delays fid 1's packets 10 and 14 by 0.3 s, a Periodic one every 25th of fid 2's by 50 ms
DELAYED = """\
set lossy [$ns link $n1 $n2]
set em [new ErrorModule Fid]
set list [new ErrorModel/List]
$list set delay_pkt_ true
$list set delay_ 0.3
$list droplist {10 14}
set periodic [new ErrorModel/Periodic]
$periodic set offset_ 5
$periodic set period_ 25
$periodic set delay_pkt_ true
$periodic set delay_ 0.05
$lossy errormodule $em
$em insert $list
$em bind $list 1
$em insert $periodic
$em bind $periodic 2
"""


@needs_ns
def test_delayed_packets_go_on_after_delay(tmp_path: Path) -> None:
    lines = _same(tmp_path, DELAYED)
    # nothing is lost at the head: the chosen packets reach the queue later, out of order
    drops = [f for f in lines if f[0] == "d" and f[2:4] == ["1", "2"]]
    enq = [f for f in lines if f[0] == "+" and f[2:4] == ["1", "2"] and f[7] == "1"]
    seqs = [int(f[10]) for f in enq]
    assert seqs != sorted(seqs)  # a delayed packet is queued after later ones
    assert all(f[7] != "1" or int(f[10]) not in (9, 13) for f in drops)


# the same List model delaying, and a second module put on the link afterwards (in front of
# the first) delaying fid 1's packet 3 by 0.2 s: the first module sees it when it comes back
TWO_MODULES = (
    DELAYED
    + """\
set em2 [new ErrorModule Fid]
set list2 [new ErrorModel/List]
$list2 set delay_pkt_ true
$list2 set delay_ 0.2
$list2 droplist {3}
$lossy errormodule $em2
$em2 insert $list2
$em2 bind $list2 1
$em2 default pass
puts [expr {[$lossy errormodule] == $em2}]
"""
)


@needs_ns
def test_two_error_modules_on_one_link(tmp_path: Path) -> None:
    _same(tmp_path, TWO_MODULES)


# the links suite's changeDelay, changeBandwidth and change_queue in one script: the
# bottleneck's delay grows, shrinks (packets sent later overtake those on the wire), its
# rate drops and comes back, its queue limit shrinks
CHANGES = """\
$ns at 1.0 "$ns delay $n1 $n2 300ms duplex"
$ns at 1.7 "$ns delay $n1 $n2 5ms"
$ns at 2.2 "$ns bandwidth $n1 $n2 200Kb duplex"
$ns at 2.8 "$ns bandwidth $n1 $n2 1Mb"
$ns at 3.0 "$ns queue-limit $n1 $n2 3"
"""


def _in_order(lines: list[list[str]]) -> bool:
    """Whether the packets leave link 1->2 (`r`) in the order they went onto it (`-`)."""
    sent = [f[11] for f in lines if f[0] == "-" and f[2:4] == ["1", "2"]]
    got = [f[11] for f in lines if f[0] == "r" and f[2:4] == ["1", "2"]]
    return got == sent[: len(got)]


@needs_ns
def test_link_changes_during_the_run(tmp_path: Path) -> None:
    # the shorter delay lets packets overtake those on the wire
    assert not _in_order(_same(tmp_path, events=CHANGES))


@needs_ns
def test_link_changes_without_reordering(tmp_path: Path) -> None:
    # the class default of the links made afterwards
    first = "DelayLink set avoidReordering_ true\n"
    assert _in_order(_same(tmp_path, events=CHANGES, first=first))


# the links suite's delaySpike: the bottleneck held from 1 s to 1.6 s both ways
BLOCKED = """\
set d1 [new Delayer]
set d2 [new Delayer]
$ns insert-delayer $n2 $n1 $d2
$ns insert-delayer $n1 $n2 $d1
$ns at 1.0 "$d1 block; $d2 block"
$ns at 1.6 "$d1 unblock; $d2 unblock"
"""


@needs_ns
def test_delayer_block_and_unblock(tmp_path: Path) -> None:
    lines = _same(tmp_path, BLOCKED)
    sent = [float(f[1]) for f in lines if f[0] == "-" and f[2:4] == ["1", "2"]]
    assert not any(1.0 < t < 1.6 for t in sent)


# channelAllocDelay and delaySpikes: allocation delays on the ACK direction, spikes on the
# data direction, every variable drawn from the default RNG (a draw of the script's own in
# between moves them all)
RANDOM = """\
set d1 [new Delayer]
set d2 [new Delayer]
$ns insert-delayer $n2 $n1 $d1
$ns insert-delayer $n1 $n2 $d2
set len_ul [new RandomVariable/Uniform]
$len_ul set min_ 0.05
$len_ul set max_ 0.1
set int_ul [new RandomVariable/Uniform]
$int_ul set min_ 0.01
$int_ul set max_ 0.2
$d1 alloc $int_ul $len_ul
set len [new RandomVariable/Exponential]
$len set avg_ 0.1
set int [new RandomVariable/Exponential]
$int set avg_ 0.5
$d2 spike $int $len
puts [ns-random]
"""


@needs_ns
def test_delayer_allocation_and_spikes(tmp_path: Path) -> None:
    _same(tmp_path, RANDOM, '$ns at 2.0 "puts [$int value]"')
