"""ns-2's on/off sources from scripts, `Application/Traffic/Exponential` and `/Pareto`
(expoo.cc, pareto.cc): bursts of whole packets and idle times drawn from ns-2's default RNG
when the source starts and after each burst (traffic/ns2_onoff.rs). Against ns-2.35 where
`ns` is installed: the same events until two packets meet at one instant (ns-2's
double-precision clock orders such ties by rounding noise; docs/ns2-scripts.md), and the
per-source counts within the issue's 15 %."""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path

from conftest import needs_ns, run_cli, run_ns

SCRIPT = """\
set ns [new Simulator]
set tf [open oo.tr w]
$ns trace-all $tf
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 1Mb 10ms DropTail
$ns queue-limit $r0 $r1 15
foreach i {0 1 2} kind {Exponential Pareto Exponential} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb 2ms DropTail
    set udp($i) [new Agent/UDP]
    $ns attach-agent $s($i) $udp($i)
    set lm($i) [new Agent/LossMonitor]
    $ns attach-agent $r1 $lm($i)
    $ns connect $udp($i) $lm($i)
    set src($i) [new Application/Traffic/$kind]
    $src($i) set packetSize_ 500
    $src($i) set burst_time_ 200ms
    $src($i) set idle_time_ 100ms
    $src($i) set rate_ 600k
    $src($i) attach-agent $udp($i)
    $ns at [expr {0.2 * $i}] "$src($i) start"
}
proc finish {} {
    global lm tf
    foreach i {0 1 2} { puts "src$i npkts [$lm($i) set npkts_] nlost [$lm($i) set nlost_]" }
    close $tf
    exit 0
}
$ns at 20 finish
$ns run
"""
KEY = [0, 1, 2, 3, 4, 5, 7, 8, 9]  # event time from to type size fid src dst


def test_exponential_and_pareto_become_ns2_onoff_sources(tmp_path: Path) -> None:
    (tmp_path / "oo.tcl").write_text(SCRIPT)
    r = run_cli("import-ns2", "oo.tcl", "-o", "oo.toml", cwd=tmp_path)
    assert r.code == 0, r.stderr
    flows = tomllib.loads((tmp_path / "oo.toml").read_text())["flows"]
    apps = [f["app"] for f in flows]
    assert [a["flavour"] for a in apps] == ["ns2"] * 3
    assert apps[0]["on_time"] == {"kind": "exponential", "mean": "200ms"}
    assert apps[1]["off_time"] == {"kind": "pareto", "mean": "100ms", "shape": 1.5}
    # the source starts idle: nothing before an interval plus an idle time
    r = run_cli("run", "oo.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    first = next(ln.split() for ln in (tmp_path / "oo.tr").read_text().splitlines())
    assert float(first[1]) > 500 * 8 / 600e3


@needs_ns
def test_onoff_sources_as_ns2(tmp_path: Path) -> None:
    """2026-11-27: the 521 trace lines to 0.494 s (where an arrival and a departure meet at
    one instant and the queue is full) are ns-2.35's events, instant by instant (within an
    instant a departure may be written before an arrival); packets received per source 1453
    / 2129 / 1347 against ns-2's 1486 / 2068 / 1375 (-2.2 %, +2.9 %, -2.0 %)."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "oo.tcl").write_text(SCRIPT)
    ns = run_ns(Path("oo.tcl"), cwd=tmp_path / "ns")
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", "oo.tcl", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr

    def instants(path: Path) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for ln in path.read_text().splitlines():
            x = ln.split()
            if float(x[1]) < 0.494:
                out.setdefault(x[1], Counter())[" ".join(x[i] for i in KEY)] += 1
        return out

    a, b = instants(tmp_path / "ns" / "oo.tr"), instants(tmp_path / "bl" / "oo.tr")
    assert sum(sum(c.values()) for c in a.values()) == 521
    assert a == b

    def counts(text: str) -> list[int]:
        return [int(ln.split()[2]) for ln in text.splitlines()]

    for x, y in zip(counts(ns.stdout), counts(r.stdout), strict=True):
        assert abs(y / x - 1) <= 0.15, (x, y)
