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
from conftest import ROOT, needs_ns, run_cli, run_ns

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
set null [new Agent/Null]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr start
$ns at 1 "$cbr stop"
$ns at 2 "$cbr start"
$ns at 0.5 "$ftp start"
$ns at 1 "$ftp stop"
$ns at 2 "$ftp start"
$ns at 3 "exit 0"
$ns run
"""


@needs_retime
def test_a_tcp_connection_started_again_exits_2(tmp_path: Path) -> None:
    """The CBR source stopped at 1 s and started at 2 s goes on; the FTP started at 0.5 s,
    stopped at 1 s and started again at 2 s is not modelled."""
    script = tmp_path / "restart.tcl"
    script.write_text(RESTART)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1
    assert "Application/FTP" in err[0] and "start at 2 s" in err[0]
    assert "its TCP connection has started; starting it again is not modelled" in err[0]
    ok = tmp_path / "ok.tcl"
    ok.write_text(RESTART.replace('$ns at 2 "$ftp start"\n', ""))
    r = run_cli("run", str(ok), cwd=tmp_path)
    assert r.code == 0, r.stderr
    # import-ns2 keeps the first start and stop; the restart is left out, as dynamic
    toml = tmp_path / "r.toml"
    r = run_cli("import-ns2", str(ok), "-o", str(toml), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = toml.read_text()
    assert re.search(r'#   \$ns at 2 "_o\d+ start"', text)
    assert 'start = "0s"' in text and 'start = "500ms"' in text


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
    n = [int(ln.split()[1]) for ln in r.stdout.splitlines()]
    # CBR's defaults: 448 kb/s of 210-byte packets, 266.7 a second; off from 1 s to 2 s
    assert len(n) == 4 and 230 <= n[0] <= 240
    assert n[1] == n[2] and n[1] - n[0] <= 40  # the last packets of the first second
    assert 230 <= n[3] - n[2] <= 267  # on again from 2 s
