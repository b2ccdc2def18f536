"""Idioms of ns-2 scripts as people write them (course labs, tutorials, mailing-list answers)
that bufferlab once refused or ran otherwise than ns-2 (issue #35): what `simplex-link`
returns and the simulator's `link_` array; ports numbered per node in attach order; an
agent's `class_`, which is its `fid_`; a UDP agent connected to another UDP agent; an
Exponential source with `idle_time_ 0`; `windowOption_ 1`; traced TCP variables beyond cwnd_
(`rtt_`, `srtt_`, `rttvar_`, `backoff_`, `dupacks_`, `maxseq_`, `t_seqno_`, `ack_`,
`ssthresh_`); `$node detach`; a queue monitor on a link whose error model drops packets. Each
script is the project's own, compared with ns-2.35 where it is installed: what it prints, and
its trace files byte for byte."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli

# Four nodes: n0 and n1 to the router n2, a 1.5 Mb/s bottleneck n2 -> n3 of 15 packets.
BASE = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
"""

LINKS = """\
$ns duplex-link $n0 $n2 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 10Mb 3ms DropTail
$ns duplex-link $n2 $n3 1.5Mb 20ms DropTail
$ns queue-limit $n2 $n3 15
"""


def _run_both(text: str, name: str, tmp_path: Path) -> tuple[Path, Path, str]:
    script = tmp_path / name
    script.write_text(text)
    return run_both(script, tmp_path=tmp_path)


def _same_files(ns_dir: Path, bl_dir: Path, *names: str) -> None:
    for name in names:
        ns_lines = (ns_dir / name).read_text().splitlines()
        bl_lines = (bl_dir / name).read_text().splitlines()
        assert ns_lines, f"ns-2 wrote nothing to {name}"
        for i, (a, b) in enumerate(zip(ns_lines, bl_lines, strict=False)):
            assert a == b, f"{name} line {i + 1}: ns-2 {a!r}, bufferlab {b!r}"
        assert len(bl_lines) == len(ns_lines), name


# `simplex-link` leaves the link as its result (`duplex-link` nothing); the simulator's
# `link_` array (ns-lib.tcl) read with `$ns set link_(a:b)` and `$ns array`.
LINK_ARRAY = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set l [$ns simplex-link $n0 $n1 10Mb 2ms DropTail]
puts "[expr {$l == [$ns link $n0 $n1]}]"
$ns simplex-link $n1 $n0 10Mb 2ms DropTail
set d [$ns duplex-link $n1 $n2 1Mb 10ms RED]
puts "duplex-link returns '$d'"
set lk [$ns set link_([$n1 id]:[$n2 id])]
puts "[$lk info class] [[$lk queue] info class] [expr {$lk == [$ns link $n1 $n2]}]"
puts [$ns array names link_]
puts "[lsort [$ns array names link_]] [$ns array exists link_] [$ns array size link_]"
foreach {k v} [$ns array get link_] {
    puts "$k [[$v src] id]->[[$v dst] id] [expr {$v == [$ns set link_($k)]}]"
}
if [catch {$ns set link_(0:2)} e] { puts "no link: $e" }
$ns queue-limit $n1 $n2 9
puts [[[$ns set link_(1:2)] queue] set limit_]
"""


@needs_ns
def test_simplex_link_and_the_link_array_are_ns2s(tmp_path: Path) -> None:
    _, _, out = _run_both(LINK_ARRAY, "links.tcl", tmp_path)
    assert out.splitlines()[0] == "1"
    assert "no link:" in out


# Ports in attach order on each node (the UDP agent attached first takes port 0 of n0, the
# LossMonitor port 0 of n3); `class_` is `fid_`; a UDP agent receiving from a UDP agent; an
# Exponential source with no idle time (bursts back to back, its draws still taken).
PORTS = (
    BASE
    + """\
set tf [open out.tr w]
$ns trace-all $tf
"""
    + LINKS
    + """\
