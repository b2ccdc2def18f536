"""ns-2.35's Agent/TCP/FullTcp/Sack (tcp/tcp-full.cc SackFullTcpAgent, its SACK blocks from
tcp/rq.cc's ReassemblyQueue; crates/bufferlab-core/src/tcp/full/sack.rs and rq.rs) in
scripts of the project's own: a FullTcp/Sack source and a listening FullTcp/Sack, an FTP, a
short DropTail queue so that several segments of a window are lost (the receiver's SACK
blocks grow its ACKs' headers, the sender fills the holes under pipe control), `Trace set
show_tcphdr_ 1` so each line carries the header's sequence and ACK numbers and flags. Each is
compared with ns-2.35 where it is installed, its trace byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_ns, run_both, run_cli

BASE = """\
Trace set show_tcphdr_ 1
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 20ms DropTail
$ns queue-limit $n1 $n2 QLIMIT
set src [new Agent/TCP/FullTcp/Sack]
set dst [new Agent/TCP/FullTcp/Sack]
$ns attach-agent $n0 $src
$ns attach-agent $n2 $dst
$src set fid_ 1
$dst set fid_ 1
$ns connect $src $dst
$dst listen
$src set window_ WINDOW
SETTINGS
set ftp [$src attach-app FTP]
$ns at 0.1 "$ftp start"
$ns at 5 {close $f; puts "[$src set cwnd_] [$src set ssthresh_] [$src set nrexmit_]"; exit 0}
$ns run
"""


def _script(settings: str = "", qlimit: int = 6, window: int = 30) -> str:
    return (
        BASE.replace("SETTINGS", settings)
        .replace("QLIMIT", str(qlimit))
        .replace("WINDOW", str(window))
    )


CASES = {
    "sack": _script(),
    # more losses per window: several holes, three SACK blocks in the ACKs
    "sack_qlimit_3": _script(qlimit=3, window=40),
    "sack_segsize_1000": _script("$src set segsize_ 1000", qlimit=4),
    # the listener ACKs every second segment (delayed ACKs with SACK blocks)
    "sack_segsperack_2": _script("$dst set segsperack_ 2\n$src set segsperack_ 2", qlimit=5),
    # bugFix_ false: a second fast retransmit within the window
    "sack_bugfix_false": _script("$src set bugFix_ false", qlimit=4),
    "sack_thresh_4": _script("$src set tcprexmtthresh_ 4", qlimit=5),
}


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_full_tcp_sack_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    trace = (bl_dir / "out.tr").read_text()
    assert trace == (ns_dir / "out.tr").read_text()
    assert trace.count("\nd ") > 0  # losses happened
    # the listener's ACKs carried SACK blocks: 40 + 2 + 8 x blocks bytes
    assert any(line.split()[5] in ("50", "58", "66") for line in trace.splitlines())


def test_the_scenario_says_sack(tmp_path: Path) -> None:
    """Without ns-2: the flow's full_tcp table has the sack variant."""
    script = tmp_path / "f.tcl"
    script.write_text(_script())
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "f.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert 'variant = "sack"' in (tmp_path / "f.toml").read_text()


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ("$dst set max_sack_blocks_ 2", "max_sack_blocks_ 2"),
        ("$src set sack_rtx_threshmode_ 2", "sack_rtx_threshmode_ 2"),
        ("$src set clear_on_timeout_ false", "clear_on_timeout_ false"),
    ],
)
def test_sack_variables_away_from_their_defaults_are_refused(
    settings: str, says: str, tmp_path: Path
) -> None:
    script = tmp_path / "r.tcl"
    script.write_text(_script(settings))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stdout + r.stderr
    assert says in r.stderr
    assert "not modelled" in r.stderr
    assert "Traceback" not in r.stderr
