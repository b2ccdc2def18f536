"""Each TCP sender's tick-clock phase is the `boot_time_` ns-2.35 draws for it (tcp.cc
`TcpAgent::reset`: `boot_time_ = Random::uniform(tcp_tick_)`, used in `rtt_update`).

`$ns run` resets every node in the order of `array names Node_` and each node its agents in the
order they were attached (ns-lib.tcl, ns-node.tcl), so each TCP sender draws once more there,
after everything the script drew; that last draw is its phase (`tcp.clock_phase`). The script
below has 20 nodes, whose array order is 17 0 18 1 19 2 3 ... 16 (Tcl 8.6; ns-2.35 prints the
same for `[$ns array names Node_]` after 20 `$ns node`), and two senders on node 18.
"""

from __future__ import annotations

import re
from itertools import groupby
from pathlib import Path

from conftest import needs_ns, run_cli, run_ns

# queues_004's Reno/DRR case (2 Mb/s, 20 ms, DRR blimit_ 20 800 B) with its four senders on
# nodes 16, 18, 17, 18; argv: trace file, end time.
SCRIPT = """\
set ns [new Simulator]
set tf [open [lindex $argv 0] w]
$ns trace-all $tf
for {set i 0} {$i < 20} {incr i} { set n($i) [$ns node] }
set L $n(0); set R $n(1)
$ns duplex-link $L $R 2Mb 20ms DRR
$ns queue-limit $L $R 20
foreach q [list [[$ns link $L $R] queue] [[$ns link $R $L] queue]] { $q set blimit_ 20800 }
foreach {i src dst start} {0 16 2 0.0  1 18 3 0.5  2 17 4 1.0  3 18 5 1.5} {
    if {![info exists linked($src)]} { $ns duplex-link $n($src) $L 10Mb 2ms DropTail }
    set linked($src) 1
    $ns duplex-link $R $n($dst) 10Mb 2ms DropTail
    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set fid_ [expr {$i + 1}]
    $ns attach-agent $n($src) $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $n($dst) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-source FTP]
    $ns at $start "$ftp($i) start"
}
$ns at 0.0 {puts "after the resets: [$defaultRNG next-random]"}
proc finish {} {
    global ns tf tcp
    $ns flush-trace; close $tf
    foreach i {0 1 2 3} { puts "$i [$tcp($i) set ack_] [$tcp($i) set nrexmitpack_]" }
    exit 0
}
$ns at [lindex $argv 1] finish
$ns run
"""

# The default stream (seed 1) as ns-2.35 prints it, `$defaultRNG next-random` 0, 1, 2, ...
# (`ns` of `for {set i 0} {$i < 9} {incr i} { puts [$defaultRNG next-random] }`,
# 2026-11-27). The four `new Agent/TCP/Reno` take values 0-3, `$ns run` 4-7 (node 17, node
# 18's first and second sender, node 16), the event at 0 s value 8.
STREAM = [
    729236,
    1193744747,
    30504276,
    189241995,
    947412623,
    1716173268,
    672080287,
    1753368969,
    503803425,
]


def test_each_sender_gets_the_draw_ns2_makes_for_it_at_run(tmp_path: Path) -> None:
    script = tmp_path / "phase.tcl"
    script.write_text(SCRIPT)
    toml = tmp_path / "phase.toml"
    r = run_cli("import-ns2", str(script), "x.tr", "20", "-o", str(toml), cwd=tmp_path)
    assert r.code == 0, r.stderr
    phases = [float(x) for x in re.findall(r"clock_phase = ([\d.e-]+)", toml.read_text())]
    # flows tcp0..tcp3 are the senders in creation order, on nodes 16, 18, 17, 18
    draws = [STREAM[7], STREAM[5], STREAM[4], STREAM[6]]
    assert len(phases) == 4
    for phase, d in zip(phases, draws, strict=True):
        # next-random is int(2^31 u): u lies in [d, d + 1) / 2^31; tcpTick_ 0.01
        assert d <= phase / 0.01 * 2**31 < d + 1, (phase, d)


def test_values_drawn_after_run_are_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "phase.tcl"
    script.write_text(SCRIPT)
    r = run_cli("run", str(script), "x.tr", "0.1", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert f"after the resets: {STREAM[8]}" in r.stdout


def _events(path: Path) -> list[tuple[str, list[tuple[str, ...]]]]:
    """Trace lines as (event, time, from, to, type, size, fid), those of one instant sorted
    (the two simulators order simultaneous events differently)."""
    rows = [tuple(w[i] for i in (0, 1, 2, 3, 4, 5, 7)) for w in map(str.split, path.open())]
    return [(t, sorted(g)) for t, g in groupby(rows, key=lambda r: r[1])]


@needs_ns
def test_the_run_is_ns2s_event_for_event(tmp_path: Path) -> None:
    """With every sender's tick phase 0 (before tcp.clock_phase) the traces part at 2.44 s,
    where a retransmission timer fires one tick apart; so do they with the run's draws given
    to the senders in creation order instead of ns-2's reset order."""
    script = tmp_path / "phase.tcl"
    script.write_text(SCRIPT)
    ns = run_ns(script, "ns.tr", "20", cwd=tmp_path)
    assert ns.returncode == 0, ns.stderr
    ours = run_cli("run", str(script), "bl.tr", "20", cwd=tmp_path)
    assert ours.code == 0, ours.stderr
    assert ours.stdout == ns.stdout  # ack_ and nrexmitpack_ of each sender at 20 s
    a, b = _events(tmp_path / "ns.tr"), _events(tmp_path / "bl.tr")
    assert sum(len(g) for _, g in a) == 85432
    first = next((x[0] for x, y in zip(a, b, strict=False) if x != y), None)
    assert first is None and len(a) == len(b), f"the traces part at {first} s"