set tcp [new Agent/TCP]
$tcp set windowOption_ 1
$tcp set class_ 7
set u1 [new Agent/UDP]
$ns attach-agent $n0 $u1
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
set lm [new Agent/LossMonitor]
$ns attach-agent $n3 $lm
$ns attach-agent $n3 $sink
puts "ports [$tcp port] [$u1 port] [$lm port] [$sink port] fid [$tcp set fid_]"
$ns connect $tcp $sink
$ns connect $u1 $lm
set ftp [$tcp attach-app FTP]
set e [new Application/Traffic/Exponential]
$e set burst_time_ 0.5
$e set idle_time_ 0
$e set rate_ 200k
$e attach-agent $u1
set u2 [new Agent/UDP]
$ns attach-agent $n1 $u2
set u3 [new Agent/UDP]
$ns attach-agent $n3 $u3
$ns connect $u2 $u3
$u2 set class_ 3
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 400k
$cbr attach-agent $u2
$ns at 0.1 "$ftp start"
$ns at 0.1 "$e start"
$ns at 0.3 "$cbr start"
proc finish {} {
    global tcp lm u2 tf
    puts "[$tcp set ack_] [$lm set npkts_] [$lm set nlost_] [$u2 set fid_]"
    close $tf
    exit 0
}
$ns at 3.0 finish
$ns run
"""
)


@needs_ns
def test_ports_class_and_udp_pairs_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(PORTS, "ports.tcl", tmp_path)
    assert out.startswith("ports 1 0 0 1 fid 7")
    _same_files(ns_dir, bl_dir, "out.tr")


# Traced TCP variables: a Reno sender traces every variable ns-2's TcpAgent::traceVar
# formats, into one file (each change, in the order ns-2 assigns them); a second sender
# traces t_seqno_ alone.
VAR_TRACES = (
    BASE
    + LINKS
    + """\
