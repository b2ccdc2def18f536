"""ns-2's Queue/PI from scripts (queue/pi.cc, bufferlab's qdisc/pi.rs): its variables become
the `pi` discipline's fields, and its drop test draws from ns-2's default RNG, so a PI script
loses ns-2's packets (examples/ns2/pi_aqm.tcl, checked against ns-2.35 where `ns` is
installed)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import ROOT, assert_prints_as_ns2, needs_ns, run_cli, run_ns

EX = ROOT / "examples" / "ns2" / "pi_aqm.tcl"
KEY = [0, 1, 2, 3, 4, 5, 7, 8, 9]  # event time from to type size fid src dst


def _lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text().splitlines()]


def test_queue_pi_variables_become_the_pi_discipline(tmp_path: Path) -> None:
    r = run_cli("import-ns2", str(EX), "-o", str(tmp_path / "pi.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    scenario = tomllib.loads((tmp_path / "pi.toml").read_text())
    pi = [link["queue"] for link in scenario["links"].values() if link["queue"]["kind"] == "pi"]
    assert len(pi) == 1
    q = pi[0]
    # qref_ set by the script, the rest ns-default.tcl's
    assert (q["qref"], q["a"], q["b"], q["w"]) == (20, 1.822e-5, 1.816e-5, 170)
    assert q["limit"] == "100p" and q["mean_pktsize"] == "500B"
    assert not q["byte_mode"] and not q["queue_in_bytes"] and not q["ecn"]
    assert "state" in scenario["ns2_default_rng"]


@needs_ns
def test_pi_script_as_ns2(tmp_path: Path) -> None:
    """Every trace line (4859 arrivals at the PI queue, 20 of them dropped, in 20 s) and every
    printed line are ns-2.35's (2026-11-27)."""
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
    ns = run_ns(EX, "20", "pi.tr", cwd=tmp_path / "ns")
    assert ns.returncode == 0, ns.stderr
    r = run_cli("run", str(EX), "20", "pi.tr", cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    assert r.stdout == ns.stdout
    assert "queue arrivals 4859 drops 20" in r.stdout
    a, b = _lines(tmp_path / "ns" / "pi.tr"), _lines(tmp_path / "bl" / "pi.tr")
    assert len(a) == len(b) > 10_000
    assert [[ln[i] for i in KEY] for ln in a] == [[ln[i] for i in KEY] for ln in b]


SAMPLED = EX.read_text().replace(
    'set qm [$ns monitor-queue $r0 $r1 ""]',
    'set qm [$ns monitor-queue $r0 $r1 ""]\n'
    "set piq [[$ns link $r0 $r1] queue]\n"
    "proc sample {} {\n"
    "    global ns piq\n"
    '    puts [format "%.2f prob_ %s curq_ %s" [$ns now] [$piq set prob_] [$piq set curq_]]\n'
    "    $ns at [expr {[$ns now] + 0.5}] sample\n"
    "}\n"
    "$ns at 0.25 sample",
)


def test_pi_variables_read_during_the_run(tmp_path: Path) -> None:
    """`prob_` (the drop probability as the 1/w updates left it) and `curq_` (the queue the
    last arrival found or the last departure left) at any time: the probability grows while
    the queue stands above qref_ 20."""
    (tmp_path / "s.tcl").write_text(SAMPLED)
    r = run_cli("run", "s.tcl", "6", "s.tr", cwd=tmp_path)
    assert r.code == 0, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if "prob_" in ln]
    assert len(rows) == 12
    probs = [float(x[2]) for x in rows]
    queues = [int(x[4]) for x in rows]
    assert all(q > 20 for q in queues[1:5]) and probs[1] < probs[2] < probs[3] < probs[4]


@needs_ns
def test_pi_variables_as_ns2(tmp_path: Path) -> None:
    """ns-2.35 prints the same 12 samples of prob_ and curq_ and the same end (2026-11-27:
    prob_ 0.00015606 at 0.25 s to 0.00321514 at 5.75 s)."""
    (tmp_path / "s.tcl").write_text(SAMPLED)
    out = assert_prints_as_ns2(tmp_path / "s.tcl", "6", "s.tr", cwd=tmp_path)
    assert "5.75 prob_ 0.00321514 curq_ 55" in out
