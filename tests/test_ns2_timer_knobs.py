"""ns-2.35 TCP agent variables and methods about the retransmission timer, the RTT estimator
and the connection's state that ns-2's validation suites use (issue #35): `timerfix_ false`
(tcp.cc `newack`) and `$tcp reset` / `$sink reset` (tcp.cc `TcpAgent::reset`, tcp-sink.cc
`TcpSink::reset`), `rttvar_exp_` (tcp.cc `rtt_update`), `$tcp dst-port` and `$node agent`.
Each script is the project's own, compared with ns-2.35 where it is
installed, its trace byte for byte (tcp/ns2_agent.rs and tcp/sender/reset.rs cite the rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli, trace_without

# A sender over a 800 kb/s bottleneck whose link drops the packets of a list (ErrorModule,
# ErrorModel/List): timeouts back to back, and new ACKs of timed packets just before a loss,
# where the timer restarted before or after the RTT sample expires at different times. (The
# list was found by drawing lists until `ns` ran differently with timerfix_ true and false.)
BASE = """\
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 800Kb 30ms DropTail
$ns queue-limit $n1 $n2 20
set em [new ErrorModule Fid]
set list [new ErrorModel/List]
$list droplist {2 3 8 22 36 43 56 57}
[$ns link $n1 $n2] errormodule $em
$em insert $list
$em bind $list 1
$em default pass
set tcp [$ns create-connection AGENT $n0 SINK $n2 1]
set sink [$n2 agent [$tcp dst-port]]
$tcp set window_ 8
SETTINGS
set ftp [$tcp attach-app FTP]
$ns at 0.1 "$ftp start"
EVENTS
$ns at 8 {close $f; puts [$sink set bytes_]; exit 0}
$ns run
"""


def _script(settings: str, agent: str = "TCP/Reno", sink: str = "TCPSink", events: str = "") -> str:
    return (
        BASE.replace("SETTINGS", settings)
        .replace("AGENT", agent)
        .replace("SINK", sink)
        .replace("EVENTS", events)
    )


TIMERFIX = "$tcp set timerfix_ false"

RESET = """\
$ns at 2.0 "$tcp reset"
$ns at 2.0 "$sink reset"
$ns at 2.3 "$ftp producemore 40"
"""

CASES = {
    # the timer a new ACK restarts is set before its RTT sample (tcp.cc newack)
    "timerfix_off_tahoe": _script(TIMERFIX, agent="TCP"),
    "timerfix_off_reno": _script(TIMERFIX),
    "timerfix_off_newreno": _script(TIMERFIX, agent="TCP/Newreno"),
    "timerfix_off_sack1": _script(TIMERFIX, agent="TCP/Sack1", sink="TCPSink/Sack1"),
    "timerfix_off_delack": _script(TIMERFIX, agent="TCP", sink="TCPSink/DelAck"),
    # the RTO's multiple of the mean deviation, and the estimator's gains (tcp.cc rtt_update)
    "rttvar_exp_3": _script("$tcp set rttvar_exp_ 3"),
    # both ends reset with packets in flight, then a new transfer (tcp.cc TcpAgent::reset)
    "reset_reno": _script("", events=RESET),
    "reset_sack1_delack": _script("", "TCP/Sack1", "TCPSink/Sack1/DelAck", events=RESET),
    "reset_newreno": _script("", "TCP/Newreno", events=RESET),
}

KNOB = re.compile(
    r"^(\$tcp set (timerfix_|rttvar_exp_) .*"
    r"|\$ns at [0-9.]+ \"\$(tcp|sink) reset\")$",
    re.M,
)


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_timer_variable_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert int(out) > 50_000  # bytes delivered in order by 8 s (across a reset too)
    trace = (bl_dir / "out.tr").read_bytes()
    assert trace == (ns_dir / "out.tr").read_bytes()
    # the variable is exercised: without its line the run is another one
    if KNOB.search(CASES[case]):
        assert trace_without(CASES[case], KNOB, tmp_path) != trace


def test_timerfix_reaches_the_scenario(tmp_path: Path) -> None:
    """Without ns-2: the translation writes timerfix_ into the flow's `ns2_agent` table."""
    script = tmp_path / "k.tcl"
    script.write_text(_script(TIMERFIX))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "k.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "timerfix = false" in (tmp_path / "k.toml").read_text()
