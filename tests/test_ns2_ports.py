"""Agents' ports as ns-2.35 numbers them (tcl/lib/ns-node.tcl `attach`: the node's port
classifier gives each agent the first free port, 0, 1, ... in the order they are attached):
`$agent port`, `$agent dst-port` (the peer's), and `$node agent PORT` (the agent there, or an
empty string), as the validation suites use them to reach a sink
(`[$node agent [$tcp dst-port]] set interval_ 100ms`). Compared with ns-2.35 where it is
installed."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both

SCRIPT = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]
$ns duplex-link $n0 $n1 1Mb 10ms DropTail
set u [new Agent/UDP]; $ns attach-agent $n1 $u
set t1 [$ns create-connection TCP $n0 TCPSink/DelAck $n1 0]
set t2 [$ns create-connection TCP $n0 TCPSink $n1 1]
puts "[$t1 port] [$t1 dst-port] [$t2 port] [$t2 dst-port] [$u port]"
set s [$n1 agent [$t1 dst-port]]
puts "[$s info class] [$s set interval_]"
puts "<[$n1 agent 7]>"
$ns at 0.1 "exit 0"
$ns run
"""


@needs_ns
def test_ports_are_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "ports.tcl"
    script.write_text(SCRIPT)
    _, _, out = run_both(script, tmp_path=tmp_path)
    assert out == "0 1 1 2 0\nAgent/TCPSink/DelAck 0.10000000000000001\n<>\n"
