"""ns-2's Queue/REM and Queue/RED/RIO from scripts (queue/rem.cc, queue/rio.cc; bufferlab's
qdisc/rem.rs and qdisc/rio.rs): their variables become the `rem` and `rio` disciplines' fields,
and their random tests draw from ns-2's default RNG, so the scripts of examples/ns2 lose and
mark ns-2's packets (checked against ns-2.35 where `ns` is installed)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import ROOT, needs_ns, run_cli, run_ns

REM = ROOT / "examples" / "ns2" / "rem_aqm.tcl"
RIO = ROOT / "examples" / "ns2" / "rio_aqm.tcl"


def _queues(tmp_path: Path, script: Path, kind: str) -> list[dict]:
    out = tmp_path / f"{kind}.toml"
    r = run_cli("import-ns2", str(script), "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    scenario = tomllib.loads(out.read_text())
    assert "state" in scenario["ns2_default_rng"]
    return [link["queue"] for link in scenario["links"].values() if link["queue"]["kind"] == kind]


def test_queue_rem_variables_become_the_rem_discipline(tmp_path: Path) -> None:
    q = _queues(tmp_path, REM, "rem")
    assert len(q) == 1
    a = q[0]
    # pbo_ set by the script, the rest ns-default.tcl's (as ns-2.35 prints them)
    assert (a["pbo"], a["gamma"], a["phi"], a["inw"]) == (20, 0.001, 1.001, 1)
    assert a["update_interval"] == "2ms" and a["mean_pktsize"] == "1000B"
    assert a["limit"] == "100p" and not a["ecn"] and not a["queue_in_bytes"]


def test_queue_rio_variables_become_the_rio_discipline(tmp_path: Path) -> None:
    q = _queues(tmp_path, RIO, "rio")[0]
    assert (q["in_min_th"], q["in_max_th"], q["out_min_th"], q["out_max_th"]) == (10, 20, 3, 9)
    # the Out probability reads RED's linterm_ (10), not out_linterm_ (rio.cc)
    assert (q["in_linterm"], q["out_linterm"], q["q_weight"]) == (50, 10, 0.002)
    assert q["limit"] == "100p" and q["wait"] and not q["in_gentle"] and not q["out_gentle"]


def test_rio_with_an_edge_tagger_is_refused_with_the_reason(tmp_path: Path) -> None:
    script = tmp_path / "t.tcl"
    script.write_text(RIO.read_text().replace("priority_method_ 1", "priority_method_ 0"))
    r = run_cli("run", str(script), "1", "t.tr", cwd=tmp_path)
    assert r.code == 2
    assert "priority_method_ 0" in r.stderr and "set priority_method_ 1" in r.stderr


def _same_trace(tmp_path: Path, script: Path, *args: str) -> str:
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
    ns = run_ns(script, *args, cwd=tmp_path / "ns")
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(script), *args, cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout
    trace = args[1]
    a = (tmp_path / "ns" / trace).read_bytes()
    assert len(a) > 500_000
    assert (tmp_path / "bl" / trace).read_bytes() == a
    return r.stdout


@needs_ns
def test_rem_dropping_as_ns2(tmp_path: Path) -> None:
    """The whole trace, byte for byte (4855 arrivals at the REM queue, 48 dropped, 20 s;
    2026-11-29)."""
    out = _same_trace(tmp_path, REM, "20", "rem.tr", "0")
    assert "queue arrivals 4855 drops 48" in out


@needs_ns
def test_rem_marking_as_ns2(tmp_path: Path) -> None:
    """markpkts_ true with ECN senders: no drop, the marks drawn at every dequeue (also of an
    empty queue) as rem.cc draws them; the whole trace byte for byte (2026-11-29)."""
    out = _same_trace(tmp_path, REM, "20", "rem.tr", "1")
    assert "queue arrivals 4819 drops 0" in out


@needs_ns
def test_rio_as_ns2(tmp_path: Path) -> None:
    """Two In flows (fid_ 1) and two Out (fid_ 0): every trace line ns-2's, the In packets'
    P flag included (4818 arrivals, 43 drops, 20 s; the Out flows get 139 and 46 packets
    through, the In 2625 and 1906; 2026-11-29)."""
    out = _same_trace(tmp_path, RIO, "20", "rio.tr")
    assert "queue arrivals 4818 drops 43" in out and "tcp1 ack_ 2625" in out


SAMPLED = REM.read_text().replace(
    'set qm [$ns monitor-queue $r0 $r1 ""]',
    'set qm [$ns monitor-queue $r0 $r1 ""]\n'
    "set remq [[$ns link $r0 $r1] queue]\n"
    "proc sample {} {\n"
    "    global ns remq\n"
    '    puts [format "%.2f prob_ %s curq_ %s" [$ns now] [$remq set prob_] [$remq set curq_]]\n'
    "    $ns at [expr {[$ns now] + 0.5}] sample\n"
    "}\n"
    "$ns at 0.25 sample",
)


@needs_ns
def test_rem_variables_as_ns2(tmp_path: Path) -> None:
    """`prob_` between packet events (the timer's updates since the last one applied) and
    `curq_`, read during the run: ns-2's numbers."""
    (tmp_path / "s.tcl").write_text(SAMPLED)
    ns = run_ns(tmp_path / "s.tcl", "6", "a.tr", cwd=tmp_path)
    r = run_cli("run", "s.tcl", "6", "b.tr", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout
    assert "1.25 prob_ 0.00116484 curq_ 62" in r.stdout


def test_extra_words_after_an_ns2_objects_set_are_ignored(tmp_path: Path) -> None:
    """test-suite-rem.tcl writes `$remq set phi_ 5 # This is just for fun.`: tclcl's `set` of
    an ns-2 object reads the variable and the value and ignores the rest (ns-2.35 sets phi_ to
    5), where a pure OTcl object's `set` would refuse them."""
    script = tmp_path / "phi.tcl"
    script.write_text(
        REM.read_text().replace(
            'set qm [$ns monitor-queue $r0 $r1 ""]',
            "[[$ns link $r0 $r1] queue] set phi_ 5 # This is just for fun.\n"
            'set qm [$ns monitor-queue $r0 $r1 ""]',
        )
    )
    out = tmp_path / "phi.toml"
    r = run_cli("import-ns2", str(script), "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    scenario = tomllib.loads(out.read_text())
    rem = [link["queue"] for link in scenario["links"].values() if link["queue"]["kind"] == "rem"]
    assert rem[0]["phi"] == 5


def test_old_code_reaches_sack1_agents_only(tmp_path: Path) -> None:
    """test-suite-rio.tcl sets `Agent/TCP set oldCode_ true`, which only tcp-sack1.cc reads
    (fast recovery's first pipe_ from int(cwnd_)): a Sack1 flow gets `old_code`, another
    agent with it is refused."""
    sack = (
        RIO.read_text()
        .replace("Agent/TCP/Newreno", "Agent/TCP/Sack1")
        .replace("[new Agent/TCPSink]", "[new Agent/TCPSink/Sack1]")
        .replace("set ns [new Simulator]", "Agent/TCP set oldCode_ true\nset ns [new Simulator]")
    )
    (tmp_path / "sack.tcl").write_text(sack)
    r = run_cli("import-ns2", "sack.tcl", "-o", "sack.toml", cwd=tmp_path)
    assert r.code == 0, r.stderr
    flows = tomllib.loads((tmp_path / "sack.toml").read_text())["flows"]
    assert all(f["tcp"]["ns2_agent"]["old_code"] is True for f in flows)
    reno = RIO.read_text().replace(
        "set ns [new Simulator]", "Agent/TCP set oldCode_ true\nset ns [new Simulator]"
    )
    (tmp_path / "reno.tcl").write_text(reno)
    r = run_cli("run", "reno.tcl", "1", "reno.tr", cwd=tmp_path)
    assert r.code == 2 and "oldCode_" in r.stderr
