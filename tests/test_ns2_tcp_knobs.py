"""ns-2.35 TCP agent variables that ns-2's validation suites set away from their defaults
(issue #35): `delay_growth_ false`, `bugfix_ss_ 0`, `windowInitOption_ 2`,
`precisionReduce_ false`, `maxburst_` and `overhead_` (issue #36's send jitter). Each script
is compared with ns-2.35 where it is installed, its trace byte for byte (tcp/ns2_agent.rs,
tcp/sender/send_timing.rs cite the rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli, trace_without

# A sender, a 10 Mb/s access link and a 1.5 Mb/s bottleneck with a short DropTail queue, so
# that the window is halved several times and packets are lost in the first window too.
BASE = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 QLIMIT
set tcp [new Agent/AGENT]
$ns attach-agent $n0 $tcp
set sink [new Agent/SINK]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
$tcp set window_ 30
SETTINGS
set ftp [$tcp attach-app FTP]
$ns at 0.1 "$ftp start"
$ns at 6 {close $f; puts [$sink set bytes_]; exit 0}
$ns run
"""


def _script(settings: str, agent: str = "TCP/Reno", sink: str = "TCPSink", qlimit: int = 8) -> str:
    return (
        BASE.replace("SETTINGS", settings)
        .replace("AGENT", agent)
        .replace("SINK", sink)
        .replace("QLIMIT", str(qlimit))
    )


# A 2 Mb/s CBR source fills the bottleneck's queue for the first second: the sender's first
# data packet is lost, and three duplicate ACKs of packet 0 follow (highest_ack_ 0).
CROSS_TRAFFIC = """\
$tcp set windowInit_ 6
set udp [new Agent/UDP]
$ns attach-agent $n0 $udp
set null [new Agent/Null]
$ns attach-agent $n2 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 2Mb
$cbr set packetSize_ 1000
$cbr attach-agent $udp
$ns at 0.0 "$cbr start"
$ns at 1.0 "$cbr stop"
"""

CASES = {
    # the opening packet and the first data packet leave together (tcp.cc set_initial_window)
    "delay_growth_reno": _script("$tcp set delay_growth_ false"),
    "delay_growth_tahoe": _script("$tcp set delay_growth_ false", agent="TCP"),
    "delay_growth_newreno": _script("$tcp set delay_growth_ false", agent="TCP/Newreno"),
    "delay_growth_sack1": _script(
        "$tcp set delay_growth_ false", agent="TCP/Sack1", sink="TCPSink/Sack1"
    ),
    "delay_growth_delack": _script("$tcp set delay_growth_ false", sink="TCPSink/DelAck"),
    # the second packet of the first window lost: no fast retransmit at highest_ack_ 0
    "bugfix_ss_off": _script(CROSS_TRAFFIC + "$tcp set bugfix_ss_ 0", qlimit=3),
    "bugfix_ss_off_sack1": _script(
        CROSS_TRAFFIC + "$tcp set bugfix_ss_ 0", "TCP/Sack1", "TCPSink/Sack1", 3
    ),
    "bugfix_ss_on": _script(CROSS_TRAFFIC, qlimit=3),
    # RFC 3390's initial window by packet size (tcp.cc initial_window)
    "window_init_option_2": _script("$tcp set windowInitOption_ 2"),
    "window_init_option_2_large": _script(
        "$tcp set windowInitOption_ 2\n$tcp set packetSize_ 1500"
    ),
    # whole-packet halving (tcp.cc slowdown)
    "precision_reduce_off": _script("$tcp set precisionReduce_ false"),
    "precision_reduce_off_sack1": _script(
        "$tcp set precisionReduce_ false", "TCP/Sack1", "TCPSink/Sack1"
    ),
    # ns-2's older timer: minrto_ after the backoff (tcp.cc rtt_timeout)
    # a 3 Mb/s CBR source from 1 s to 3 s: timeouts back to back, RTO below minrto_
    "rfc2988_off": _script(
        CROSS_TRAFFIC.replace("rate_ 2Mb", "rate_ 3Mb")
        .replace('0.0 "$cbr start"', '1.0 "$cbr start"')
        .replace('1.0 "$cbr stop"', '3.0 "$cbr stop"')
        + "$tcp set minrto_ 1\n$tcp set rfc2988_ false",
        qlimit=2,
    ),
    # at most 2 packets per ACK (tcp.cc send_much)
    "maxburst": _script("$tcp set maxburst_ 2\n$tcp set windowInit_ 8", qlimit=20),
    "maxburst_sack1": _script(
        "$tcp set maxburst_ 2\n$tcp set delay_growth_ false", "TCP/Sack1", "TCPSink/Sack1"
    ),
}


KNOB = re.compile(
    r"^\$tcp set (bugfix_ss_|precisionReduce_|maxburst_|windowInitOption_|delay_growth_"
    r"|rfc2988_) .*$",
    re.M,
)


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_agent_variable_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert int(out) > 300_000  # bytes delivered in order by 6 s
    trace = (bl_dir / "out.tr").read_bytes()
    assert trace == (ns_dir / "out.tr").read_bytes()
    # the variable is exercised: without its line the run is another one
    if KNOB.search(CASES[case]):
        assert trace_without(CASES[case], KNOB, tmp_path) != trace


def test_the_knobs_reach_the_scenario(tmp_path: Path) -> None:
    """Without ns-2: the translation writes each variable into the flow's `ns2_agent` table
    (and overhead_ into `send_jitter`), and `bufferlab validate --json` shows them."""
    script = tmp_path / "k.tcl"
    script.write_text(
        _script(
            "$tcp set delay_growth_ false\n$tcp set bugfix_ss_ 0\n$tcp set precisionReduce_ "
            "false\n$tcp set maxburst_ 3\n$tcp set overhead_ 0.01\n$tcp set windowInitOption_ 2"
        )
    )
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "k.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = (tmp_path / "k.toml").read_text()
    assert 'send_jitter = "10ms"' in text
    for field in (
        "delay_growth = false",
        "bugfix_ss = false",
        "precision_reduce = false",
        "maxburst = 3",
        "iw = 4",
        "iw_after_syn_loss = 2",
    ):
        assert field in text, text


def test_a_window_init_option_ns2_does_not_have_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "w.tcl"
    script.write_text(_script("$tcp set windowInitOption_ 3"))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "windowInitOption_ 3: ns-2 has options 1 and 2 only" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
