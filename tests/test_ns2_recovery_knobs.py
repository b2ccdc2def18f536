"""ns-2.35 agent variables of loss recovery and window arithmetic that ns-2's validation
suites set away from their defaults (issue #35): `bugFix_ false`, Newreno's `lessCareful_`,
`newreno_changes1_ 0`, `partial_window_deflation_ 0`, `exit_recovery_fix_ 1`,
`decrease_num_`, `increase_num_` and `maxcwnd_`. Each script (the network of
test_ns2_tcp_knobs.py: a 1.5 Mb/s bottleneck with a short DropTail queue, so that windows lose
several packets) is compared with ns-2.35 where it is installed, its trace byte for byte
(tcp/ns2_agent/recovery.rs and tcp/sender/ns2_recovery.rs cite the rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli, trace_without
from test_ns2_tcp_knobs import _script

NEWRENO = "TCP/Newreno"
SACK = ("TCP/Sack1", "TCPSink/Sack1")

CASES = {
    # a fast retransmit at every third duplicate ACK (tcp.cc, tcp-reno.cc, tcp-newreno.cc,
    # tcp-sack1.cc dupack_action: `!bug_fix_ && !ecn_`)
    "bugfix_off_tahoe": _script("$tcp set bugFix_ false", agent="TCP", qlimit=5),
    "bugfix_off_reno": _script("$tcp set bugFix_ false", qlimit=10),
    "bugfix_off_newreno": _script("$tcp set bugFix_ false", agent=NEWRENO, qlimit=3),
    # Sack1 reaches dupack_action only outside fast recovery and not right after a timeout
    # (tcp-sack1.cc recv: timeout_), so this network never tells bugFix_ apart; the run is
    # compared with ns-2 all the same (NOT_EXERCISED), the suites' Sack1 tests exercise it
    "bugfix_off_sack1": _script("$tcp set bugFix_ false", *SACK, qlimit=3),
    # tcp-newreno.cc
    "less_careful": _script("$tcp set lessCareful_ true", agent=NEWRENO, qlimit=3),
    "newreno_changes1_0": _script("$tcp set newreno_changes1_ 0", agent=NEWRENO, qlimit=3),
    "partial_window_deflation_0": _script(
        "$tcp set partial_window_deflation_ 0", agent=NEWRENO, qlimit=5
    ),
    "exit_recovery_fix": _script("$tcp set exit_recovery_fix_ 1", agent=NEWRENO, qlimit=5),
    # tcp.cc slowdown and opencwnd
    "decrease_num_reno": _script(
        "$tcp set decrease_num_ 0.75\n$tcp set increase_num_ 0.41", qlimit=8
    ),
    "decrease_num_tahoe": _script(
        "$tcp set decrease_num_ 0.75\n$tcp set increase_num_ 0.41", agent="TCP"
    ),
    "decrease_num_newreno_coarse": _script(
        "$tcp set decrease_num_ 0.875\n$tcp set precisionReduce_ false", agent=NEWRENO
    ),
    "decrease_num_sack1": _script(
        "$tcp set decrease_num_ 0.75\n$tcp set increase_num_ 0.41", *SACK
    ),
    "maxcwnd": _script("$tcp set maxcwnd_ 12", qlimit=20),
}

NOT_EXERCISED = {"bugfix_off_sack1"}

KNOB = re.compile(
    r"^\$tcp set (bugFix_|lessCareful_|newreno_changes1_|partial_window_deflation_"
    r"|exit_recovery_fix_|decrease_num_|increase_num_|maxcwnd_) .*$",
    re.M,
)


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_recovery_variable_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, out = run_both(script, tmp_path=tmp_path)
    assert int(out) > 200_000  # bytes delivered in order by 6 s
    trace = (bl_dir / "out.tr").read_bytes()
    assert trace == (ns_dir / "out.tr").read_bytes()
    if case in NOT_EXERCISED:
        return
    # the variable is exercised: without its line the run is another one
    assert trace_without(CASES[case], KNOB, tmp_path) != trace


def test_the_recovery_knobs_reach_the_scenario(tmp_path: Path) -> None:
    """Without ns-2: the translation writes each variable into the flow's `ns2_agent` table."""
    script = tmp_path / "k.tcl"
    script.write_text(
        _script(
            "$tcp set bugFix_ false\n$tcp set lessCareful_ true\n$tcp set newreno_changes1_ 0"
            "\n$tcp set partial_window_deflation_ 0\n$tcp set exit_recovery_fix_ 1"
            "\n$tcp set decrease_num_ 0.75\n$tcp set increase_num_ 0.41\n$tcp set maxcwnd_ 9",
            agent=NEWRENO,
        )
    )
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "k.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = (tmp_path / "k.toml").read_text()
    for field in (
        "bug_fix = false",
        "less_careful = true",
        "newreno_changes1 = false",
        "partial_window_deflation = false",
        "exit_recovery_fix = true",
        "decrease_num = 0.75",
        "increase_num = 0.41",
        "maxcwnd = 9",
    ):
        assert field in text, text


@pytest.mark.parametrize(
    ("agent", "setting"),
    [
        # Vegas's own recv and window rules (tcp-vegas.cc) are not ns-2's TcpAgent's
        ("TCP/Vegas", "$tcp set maxcwnd_ 10"),
        ("TCP/Vegas", "$tcp set decrease_num_ 0.75"),
        # Newreno's variables on a Reno agent have no reader: still refused as unknown here
    ],
)
def test_a_recovery_variable_of_another_agent_is_refused(
    agent: str, setting: str, tmp_path: Path
) -> None:
    script = tmp_path / "v.tcl"
    script.write_text(_script(setting, agent=agent))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert "not modelled" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
