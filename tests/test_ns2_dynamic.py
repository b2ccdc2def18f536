"""Applications started and stopped while the run goes on (`$ftp start` / `$cbr stop` run by a
proc, `$ns at` events scheduled during the run; the engine's Session.retime): examples/ns2/
dynamic_apps.tcl prints what ns-2.35 prints (within 3 %), a CBR source switched on and off
sends only while on, and what is not modelled (a TCP connection started again) stops with
exit 2."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import ROOT, assert_prints_as_ns2, needs_ns, run_cli, run_ns

EX = ROOT / "examples" / "ns2" / "dynamic_apps.tcl"
needs_retime = pytest.mark.skipif(
    not hasattr(getattr(_core, "Session", None), "retime"),
    reason="the compiled core has no Session.retime yet (make build)",
)


def _numbers(text: str) -> dict[str, list[float]]:
    out = {}
    for ln in text.splitlines():
        key = re.sub(r"-?\d+(\.\d+)?", "#", ln)
        out[key] = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", ln)]
    return out


@needs_retime
def test_procs_start_and_stop_applications(tmp_path: Path) -> None:
    r = run_cli("run", str(EX), cwd=tmp_path)
    assert r.code == 0, r.stderr
    got = _numbers(r.stdout)
    [(_, ack_at_2)] = [(k, v) for k, v in got.items() if k.startswith("controller")]
    assert ack_at_2[2] > 10  # so the controller starts flow 2
    # flow 1 stopped at 6 s: what it had sent by then arrived by 6.5 s, nothing after
    lines = r.stdout.splitlines()
    at = {ln.split()[1]: int(ln.split()[-1]) for ln in lines if ln.startswith("at ")}
    assert at["6.5"] == at["9.5"] > 0
    flows = {
        int(m[0]): (int(m[1]), int(m[2]))
        for m in re.findall(r"flow (\d) ack_ (\d+) bytes_ (\d+)", r.stdout)
    }
    assert flows[1][1] == at["9.5"]
    assert flows[2][0] > 100 and flows[2][1] > 100_000  # started at 2.5 s
    # the CBR source is on in [1, 3), [5, 7) and [9, 10): 5 s of 500 kb/s, 500-byte packets
    npkts, nbytes = (int(x) for x in re.search(r"cbr npkts_ (\d+) bytes_ (\d+)", r.stdout).groups())
    assert nbytes == npkts * 500
    assert 560 <= npkts <= 625


@needs_ns
@needs_retime
def test_dynamic_applications_as_ns2(tmp_path: Path) -> None:
    """ns-2.35 on the same script (2026-11-27): every line the same but flow 2's bytes_,
    1 016 120 in ns-2 against 1 020 280 (0.4 %)."""
    ns = run_ns(EX, cwd=tmp_path)
    r = run_cli("run", str(EX), cwd=tmp_path)
    assert r.code == 0, r.stderr
    a, b = _numbers(ns.stdout), _numbers(r.stdout)
    assert a.keys() == b.keys()
    for k in a:
        for x, y in zip(a[k], b[k], strict=True):
            assert y == pytest.approx(x, rel=0.03), (k, a[k], b[k])


RESTART = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set tcp [new Agent/TCP]
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
set udp [new Agent/UDP]
set null [new Agent/LossMonitor]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$ns at 0 "$cbr start"
$ns at 1 "$cbr stop"
$ns at 2 "$cbr start"
$ns at 0.5 "$ftp start"
$ns at 1 "$ftp stop"
$ns at 2 "$ftp start"
proc show {} {
	global ns tcp null
	puts [format "%.1f %d %d %.3f %d" [$ns now] [$tcp set ack_] [$tcp set t_seqno_]\
		[$tcp set cwnd_] [$null set npkts_]]
}
foreach t {0.9 1.5 1.9 2.5 2.9} { $ns at $t show }
$ns at 3 "exit 0"
$ns run
"""


@needs_retime
def test_a_tcp_connection_started_again_goes_on(tmp_path: Path) -> None:
    """The CBR source stopped at 1 s and started at 2 s goes on; the FTP (attach-source's
    Source/FTP) started at 0.5 s, stopped at 1 s (`advance 0`) and started again at 2 s
    (`advance 268435456`) goes on with the same connection: its ack_ and t_seqno_ carry on
    and, idle for more than an RTO, its window starts again from one segment."""
    script = tmp_path / "restart.tcl"
    script.write_text(RESTART)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines()]
    acks = [int(x[1]) for x in rows]
    assert acks[0] > 10 and acks[1] == acks[2] and acks[3] > acks[2] and acks[4] > acks[3]
    assert float(rows[2][3]) == 1.0  # cwnd_ after the idle timeout
    npkts = [int(x[4]) for x in rows]
    assert npkts[1] == npkts[2] and npkts[3] > npkts[2]  # the CBR was off from 1 to 2 s


@needs_ns
@needs_retime
def test_a_tcp_connection_started_again_as_ns2(tmp_path: Path) -> None:
    """ns-2.35 and bufferlab print the same five lines for RESTART (2026-11-27; the CBR's
    start at 2 s sends at once, before the FTP's packets of that instant, as in ns-2)."""
    script = tmp_path / "restart.tcl"
    script.write_text(RESTART)
    assert len(assert_prints_as_ns2(script, cwd=tmp_path).splitlines()) == 5


@needs_retime
def test_cbr_switched_on_and_off_sends_only_while_on(tmp_path: Path) -> None:
    script = tmp_path / "onoff.tcl"
    script.write_text(
        RESTART.replace('$ns at 2 "$ftp start"\n', "")
        .replace('$ns at 0.5 "$ftp start"\n$ns at 1 "$ftp stop"\n', "")
        .replace("set null [new Agent/Null]", "set null [new Agent/LossMonitor]")
        .replace(
            '$ns at 3 "exit 0"',
            'foreach t {0.9 1.2 1.9 2.9} { $ns at $t "puts \\"$t \\[$null set npkts_\\]\\"" }\n'
            '$ns at 3 "exit 0"',
        )
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    # its own lines (RESTART's `show` lines have five fields)
    n = [int(ln.split()[1]) for ln in r.stdout.splitlines() if len(ln.split()) == 2]
    # CBR's defaults: 448 kb/s of 210-byte packets, 266.7 a second; off from 1 s to 2 s
    assert len(n) == 4 and 230 <= n[0] <= 240
    assert n[1] == n[2] and n[1] - n[0] <= 40  # the last packets of the first second
    assert 230 <= n[3] - n[2] <= 267  # on again from 2 s
