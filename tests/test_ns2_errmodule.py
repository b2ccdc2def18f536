"""ns-2's deterministic error models as its validation suites use them (support.tcl dropPkts and
dropPktsPeriodic, topologies.tcl's lossy links): `new ErrorModule Fid`, `ErrorModel/Periodic`
and `ErrorModel/List` inserted in it and bound to flow ids, `$link errormodule`; and defaults set
on classes bufferlab does not model. Each script is compared with ns-2.35 where it is installed
(what it prints, and its trace byte for byte); the refusals are one line with exit code 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import needs_ns, run_both, run_cli, run_ns

# Three flows through a 1 Mb/s bottleneck whose head holds the error module: TCP fid 1, TCP
# fid 2 and CBR over UDP fid 3 (its ACK-less packets only go forward). MODULE is replaced.
NET = """\
Trace set show_tcphdr_ 1
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 10
set lossy [$ns link $n1 $n2]
MODULE
set tcp1 [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
set tcp2 [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
set udp [$ns create-connection UDP $n0 Null $n2 3]
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 200k
$cbr attach-agent $udp
set ftp1 [$tcp1 attach-app FTP]
set ftp2 [$tcp2 attach-app FTP]
$ns at 0.1 "$ftp1 start; $cbr start"
$ns at 0.3 "$ftp2 start"
$ns at 3 "close $f; exit 0"
$ns run
"""

# dropPktsPeriodic and dropPkts of support.tcl, the unbound CBR flow passing by default
PERIODIC_AND_LIST = """\
set em [new ErrorModule Fid]
set periodic [new ErrorModel/Periodic]
$periodic unit pkt
$periodic set offset_ 3.0
$periodic set period_ 17.0
set list [new ErrorModel/List]
puts [$list droplist {12 4} 5]
$lossy errormodule $em
$em insert $periodic
$em bind $periodic 1
$em insert $list
$em bind $list 2
$em default pass
puts [expr {[$lossy errormodule] == $em}]
"""


def _both(module: str, tmp_path: Path) -> tuple[str, list[list[str]]]:
    script = tmp_path / "em.tcl"
    script.write_text(NET.replace("MODULE", module))
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    return out, [ln.split() for ln in ours.decode().splitlines()]


def _arrivals(
    lines: list[list[str]], key: Callable[[list[str]], str] = lambda f: f[7]
) -> dict[str, list[bool]]:
    """Each flow's (fid's) packets as they reach link 1->2's head, in order: True for those the
    error module lost (a `d` line with no `+` line: lost before the queue), False for the
    others (queued; the queue may drop them later)."""
    queued: set[str] = set()
    out: dict[str, list[bool]] = {}
    for f in lines:
        if f[2:4] != ["1", "2"]:
            continue
        if f[0] == "+":
            queued.add(f[11])
            out.setdefault(key(f), []).append(False)
        elif f[0] == "d" and f[11] not in queued:
            out.setdefault(key(f), []).append(True)
    return out


def _lost(arrivals: list[bool]) -> list[int]:
    """The positions (from 0) of the lost packets among a flow's arrivals."""
    return [i for i, lost in enumerate(arrivals) if lost]


@needs_ns
def test_periodic_and_list_models_bound_by_fid_drop_ns2s_packets(tmp_path: Path) -> None:
    out, lines = _both(PERIODIC_AND_LIST, tmp_path)
    assert out == "3\n1\n"
    seen = _arrivals(lines)
    # fid 1: the 3rd packet to reach the link (offset_ 3), then every 17th after it
    lost = _lost(seen["1"])
    assert len(lost) >= 4
    assert lost == list(range(2, len(seen["1"]), 17))[: len(lost)]
    # fid 2: its packets 4, 5 and 12, numbered from 0 (the list is sorted)
    assert _lost(seen["2"]) == [4, 5, 12]
    # the CBR flow (fid 3) is bound to nothing and passes (`default pass`)
    assert _lost(seen["3"]) == []


# one model bound to a range of fids counts their packets together; `default $model` sends
# the unbound CBR flow to a second model, byte-counted
SHARED_AND_DEFAULT = """\
set em [new ErrorModule Fid]
set shared [new ErrorModel/Periodic]
$shared set offset_ 5
$shared set period_ 30
$shared set burstlen_ 2
set bytes [new ErrorModel/List]
$bytes unit byte
$bytes droplist 3000 9000
$lossy errormodule $em
$em insert $shared
$em insert $bytes
$em bind $shared 1 2
$em bind $bytes 7
$em default $bytes
puts [llength [$em errormodels]]
"""


@needs_ns
def test_shared_range_bindings_bytes_and_a_default_model_are_ns2s(tmp_path: Path) -> None:
    out, lines = _both(SHARED_AND_DEFAULT, tmp_path)
    assert out == "2\n"
    seen = _arrivals(lines)
    # fids 1 and 2 share one count: the 5th of their packets together (offset_ 5) is lost,
    # then the next (burstlen_ 2: the count is 1 after the loss), then each 30th and the next
    shared = _arrivals([f for f in lines if f[7] in ("1", "2")], key=lambda f: "shared")
    lost = _lost(shared["shared"])
    assert len(lost) >= 4
    expect = [i for k in range(4, len(shared["shared"]), 30) for i in (k, k + 1)]
    assert lost == expect[: len(lost)]
    # the CBR flow (fid 3, unbound) goes to the byte-counted list: 210-byte packets, the ones
    # during which the count reaches 3000 (the 15th) and 9000 (the 43rd)
    assert _lost(seen["3"]) == [14, 42]


def test_an_unbound_fid_without_default_is_refused(tmp_path: Path) -> None:
    """ns-2 stops at the first packet of fid 3 (the classifier's no-slot handler);
    bufferlab refuses the script before running it."""
    script = tmp_path / "u.tcl"
    script.write_text(NET.replace("MODULE", PERIODIC_AND_LIST.replace("$em default pass\n", "")))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "no model bound to fid 3" in r.stderr and "no default" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@needs_ns
def test_a_delaying_error_model_delays_as_ns2(tmp_path: Path) -> None:
    """delay_pkt_ true: the chosen packets reach the queue delay_ later instead of being
    dropped (errmodel.cc ErrorModel::recv); the trace is ns-2's byte for byte."""
    module = "ErrorModel set delay_pkt_ true\nErrorModel set delay_ 0.25\n" + PERIODIC_AND_LIST
    out, lines = _both(module, tmp_path)
    assert out == "3\n1\n"
    # no loss at the head: every packet that reaches link 1->2 is queued or dropped there
    assert not any(_lost(seen) for seen in _arrivals(lines).values())


def test_a_delaying_random_error_model_is_refused_naming_it(tmp_path: Path) -> None:
    module = "set em [new ErrorModel]\n$em set rate_ 0.01\n$em set delay_pkt_ true\n"
    script = tmp_path / "d.tcl"
    script.write_text(NET.replace("MODULE", module + "$ns lossmodel $em $n1 $n2\n"))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "delay_pkt_ true" in r.stderr and "not modelled" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# The suites set defaults of every class a file's tests use at its top; a class bufferlab
# does not model only matters when the script makes an object of it.
DEFAULTS = """\
Agent/TFRC set ss_changes_ 1
Agent/TFRCSink set discount_ 1
puts [Agent/TFRC set ss_changes_]
"""


@needs_ns
def test_a_default_on_an_unmodelled_class_is_kept_until_an_object_is_made(
    tmp_path: Path,
) -> None:
    out, _ = _both(DEFAULTS, tmp_path)
    assert out == "1\n"
    script = tmp_path / "tfrc.tcl"
    script.write_text(NET.replace("MODULE", DEFAULTS + "set tfrc [new Agent/TFRC]\n"))
    assert run_ns(script, cwd=tmp_path).returncode == 0
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "Agent/TFRC is not modelled" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# ns-lib.tcl `$ns delay n1 n2 d ?duplex?` before the run, as the ecn and sack suites set their
# bottleneck's delay: each direction given, or both with duplex
@needs_ns
def test_ns_delay_sets_the_links_propagation_delay_as_ns2(tmp_path: Path) -> None:
    module = "$ns delay $n1 $n2 35ms\n$ns delay $n2 $n1 35ms\n$ns delay $n0 $n1 5ms duplex\n"
    _, lines = _both(module, tmp_path)
    # the first data packet: queued at node 1 at t, received at node 2 35 ms plus its
    # 1040 bytes' transmission at 1 Mb/s later
    plus = next(f for f in lines if f[0] == "-" and f[2:4] == ["1", "2"])
    recv = next(f for f in lines if f[0] == "r" and f[2:4] == ["1", "2"] and f[11] == plus[11])
    size = int(plus[5])
    assert abs(float(recv[1]) - float(plus[1]) - (0.035 + size * 8 / 1e6)) < 1e-9


# The same models in a scenario file (net/error_module.rs): two CBR flows of 1000 packets over
# an uncongested bottleneck
PER_FLOW_TOML = """\
name = "per-flow"
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 2
[links.access]
rate = "100Mbps"
delay = "1ms"
[links.bottleneck]
rate = "100Mbps"
delay = "10ms"
[links.bottleneck.loss]
kind = "per_flow"
UNBOUND
[[links.bottleneck.loss.models]]
kind = "periodic"
flows = [0]
offset = 1
period = 10
[[flows]]
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "4Mbps", packet_size = "1000B" }
[[flows]]
src = "s1"
dst = "d1"
app = { kind = "cbr", rate = "4Mbps", packet_size = "1000B" }
"""


def test_a_scenario_file_loses_the_periodic_packets_of_its_flows() -> None:
    import bufferlab

    def lost(unbound: str) -> list[int]:
        s = bufferlab.Scenario.from_text(PER_FLOW_TOML.replace("UNBOUND", unbound))
        flows = bufferlab.run(s).flows
        assert list(flows["tx_packets"]) == [1000, 1000]
        return list(flows["lost_packets"])

    # flow 0 (trace_fid 0): its packets 1, 11, ... 991; flow 1 is bound to nothing: it passes
    assert lost("") == [100, 0]
    # `unbound = 0`: flow 1 goes through the same model, which counts both flows' packets
    assert sum(lost("unbound = 0")) == 200


def test_marking_packets_that_are_not_ecn_capable_is_refused(tmp_path: Path) -> None:
    """ns-2's markecn_ sets the CE bit of any packet it selects (a trace flag `E` without
    `N`); bufferlab's packets carry CE only with ECT, so the script is refused naming it."""
    script = tmp_path / "m.tcl"
    module = PERIODIC_AND_LIST.replace(
        "$em default pass\n", "$em default pass\n$periodic set markecn_ true\n"
    )
    script.write_text(NET.replace("MODULE", module))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "markecn_ true would mark fid 1 (no ecn_)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
