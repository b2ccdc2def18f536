"""Idioms of the tutorials' scripts that once ran without an error but not as ns-2 runs them:
`$ns link-lossmodel` (the loss after the link's delay, not at its head), a start time of seven
significant digits from a RandomVariable (written to the scenario as %g's six), an Exponential
source sized by `packet_size_`, an SFQ bottleneck and `attach-app`. Compared with ns-2.35 event
for event where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from bufferlab.ns2.units import fmt_rate, fmt_time
from conftest import needs_ns, run_cli, run_ns

TUTORIAL_MIX = """\
set ns [new Simulator]
set tf [open mix.tr w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 5Mb 5ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms SFQ
$ns queue-limit $n1 $n2 20
set em [new ErrorModel]
$em unit pkt
$em set rate_ 0.02
$em ranvar [new RandomVariable/Uniform]
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $n0 $n1
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set lm [new Agent/LossMonitor]
$ns attach-agent $n2 $lm
$ns connect $udp $lm
$udp set fid_ 1
set exp [new Application/Traffic/Exponential]
$exp set packet_size_ 400
$exp set burst_time_ 200ms
$exp set idle_time_ 100ms
$exp set rate_ 300k
$exp attach-agent $udp
set tcp [new Agent/TCP/Newreno]
$tcp set window_ 30
$tcp set packetSize_ 552
$tcp set fid_ 2
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-app FTP]
set rng [new RNG]
$rng seed 7
set rv [new RandomVariable/Exponential]
$rv use-rng $rng
$rv set avg_ 0.5
set t1 [$rv value]
puts "ftp start at $t1"
$ns at $t1 "$ftp start"
$ns at 0.2 "$exp start"
proc finish {} {
    global ns tf sink lm tcp
    $ns flush-trace
    close $tf
    puts "[$sink set bytes_] [$lm set npkts_] [$lm set nlost_] [$lm set bytes_] [$tcp set ack_]"
    exit 0
}
$ns at 20.0 "finish"
$ns run
"""


def _script(tmp_path: Path) -> Path:
    path = tmp_path / "mix.tcl"
    path.write_text(TUTORIAL_MIX)
    return path


def test_link_losses_happen_at_the_far_end(tmp_path: Path) -> None:
    """Without ns-2: each `d` line of the lossy link comes a transmission and a propagation
    delay after its `-` (ns-2's link-lossmodel sits after the link's delay), with no `r`."""
    r = run_cli("run", str(_script(tmp_path)), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[0] == "ftp start at 3.027648e+00"
    sent: dict[str, float] = {}
    drops = 0
    for line in (tmp_path / "mix.tr").read_text().splitlines():
        f = line.split()
        if f[2:4] != ["0", "1"]:
            continue
        if f[0] == "-":
            sent[f[11]] = float(f[1])
        elif f[0] == "d":
            drops += 1
            size = int(f[5])
            assert float(f[1]) == pytest.approx(sent[f[11]] + size * 8 / 5e6 + 0.005, abs=2e-6)
    assert drops > 10
    # the TCP flow starts at the RandomVariable's value, all seven digits
    first_tcp = next(ln for ln in (tmp_path / "mix.tr").read_text().splitlines() if " tcp " in ln)
    assert first_tcp.split()[1] == "3.027648"


@needs_ns
def test_the_tutorial_mix_is_ns2s_event_for_event(tmp_path: Path) -> None:
    (tmp_path / "ns").mkdir()
    ns = run_ns(_script(tmp_path), cwd=tmp_path / "ns")
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(_script(tmp_path)), cwd=tmp_path)
    assert r.code == 0 and r.stdout == ns.stdout, r.stderr

    def events(path: Path) -> list[list[str]]:
        return [(f := ln.split())[:6] + f[7:11] for ln in path.read_text().splitlines()]

    ours, theirs = events(tmp_path / "mix.tr"), events(tmp_path / "ns" / "mix.tr")
    assert len(theirs) > 25_000
    assert ours == theirs


def test_times_and_rates_keep_every_digit() -> None:
    assert fmt_time(3.027648) == "3.027648s"
    assert fmt_time(0.001234567) == "1.234567ms"
    assert fmt_time(10.123456) == "10.123456s"
    assert fmt_time(0.02) == "20ms"
    assert fmt_rate(123456789) == "123456.789kbps"
    assert fmt_rate(1.5e6) == "1.5Mbps"
