"""Idioms of ns-2.35's own validation suites (../shared/ns2-testsuite, bench/ns2suite) that
bufferlab once refused or ran otherwise than ns-2: `Trace set show_tcphdr_ 1`, ns-lib.tcl's
create-connection and its kin, OTcl's class introspection as misc.tcl uses it, a second link
between the same two nodes, `$link trace-dynamics`, ns-autoconf.tcl's globals,
`useHeaders_ false`, `$node neighbors`, and ns-2 variables bufferlab does not model. Each
script is compared with ns-2.35 where it is installed (what it prints, and its trace files
byte for byte)."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both, run_cli


def _run_both(text: str, name: str, tmp_path: Path) -> tuple[Path, Path, str]:
    """Writes the script as ``name`` and runs it under ns-2.35 and `bufferlab run`."""
    script = tmp_path / name
    script.write_text(text)
    return run_both(script, tmp_path=tmp_path)


# ns-2's validation suites' set-up (tcl/test): `Trace set show_tcphdr_ 1` (each trace line
# also carries the TCP header's ackno, flags, hlen and SACK block count), and agents made,
# attached and connected in one call by ns-lib.tcl's create-connection and its kin.
SUITE_SETUP = """\
Trace set show_tcphdr_ 1
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 6
set tcp [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1/DelAck $n2 1]
$tcp set window_ 40
set pair [$ns create-connection-list TCP/Reno $n0 TCPSink $n2 2]
set udp [$ns create-connection UDP $n0 Null $n2 3]
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 300k
$cbr attach-agent $udp
set ftp [$tcp attach-app FTP]
set ftp2 [[lindex $pair 0] attach-app FTP]
puts "[$tcp set fid_] [[lindex $pair 1] set fid_] [$udp set fid_] [llength $pair]"
$ns at 0.1 "$ftp start; $ftp2 start; $cbr start"
$ns at 4 "close $f; exit 0"
$ns run
"""


@needs_ns
def test_suite_setup_traces_tcp_headers_as_ns2(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(SUITE_SETUP, "s.tcl", tmp_path)
    assert out == "1 2 3 2\n"
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    lines = [ln.split() for ln in ours.decode().splitlines()]
    assert all(len(f) == 16 and f[12:15] == ["0", "0x0", "0"] for f in lines)
    # SACK blocks were reported: the last field counts them in the SACK sink's ACKs
    assert {f[15] for f in lines if f[4] == "ack" and f[7] == "1"} >= {"0", "1", "2"}


def test_show_tcphdr_set_between_traces_is_refused(tmp_path: Path) -> None:
    """Without ns-2: ns-2's traces take show_tcphdr_ when they are made; bufferlab writes one
    trace, so a script whose traces differ stops in one line naming it (exit 2)."""
    script = tmp_path / "d.tcl"
    script.write_text(
        SUITE_SETUP.replace("Trace set show_tcphdr_ 1\n", "").replace(
            "$ns duplex-link $n1 $n2", "Trace set show_tcphdr_ 1\n$ns duplex-link $n1 $n2"
        )
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "show_tcphdr_ differs between the script's traces" in r.stderr
    assert "the trace of link 1->2 has it, the trace of link 0->1 not" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# OTcl's introspection as misc.tcl of the suites uses it: `$class info subclass $other` (1 when
# $other is $class or inherits from it), `Object info subclass X` to ask whether X is a class,
# `info instprocs PATTERN` and `info procs PATTERN` in ns-2's (hash table) order, and an
# instproc given empty arguments and body, which deletes it.
OTCL_INFO = """\
Class Test
Class Test/alpha -superclass Test
Class Test/beta -superclass Test/alpha
Class Topology
foreach m {init run setup finish make-topo zeta a1 a10} { Test instproc $m {} {return 1} }
Test proc mk {} {return 1}
Test proc zz {} {return 1}
puts "[Test info subclass] | [Test info subclass Test/beta] [Test info subclass Test]\
 [Test info subclass Topology] [Test/beta info subclass Test]"
