"""OTcl user classes in ns-2 scripts (python/bufferlab/ns2/otcl.py): `Class Foo -superclass`,
instprocs with `self`, `class` and `proc`, `next` along the heritage, `instvar`, `init` run by
`new` (with `eval $self next $args`), OTcl's `-option value` constructor, class variables,
`info`, object procs, classes that extend an ns-2 class, `delete` and `destroy`. What the
scripts print is what ns-2.35 (`ns`, Debian's ns2) prints; where `ns` is installed the tests
run it too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import ROOT, assert_script_refused, needs_ns, run_cli, run_ns

needs_session = pytest.mark.skipif(
    not hasattr(_core, "Session"), reason="the compiled core has no Session yet (make build)"
)


OTCL = """\
set ns [new Simulator]
Class Base
Base set count_ 0
Base instproc init {args} {
    $self instvar tag_
    set tag_ base
    Base set count_ [expr {[Base set count_] + 1}]
    eval $self next $args
}
Base instproc describe {} { $self instvar tag_; return "$tag_ [$self info class]" }
Base instproc who {} { return "Base/$class/$proc" }
Class Left -superclass Base
Left instproc who {} { return "Left>[$self next]" }
Class Right -superclass Base
Right instproc who {} { return "Right>[$self next]" }
Class Both -superclass {Left Right}
Both instproc init {a {b 2}} {
    $self next
    $self instvar tag_ sum_ list_
    set tag_ both
    set sum_ [expr {$a + $b}]
    lappend list_ $a $b
}
Both instproc who {} { return "Both>[$self next]" }
set x [new Both 40]
puts "heritage [Both info heritage]"
puts "who [$x who]"
puts "describe [$x describe]"
puts "sum [$x set sum_] list [$x set list_] count [Base set count_]"
puts "isa [$x info class Base] [$x info class Both] [$x info class Simulator]"
puts "vars [lsort [$x info vars]]"
puts "exists [info exists ::nosuch] [catch {$x set nosuch} m] $m"
Class Opt
Opt instproc rate {r} { $self set rate_ $r }
Opt instproc size {s} { $self set size_ $s }
set o [new Opt -rate 5 -size 100]
puts "configured [$o set rate_] [$o set size_]"
$o proc twice {} { return [expr {2 * [$self set rate_]}] }
puts "own proc [$o twice] [$o info procs]"
Class MyTcp -superclass Agent/TCP/Reno
MyTcp set window_ 7
MyTcp instproc win {} { $self instvar window_ packetSize_; return "$window_ $packetSize_" }
set t [new MyTcp]
puts "mytcp [$t win] [$t info class] [$t set window_]"
$t proc bump {} { $self instvar window_; incr window_ 3 }
$t bump
puts "after bump [$t set window_]"
Agent/TCP instproc hello {} { return "tcp hello [$self info class]" }
puts [$t hello]
Base instproc destroy {} { puts "destroying [$self info class]"; $self next }
delete $x
puts "instances [llength [Both info instances]] [catch {$x who}]"
"""

# What ns-2.35 prints for OTCL (`ns otcl.tcl`, 2026-11-27): multiple inheritance searched
# depth first, left to right, Base last; next from each class to the next; class variables
# read by `Base set`, not given to instances; Object's init configuring -rate and -size.
OTCL_OUT = """\
heritage Left Right Base Object
who Both>Left>Right>Base/Base/who
describe both Both
sum 42 list 40 2 count 1
isa 1 1 0
vars list_ sum_ tag_
exists 0 1 can't read "nosuch": no such variable
configured 5 100
own proc 10 twice
mytcp 7 1000 MyTcp 7
after bump 10
tcp hello MyTcp
destroying Both
instances 0 1
"""


def test_otcl_classes_behave_as_in_ns2(tmp_path: Path) -> None:
    script = tmp_path / "otcl.tcl"
    script.write_text(OTCL)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == OTCL_OUT


@needs_ns
def test_otcl_expectation_is_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "otcl.tcl"
    script.write_text(OTCL)
    assert run_ns(script, cwd=tmp_path).stdout == OTCL_OUT


EX = ROOT / "examples" / "ns2" / "sampler_class.tcl"


def _samples(path: Path) -> list[list[float]]:
    return [[float(x) for x in ln.split()] for ln in path.read_text().splitlines()]


@needs_session
def test_sampler_class_resets_the_sinks_bytes(tmp_path: Path) -> None:
    """The example's Sampler instproc reschedules itself with `$ns at ... "$self sample"` and
    sets each sink's bytes_ to 0 after reading it; the run ends at `$exp finish`, a method
    that calls exit. The samples add up to the bytes each sink received (the report's)."""
    r = run_cli("run", str(EX), "10", "s.tr", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == "Experiment: 1 Flow, 1 RenoFlow, 1 NewRenoFlow\n"
    rows = _samples(tmp_path / "s.tr")
    assert [row[0] for row in rows] == [0.5 * i for i in range(1, 20)]
    toml = tmp_path / "s.toml"
    assert run_cli("import-ns2", str(EX), "10", "x.tr", "-o", str(toml), cwd=tmp_path).code == 0
    rep = json.loads(run_cli("run", str(toml), "--json", cwd=tmp_path).stdout)
    for i, flow in enumerate(rep["flows"]):
        sampled = sum(row[i + 1] for row in rows) * 0.5 / 8 * 1e6  # bytes, to 9.5 s
        # the last sample is at 9.5 s: what arrives in (9.5, 10] is the rest
        assert sampled <= flow["rx_bytes"] <= sampled + 0.5 * 2e6 / 8 + 20 * 50, (i, flow)
        assert sampled > 0
    tcp = [f["tcp"] for f in rep["flows"]]
    assert [t["cc"] for t in tcp] == ["reno", "newreno", "tahoe"]  # each subclass's agent


@needs_ns
@needs_session
def test_sampler_class_as_ns2(tmp_path: Path) -> None:
    """The same example under ns-2.35, 20 s: the same sample times, each flow's sampled
    goodput within 5 %, the sum within 3 % (2026-11-27: 12.45 / 37.42 / 23.60 summed Mb/s
    samples in ns-2, 12.58 / 37.57 / 23.88 in bufferlab)."""
    (tmp_path / "ns").mkdir()
    (tmp_path / "bl").mkdir()
    run_ns(EX, "20", "s.tr", cwd=tmp_path / "ns")
    r = run_cli("run", str(EX), "20", "s.tr", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    a, b = _samples(tmp_path / "ns" / "s.tr"), _samples(tmp_path / "bl" / "s.tr")
    assert [x[0] for x in a] == [x[0] for x in b]
    ta = [sum(x[i] for x in a) for i in (1, 2, 3)]
    tb = [sum(x[i] for x in b) for i in (1, 2, 3)]
    assert sum(tb) == pytest.approx(sum(ta), rel=0.03)
    for x, y in zip(ta, tb, strict=True):
        assert y == pytest.approx(x, rel=0.05), (ta, tb)


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            "Class Echo -superclass Agent\nset e [new Echo]\n",
            3,
            "`new Echo`: new Echo: an agent written in OTcl",
        ),
        (
            "Class Gen -superclass Application\nGen instproc send {} {}\nset g [new Gen]\n",
            4,
            "an application written in OTcl",
        ),
        ("Class Agent/TCP\n", 2, "Agent/TCP is an ns-2 class"),
        ("Class Foo -superclass Nothing\n", 2, "Nothing is not a class"),
        (
            "Class Foo\nFoo instproc go {} {\n    set x 1\n    error boom\n}\n"
            "set f [new Foo]\n$f go\n",
            8,
            "Tcl error: boom (in Foo instproc go, line 3 of its body)",
        ),
        ("Class Foo\nset f [new Foo]\n$f fly\n", 4, "unable to dispatch method fly"),
        (
            "Class Foo\nFoo instproc go {} {\n    global ns\n    $ns node-config -x\n}\n"
            "set f [new Foo]\n$f go\n",
            5,
            "`$ns node-config -x`: wireless nodes are not modelled",
        ),
        (
            "Class Foo\nFoo instproc init {a} {}\nset f [new Foo]\n",
            4,
            'wrong # args: should be "Foo instproc init self class proc a"',
        ),
    ],
)
def test_otcl_errors_exit_2_naming_the_line(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    assert_script_refused(tmp_path, body, line, message)


def test_a_script_catches_its_own_otcl_errors(tmp_path: Path) -> None:
    script = tmp_path / "c.tcl"
    script.write_text(
        "Class Foo\nset f [new Foo]\nputs [catch {$f fly} m]\nputs $m\n"
        "puts [catch {$f set speed_} m]\nputs $m\n"
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "1" and re.fullmatch(r"_o\d+: unable to dispatch method fly", lines[1])
    assert lines[2:] == ["1", 'can\'t read "speed_": no such variable']


# A class that extends an ns-2 agent: its class variable is the agent's default, and its
# instproc reads the engine's cwnd_ and ack_ through instvar while the run goes on.
WATCHED = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
$ns queue-limit $n0 $n1 10
Class Agent/TCP/Watched -superclass Agent/TCP/Reno
Agent/TCP/Watched set window_ 12
Agent/TCP/Watched instproc report {} {
    global ns
    $self instvar cwnd_ ack_ window_ samples_
    incr samples_
    puts [format "%.1f cwnd %.3f ack %d window %d n %d" [$ns now] $cwnd_ $ack_ $window_ $samples_]
    $ns after 0.5 "$self report"
}
Agent/TCP/Watched instproc init {} { $self next; $self set samples_ 0 }
set tcp [new Agent/TCP/Watched]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0 "$ftp start"
$ns at 0.5 "$tcp report"
$ns at 3 "exit 0"
$ns run
"""
# `ns watched.tcl` (ns-2.35, 2026-11-27)
WATCHED_OUT = """\
0.5 cwnd 15.174 ack 53 window 12 n 1
1.0 cwnd 18.720 ack 113 window 12 n 2
1.5 cwnd 21.693 ack 173 window 12 n 3
2.0 cwnd 24.346 ack 234 window 12 n 4
2.5 cwnd 26.698 ack 294 window 12 n 5
"""


@needs_session
def test_subclass_of_an_agent_reads_the_engine_through_instvar(tmp_path: Path) -> None:
    script = tmp_path / "watched.tcl"
    script.write_text(WATCHED)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == WATCHED_OUT


@needs_ns
def test_watched_expectation_is_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "watched.tcl"
    script.write_text(WATCHED)
    assert run_ns(script, cwd=tmp_path).stdout == WATCHED_OUT


@needs_session
def test_instvar_write_to_an_agent_during_the_run_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "poke.tcl"
    script.write_text(
        WATCHED.replace(
            "Agent/TCP/Watched instproc init {} { $self next; $self set samples_ 0 }\n",
            "Agent/TCP/Watched instproc init {} { $self next; $self set samples_ 0 }\n"
            "Agent/TCP/Watched instproc poke {} {\n    $self instvar window_\n"
            "    set window_ 4\n}\n",
        ).replace('$ns at 3 "exit 0"', '$ns at 1 "$tcp poke"\n$ns at 3 "exit 0"')
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = r.stderr.strip()
    assert err.startswith(
        "error: poke.tcl:16 (in Agent/TCP/Watched instproc poke): `set window_"
    ), err
    assert "setting window_ of Agent/TCP/Reno after $ns run has started" in err


def test_class_declared_again_is_made_anew(tmp_path: Path) -> None:
    """As in OTcl (checked with `ns`): `Class B` once more resets its superclass to Object and
    drops its instprocs."""
    script = tmp_path / "again.tcl"
    script.write_text(
        "Class A\nClass B -superclass A\nB instproc hi {} {return hi}\nClass B\n"
        "puts [B info superclass]\nputs [llength [B info instprocs]]\n"
        "puts [catch {[new B] hi}]\n"
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == "Object\n0\n1\n"
