"""The script's own random numbers are ns-2.35's (python/bufferlab/ns2/rng.py): L'Ecuyer's
MRG32k3a streams and substreams as ns-2's tools/rng.cc seeds and advances them, the
RandomVariable transforms of tools/ranvar.cc, the RNG procs of tcl/lib/ns-random.tcl and
`ns-random`. The reference values below were printed by ns-2.35 (Debian's ns2, `ns`), with the
command given beside each; where `ns` is installed the tests also run it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bufferlab.ns2.rng import Package, Stream
from conftest import needs_ns, run_cli, run_ns


def test_streams_and_substreams_known_values() -> None:
    """Measured with ns-2.35, 2026-11-27:
        echo 'puts [$defaultRNG all-seeds]; puts "[$defaultRNG next-random] \
          [$defaultRNG next-random]"; set r [new RNG]; puts [$r all-seeds]; \
          set r2 [new RNG]; puts [$r2 all-seeds]; $r seed 7; set r3 [new RNG]; \
          $r3 next-substream; puts "[$r3 all-seeds] [$r3 next-random]"' > r.tcl && ns r.tcl
    """
    package = Package()
    default = Stream(package)  # ns-random.tcl: [new RNG], then seed 1
    default.seed(1)
    assert default.all_seeds() == [1] * 6
    assert [default.next_random(), default.next_random()] == [729236, 1193744747]
    r = Stream(package)
    assert r.all_seeds() == [2662865579, 741857976, 4206142246, 3352832365, 2519202871, 655500294]
    r2 = Stream(package)
    assert r2.all_seeds() == [3784663252, 802042081, 160569404, 3391851556, 2150317468, 54240022]
    r.seed(7)  # moves the package too: the next RNG starts 2^127 steps after (7, ..., 7)
    r3 = Stream(package)
    r3.next_substream()
    assert r3.all_seeds() == [
        679848248,
        2882985923,
        2534791047,
        1050160779,
        3652164395,
        3934855781,
    ]
    assert r3.next_random() == 1816879650
    # echo 'set r [new RNG]; $r seed 12345; puts [$r next-random]' > k.tcl && ns k.tcl
    k = Stream(Package())
    k.seed(12345)
    assert k.next_random() == 272754307


REPS = """\
# Replications in the ns-2 manual's style: one RNG per random quantity, substream N for
# replication N; then start times jittered with the default RNG.
set run [expr {$argc > 0 ? [lindex $argv 0] : 1}]
set arrivalRNG [new RNG]
set sizeRNG [new RNG]
for {set j 1} {$j < $run} {incr j} {
    $arrivalRNG next-substream
    $sizeRNG next-substream
}
set arrival [new RandomVariable/Exponential]
$arrival set avg_ 5
$arrival use-rng $arrivalRNG
set size [new RandomVariable/Pareto]
$size set avg_ 5000
$size set shape_ 1.2
$size use-rng $sizeRNG
for {set j 0} {$j < 4} {incr j} {
    puts [format "%-8.3f %6d" [$arrival value] [expr {round([$size value])}]]
}
set n [new RandomVariable/Normal]
$n set std_ 2
puts "normal [$n value] [$n value] [$n value] [$defaultRNG normal 1 1] [$defaultRNG lognormal 0 1]"
set u [new RandomVariable/Uniform]
$u set min_ -1
puts "uniform [$u value] [$defaultRNG uniform 2 3] [uniform 0 1] [integer 1000] [exponential]"
$defaultRNG seed 99
puts "seed 99: [ns-random] [$defaultRNG next-random] [[new RNG] next-random]"
"""

# `ns reps.tcl 1` and `ns reps.tcl 3` (ns-2.35, 2026-11-27): Exponential and Pareto values of
# substreams 1 and 3 of two RNGs, then the default RNG's Normal (%6e), normal and lognormal
# (%g, with normal's spare value shared between RNGs), uniform, integer and exponential (Tcl
# doubles, 17 digits), and after `$defaultRNG seed 99` ns-random, next-random and a new RNG.
REPS_1 = """\
8.965      1754
0.969      3212
1.409       937
3.094      1334
normal -5.428234e-01 2.760461e+00 -1.128683e+00 1.95489 0.28126
uniform -3.818419e-01 2.8363235368562507 0.16414540641202843 612 0.44618139053106654
seed 99: 71084860 68642574 1026553925
"""
REPS_3 = """\
1.286      3299
0.539      1095
1.460      1293
1.906      3154
normal -5.428234e-01 2.760461e+00 -1.128683e+00 1.95489 0.28126
uniform -3.818419e-01 2.8363235368562507 0.16414540641202843 612 0.44618139053106654
seed 99: 71084860 68642574 1026553925
"""


@pytest.mark.parametrize(("run", "expected"), [("1", REPS_1), ("3", REPS_3)])
def test_script_random_values_are_ns2s(tmp_path: Path, run: str, expected: str) -> None:
    script = tmp_path / "reps.tcl"
    script.write_text(REPS)
    r = run_cli("run", str(script), run, cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == expected


@needs_ns
@pytest.mark.parametrize(("run", "expected"), [("1", REPS_1), ("3", REPS_3)])
def test_reference_values_are_ns2s(tmp_path: Path, run: str, expected: str) -> None:
    script = tmp_path / "reps.tcl"
    script.write_text(REPS)
    assert run_ns(script, run, cwd=tmp_path).stdout == expected


JITTER = """\
set ns [new Simulator]
$defaultRNG seed 7
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 2Mb 10ms DropTail
set rng [new RNG]
$rng next-substream
set jitter [new RandomVariable/Uniform]
$jitter set max_ 0.5
$jitter use-rng $rng
for {set i 0} {$i < 3} {incr i} {
    set tcp($i) [new Agent/TCP/Reno]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $n0 $tcp($i)
    $ns attach-agent $n1 $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-source FTP]
    set a [$jitter value]
    set b [$defaultRNG uniform 0 0.1]
    puts "a $a b $b"
    set t [expr {$a + $b}]
    puts "start $i $t"
    $ns at $t "$ftp($i) start"
}
$ns at 2 "exit 0"
$ns run
"""

# `ns jitter.tcl` (ns-2.35, 2026-11-27). Each `new Agent/TCP/Reno` draws one value from the
# default RNG in ns-2, so the default RNG's uniforms are its 2nd, 4th and 6th values.
JITTER_OUT = """\
a 4.230253e-01 b 0.089114919625741862
start 0 0.51214021962574185
a 3.415677e-01 b 0.061683233809509887
start 1 0.40325093380950988
a 4.391656e-01 b 0.059406708674229085
start 2 0.49857230867422908
"""


def test_jittered_start_times_are_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "jitter.tcl"
    script.write_text(JITTER)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == JITTER_OUT
    # and they are the flows' start times
    toml = tmp_path / "j.toml"
    assert run_cli("import-ns2", str(script), "-o", str(toml), cwd=tmp_path).code == 0
    starts = [float(x) for x in re.findall(r"^start = ([\d.e-]+)$", toml.read_text(), re.M)]
    printed = [float(x) for x in re.findall(r"^start \d (\S+)$", JITTER_OUT, re.M)]
    assert starts == printed
    assert "seed = 7" in toml.read_text()


@needs_ns
def test_jitter_reference_is_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "jitter.tcl"
    script.write_text(JITTER)
    assert run_ns(script, cwd=tmp_path).stdout == JITTER_OUT


def test_seed_option_replaces_the_scripts_seed(tmp_path: Path) -> None:
    script = tmp_path / "s.tcl"
    script.write_text("$defaultRNG seed 3\nputs [ns-random]\nputs [$defaultRNG seed]\n")
    a = run_cli("run", str(script), cwd=tmp_path)
    b = run_cli("run", str(script), "--seed", "5", cwd=tmp_path)
    assert a.code == b.code == 0, (a.stderr, b.stderr)
    assert a.stdout.splitlines()[1] != b.stdout.splitlines()[1]
    c = tmp_path / "c.tcl"
    c.write_text("$defaultRNG seed 5\nputs [ns-random]\nputs [$defaultRNG seed]\n")
    assert run_cli("run", str(c), cwd=tmp_path).stdout == b.stdout


def test_bad_seed_is_a_tcl_error(tmp_path: Path) -> None:
    script = tmp_path / "bad.tcl"
    script.write_text("set r [new RNG]\nputs [catch {$r seed -4} m]\nputs $m\n")
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == "1\nSetting random number seed to known bad value.\n"


def test_jump_matrices_are_the_recurrences_squared() -> None:
    """The written-out A^(2^76) and A^(2^127) of rng.py are its one-step matrices squared 76
    and 127 times (ns-2.35 rng.cc A1p76, A2p76, A1p127, A2p127)."""
    from bufferlab.ns2 import rng

    assert rng._two_pow(rng._A1, 76, rng.M1) == rng._A1P76
    assert rng._two_pow(rng._A2, 76, rng.M2) == rng._A2P76
    assert rng._two_pow(rng._A1, 127, rng.M1) == rng._A1P127
    assert rng._two_pow(rng._A2, 127, rng.M2) == rng._A2P127
