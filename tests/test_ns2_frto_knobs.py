"""ns-2.35 recovery variables of ns-2's validation suites frto, pi, tcpOptions, tcpVariants and
quiescent: `exitFastRetrans_ false` (Reno, Newreno), Sack1's `partial_ack_ true`, F-RTO
(`frto_enabled_`, `sfrto_enabled_`) and the delayed-ACK sink's `RFC2581_immediate_ack_
false`. Each script (the network of test_ns2_tcp_knobs.py) is compared with ns-2.35 where it
is installed, its trace byte for byte (tcp/sender/ns2_exit_fast_retrans.rs,
ns2_sack1_partial_ack.rs, ns2_frto.rs and tcp/receiver.rs cite the rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli, trace_without
from test_ns2_tcp_knobs import CROSS_TRAFFIC, _script

SACK = ("TCP/Sack1", "TCPSink/Sack1")

CASES = {
    # tcp-reno.cc / tcp-newreno.cc recv: dupwnd_ without a fast retransmit
    "exit_fast_retrans_reno": _script("$tcp set exitFastRetrans_ false", qlimit=6),
    "exit_fast_retrans_newreno": _script(
        "$tcp set exitFastRetrans_ false", agent="TCP/Newreno", qlimit=3
    ),
    # tcp-sack1.cc partial_ack_action
    "partial_ack_sack1": _script("$tcp set partial_ack_ true", *SACK, qlimit=5),
    # tcp.cc F-RTO
    "frto_tahoe": _script("$tcp set frto_enabled_ true", agent="TCP", qlimit=2),
    "frto_reno": _script("$tcp set frto_enabled_ true", qlimit=3),
    "frto_newreno": _script("$tcp set frto_enabled_ true", agent="TCP/Newreno", qlimit=3),
    # a 2 Mb/s CBR source for the first second: timeouts in the first windows
    "sfrto_sack1": _script(CROSS_TRAFFIC + "$tcp set sfrto_enabled_ true", *SACK, qlimit=8),
    # tcp-sink.cc DelAckSink::recv
    "rfc2581_immediate_ack_off": _script(
        "$sink set RFC2581_immediate_ack_ false", sink="TCPSink/DelAck", qlimit=8
    ),
}

KNOB = re.compile(
    r"^\$(tcp|sink) set (exitFastRetrans_|partial_ack_|frto_enabled_|sfrto_enabled_"
    r"|RFC2581_immediate_ack_) .*$",
    re.M,
)


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_recovery_variable_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert int(out) > 100_000  # bytes delivered in order by 6 s
    trace = (bl_dir / "out.tr").read_bytes()
    assert trace == (ns_dir / "out.tr").read_bytes()
    # the variable is exercised: without its line the run is another one
    assert trace_without(CASES[case], KNOB, tmp_path) != trace


@pytest.mark.parametrize(
    ("agent", "setting", "field"),
    [
        ("TCP/Reno", "$tcp set exitFastRetrans_ false", "exit_fast_retrans = false"),
        ("TCP/Sack1", "$tcp set partial_ack_ true", "partial_ack = true"),
        ("TCP/Newreno", "$tcp set frto_enabled_ true", "frto_enabled = true"),
        ("TCP/Sack1", "$tcp set sfrto_enabled_ true", "sfrto_enabled = true"),
    ],
)
def test_the_knobs_reach_the_scenario(agent: str, setting: str, field: str, tmp_path: Path) -> None:
    """Without ns-2: the translation writes the variable into the flow's `ns2_agent` table."""
    script = tmp_path / "k.tcl"
    sink = "TCPSink/Sack1" if "Sack1" in agent else "TCPSink"
    script.write_text(_script(setting, agent=agent, sink=sink))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "k.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert field in (tmp_path / "k.toml").read_text()


@pytest.mark.parametrize(
    ("agent", "setting"),
    [
        # exitFastRetrans_ and partial_ack_ have no reader in these agents' C++: no effect
        ("TCP", "$tcp set exitFastRetrans_ false"),
        ("TCP/Reno", "$tcp set partial_ack_ true"),
    ],
)
def test_a_variable_the_agent_never_reads_is_accepted(
    agent: str, setting: str, tmp_path: Path
) -> None:
    script = tmp_path / "n.tcl"
    script.write_text(_script(setting, agent=agent))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "n.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "ns2_agent" not in (tmp_path / "n.toml").read_text()


def test_frto_on_vegas_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "v.tcl"
    script.write_text(_script("$tcp set frto_enabled_ true", agent="TCP/Vegas"))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "frto_enabled_" in r.stderr and "not modelled" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