set tcp [new Agent/TCP/Reno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set vf [open vars.tr w]
$tcp attach $vf
foreach v {rttvar_ srtt_ rtt_ backoff_ dupacks_ maxseq_ t_seqno_ ack_ ssthresh_ cwnd_} {
    $tcp trace $v
}
set tcp2 [new Agent/TCP/Newreno]
$ns attach-agent $n1 $tcp2
set sink2 [new Agent/TCPSink]
$ns attach-agent $n3 $sink2
$ns connect $tcp2 $sink2
set ftp2 [$tcp2 attach-app FTP]
set sf [open seqno.tr w]
$tcp2 attach $sf
$tcp2 trace t_seqno_
$ns at 0.1 "$ftp start"
$ns at 0.4 "$ftp2 start"
proc finish {} {
    global tcp tcp2 vf sf
    puts "[$tcp set ack_] [$tcp2 set ack_] [$tcp set rttvar_] [$tcp set srtt_]"
    close $vf
    close $sf
    exit 0
}
$ns at 4.0 finish
$ns run
"""
)


@needs_ns
def test_traced_tcp_variables_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = _run_both(VAR_TRACES, "vars.tcl", tmp_path)
    _same_files(ns_dir, bl_dir, "vars.tr", "seqno.tr")
    names = {ln.split()[5] for ln in (bl_dir / "vars.tr").read_text().splitlines()}
    assert {"rtt_", "srtt_", "rttvar_", "dupacks_", "maxseq_"} <= names


# `$node detach $agent $null`: what reaches the agent's port goes to the null agent from then
# on; a detached sender keeps sending (its ACKs no longer reach it).
DETACH = (
    BASE
    + """\
set tf [open out.tr w]
$ns trace-all $tf
"""
    + LINKS
    + """\
set tcp [new Agent/TCP/Reno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set udp [new Agent/UDP]
$ns attach-agent $n1 $udp
set null [new Agent/Null]
$ns attach-agent $n3 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set rate_ 500k
$ns at 0.1 "$ftp start"
$ns at 0.2 "$cbr start"
$ns at 1.0 "$n3 detach $sink [$ns set nullAgent_]"
$ns at 1.5 "$n1 detach $udp [$ns set nullAgent_]"
proc finish {} {
    global tcp sink tf
    puts "[$tcp set ack_] [$tcp set t_seqno_] [$sink set bytes_]"
    close $tf
    exit 0
}
$ns at 3.0 finish
$ns run
"""
)


@needs_ns
def test_node_detach_is_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = _run_both(DETACH, "detach.tcl", tmp_path)
    _same_files(ns_dir, bl_dir, "out.tr")


# A queue monitor sampling a bottleneck whose error model (`$ns lossmodel`, at the link's
# head) drops 3 % of the packets.
QMON_LOSS = (
    BASE
    + LINKS
    + """\
set qf [open q.tr w]
set qm [$ns monitor-queue $n2 $n3 $qf 0.1]
[$ns link $n2 $n3] queue-sample-timeout
set em [new ErrorModel]
$em set rate_ 0.03
$em unit pkt
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns lossmodel $em $n2 $n3
set tcp [new Agent/TCP/Newreno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set udp [new Agent/UDP]
$ns attach-agent $n1 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n3 $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set rate_ 500k
$ns at 0.1 "$ftp start"
$ns at 0.2 "$cbr start"
proc finish {} {
    global tcp qm lm qf
    puts "[$qm set parrivals_] [$qm set pdrops_] [$qm set pdepartures_]"
    puts "[$lm set npkts_] [$lm set nlost_] [$tcp set ack_]"
    close $qf
    exit 0
}
$ns at 5.0 finish
$ns run
"""
)


@needs_ns
def test_a_queue_monitor_behind_an_error_model_is_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, _ = _run_both(QMON_LOSS, "qmon.tcl", tmp_path)
    _same_files(ns_dir, bl_dir, "q.tr")


# The same losses seen by a flow monitor, the error model after the link this time
# (`$ns link-lossmodel`): its drop snoop counts them per flow, and its pkts_ goes below 0.
FMON_LOSS = (
    BASE
    + LINKS
    + """\
set fm [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n2 $n3] $fm
set em [new ErrorModel]
$em set rate_ 0.03
$em unit pkt
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $n2 $n3
set tcp [new Agent/TCP/Newreno]
$ns attach-agent $n0 $tcp
$tcp set fid_ 1
set sink [new Agent/TCPSink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set udp [new Agent/UDP]
$udp set fid_ 2
$ns attach-agent $n1 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n3 $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set rate_ 500k
$ns at 0.1 "$ftp start"
$ns at 0.2 "$cbr start"
proc finish {} {
    global fm
    puts "[$fm set parrivals_] [$fm set pdrops_] [$fm set pdepartures_] [$fm set pkts_]"
    foreach f [$fm flows] {
        puts "[$f set flowid_] [$f set parrivals_] [$f set pdrops_] [$f set bdrops_]"
    }
    exit 0
}
$ns at 5.0 finish
$ns run
"""
)


@needs_ns
def test_a_flow_monitor_counts_the_links_losses_as_ns2(tmp_path: Path) -> None:
    _, _, out = _run_both(FMON_LOSS, "fmon.tcl", tmp_path)
    assert int(out.split()[3]) < 0  # more dropped after the queue than waiting in it


# A script's own classes under ns-2's: a TCP agent with its own `init` and `done`, a sink,
# and a classifier subclass declared (ns-2's class trees hold it) but never made.
SUBCLASSES = (
    BASE
    + """\
Class MyTcp -superclass Agent/TCP/Newreno
MyTcp instproc init {args} { eval $self next $args; $self set window_ 12; $self set fid_ 4 }
MyTcp instproc done {} { global ns; puts "done at [$ns now] ack [$self set ack_]" }
Class Classifier/Hash/Fid/Mine -superclass Classifier/Hash/Fid
Class MySink -superclass Agent/TCPSink
set tf [open out.tr w]
$ns trace-all $tf
"""
    + LINKS
    + """\
set tcp [new MyTcp]
puts "[$tcp info class] [$tcp set window_] [[$tcp info class] info superclass]"
$ns attach-agent $n0 $tcp
set sink [new MySink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
$ns at 0.1 "$ftp send 50000"
set fm [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $n2 $n3] $fm
proc finish {} { global tf fm; puts "[$fm set pdepartures_]"; close $tf; exit 0 }
$ns at 2.0 finish
$ns run
"""
)


@needs_ns
def test_subclasses_of_ns2_classes_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(SUBCLASSES, "subclasses.tcl", tmp_path)
    assert "done at" in out
    _same_files(ns_dir, bl_dir, "out.tr")


def test_an_object_of_an_unmodelled_ns2_subclass_is_refused_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "mine.tcl"
    script.write_text("Class MyFid -superclass Classifier/Hash/Fid\nset c [new MyFid]\n")
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "MyFid" in lines[0] and "Classifier/Hash/Fid" in lines[0] and "not modelled" in lines[0]