puts "[Test info instprocs] | [Test info instprocs *a*] | [Test info procs m*]"
puts "[catch {Object info subclass Test/nope} r] $r | [Object info subclass Test/alpha]"
puts "[catch {Test info subclass a b} r] $r"
Test instproc zeta {} {}
puts "[Test info instprocs] | [catch {[new Test] zeta} r] $r"
proc isProc? {cls prc} {
    if [catch "Object info subclass $cls/$prc" r] { puts "no such $cls: $prc"; return 0 }
    return 1
}
puts "[isProc? Test alpha] [isProc? Test gamma]"
"""


@needs_ns
def test_otcl_class_introspection_is_ns2s(tmp_path: Path) -> None:
    _, _, out = _run_both(OTCL_INFO, "o.tcl", tmp_path)
    assert out.splitlines()[0] == "Test/alpha | 1 1 0 0"
    assert "no such Test: gamma" in out


# The suites' topologies: a second duplex-link between the same two nodes, which takes the
# first one's place (ns-lib.tcl's link_ array: the first carries nothing from then on, and
# what was set on it stays there), `$link trace-dynamics` (nothing to write without link
# failures), and ns-autoconf.tcl's globals (`exec $PERL ...` in the finish procs).
SECOND_LINK = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set a [$ns node]; set b [$ns node]
$ns duplex-link $a $b 1Mb 10ms DropTail
set old [$ns link $a $b]
$ns queue-limit $a $b 3
$ns duplex-link $b $a 2Mb 30ms RED
$ns queue-limit $a $b 8
[$ns link $a $b] trace-dynamics $ns $f
puts "[expr {$old eq [$ns link $a $b]}] [[[$ns link $a $b] queue] set limit_]\
 [[$old queue] set limit_] $PERL $MAXSEQ"
set tcp [$ns create-connection TCP/Reno $a TCPSink $b 0]
$tcp set window_ 30
set ftp [$tcp attach-app FTP]
$ns at 0 "$ftp start"
$ns at 2 "close $f; exit 0"
$ns run
"""


@needs_ns
def test_a_second_link_replaces_the_first_as_in_ns2(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(SECOND_LINK, "l.tcl", tmp_path)
    assert out == "0 8 3 /usr/bin/perl 1073741824\n"
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    assert b"\nd " in ours  # the new queue's limit of 8 drops


# `Agent/TCP set useHeaders_ false` (data packets are packetSize_ bytes alone, the opening
# packet keeps its 40-byte header: tcp.cc output), and `$node neighbors` (ns-node.tcl: the far
# node of each link made from it, lsorted) driving trace-queue as the suites' traceQueues does.
NO_HEADERS = """\
Agent/TCP set useHeaders_ false
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 800Kb 20ms DropTail
$ns queue-limit $n1 $n2 8
set f [open q.tr w]
foreach nbr [$n1 neighbors] { $ns trace-queue $n1 $nbr $f }
puts [llength [$n1 neighbors]]
set tcp [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 1]
$tcp set window_ 20
set ftp [$tcp attach-app FTP]
$ns at 0 "$ftp start"
$ns at 3 "close $f; puts [$tcp set ndatabytes_]; exit 0"
$ns run
"""


@needs_ns
def test_data_without_headers_and_neighbors_are_ns2s(tmp_path: Path) -> None:
    ns_dir, bl_dir, out = _run_both(NO_HEADERS, "h.tcl", tmp_path)
    assert out.splitlines()[0] == "2"
    ours = (bl_dir / "q.tr").read_bytes()
    assert ours == (ns_dir / "q.tr").read_bytes()
    sizes = {ln.split()[5] for ln in ours.decode().splitlines() if " tcp " in ln}
    assert sizes == {"40", "1000"}


def test_an_unmodelled_agent_variable_away_from_its_default_is_refused(tmp_path: Path) -> None:
    """Without ns-2: a variable of ns-2's TCP agent that bufferlab does not model, set away from
    its ns-default.tcl value, stops the script in one line (exit 2) rather than being ignored;
    set to its default, it runs."""
    for value, code in (("1", 2), ("0", 0)):
        script = tmp_path / "v.tcl"
        script.write_text(
            NO_HEADERS.replace("$ns run", f"Agent/TCP set eln_ {value}\n$ns run").replace(
                "$tcp set window_ 20", f"$tcp set eln_ {value}"
            )
        )
        r = run_cli("run", str(script), cwd=tmp_path)
        assert r.code == code, r.stderr
        if code == 2:
            assert r.stderr.strip().endswith(
                "Agent/TCP/Sack1 eln_ 1: ns-2's eln_ other than its default 0 is not modelled"
            )
            assert len(r.stderr.strip().splitlines()) == 1
