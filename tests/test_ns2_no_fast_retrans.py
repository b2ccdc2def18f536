"""ns-2.35's `noFastRetrans_ true` (testReno's `*_without_Fast_Retransmit` tests): only
`TcpAgent::recv` (tcp.cc) reads it, so Agent/TCP starts no fast retransmit at the
`numdupacks_`-th duplicate ACK and recovers by the timeout; Reno, Newreno and Sack1 have their
own `recv` and never read it (tcp/sender/ns2_no_fast_retrans.rs,
python/bufferlab/ns2/recovery_knobs.py). The script is the network of test_ns2_tcp_knobs.py,
compared with ns-2.35 byte for byte where it is installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli, trace_without
from test_ns2_tcp_knobs import _script

KNOB = re.compile(r"^\$tcp set noFastRetrans_ .*$", re.M)


@needs_ns
def test_agent_tcp_without_fast_retransmit_runs_as_ns2(tmp_path: Path) -> None:
    text = _script("$tcp set noFastRetrans_ true", agent="TCP", qlimit=4)
    script = tmp_path / "nofr.tcl"
    script.write_text(text)
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert int(out) > 100_000  # bytes delivered in order by 6 s
    trace = (bl_dir / "out.tr").read_bytes()
    assert trace == (ns_dir / "out.tr").read_bytes()
    # with fast retransmit (the line taken out) the run is another one
    assert trace_without(text, KNOB, tmp_path) != trace


def test_the_knob_reaches_the_scenario_for_agent_tcp(tmp_path: Path) -> None:
    """Without ns-2: Agent/TCP's `noFastRetrans_` becomes the flow's `ns2_agent` field."""
    script = tmp_path / "k.tcl"
    script.write_text(_script("$tcp set noFastRetrans_ true", agent="TCP"))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "k.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "no_fast_retrans = true" in (tmp_path / "k.toml").read_text()


@pytest.mark.parametrize(
    ("agent", "sink"),
    [("TCP/Reno", "TCPSink"), ("TCP/Newreno", "TCPSink"), ("TCP/Sack1", "TCPSink/Sack1")],
)
def test_agents_with_their_own_recv_accept_it_without_effect(
    agent: str, sink: str, tmp_path: Path
) -> None:
    script = tmp_path / "n.tcl"
    script.write_text(_script("$tcp set noFastRetrans_ true", agent=agent, sink=sink))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "n.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "no_fast_retrans" not in (tmp_path / "n.toml").read_text()
