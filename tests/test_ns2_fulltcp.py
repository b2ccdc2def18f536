"""ns-2.35's two-way TCP, Agent/TCP/FullTcp and its Newreno and Tahoe subclasses
(tcp/tcp-full.cc; crates/bufferlab-core/src/tcp/full/), in scripts of the project's own: a
FullTcp source and a listening FullTcp at the other end, an FTP, a short DropTail queue so the
window is cut by losses, `Trace set show_tcphdr_ 1` so each line carries the header's byte
sequence and ACK numbers and flags. Each is compared with ns-2.35 where it is installed, its
trace byte for byte."""

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
set src [new Agent/TCP/CLASS]
set dst [new Agent/TCP/CLASS]
$ns attach-agent $n0 $src
$ns attach-agent $n2 $dst
$src set fid_ 1
$dst set fid_ 1
$ns connect $src $dst
$dst listen
$src set window_ 30
SETTINGS
set ftp [$src attach-app FTP]
$ns at 0.2 "$ftp start"
$ns at 4 {close $f; puts "[$src set cwnd_] [$src set ssthresh_]"; exit 0}
$ns run
"""


def _script(cls: str, settings: str = "", qlimit: int = 6) -> str:
    return BASE.replace("CLASS", cls).replace("SETTINGS", settings).replace("QLIMIT", str(qlimit))


CASES = {
    "reno": _script("FullTcp"),
    "newreno": _script("FullTcp/Newreno"),
    "tahoe": _script("FullTcp/Tahoe"),
    # the receiver ACKs every second segment, the rest on its 100 ms timer
    "reno_segsperack_2": _script("FullTcp", "$dst set segsperack_ 2\n$src set segsperack_ 2"),
    "newreno_segsize_1000": _script("FullTcp/Newreno", "$src set segsize_ 1000", qlimit=4),
}


@needs_ns
@pytest.mark.parametrize("case", sorted(CASES))
def test_full_tcp_runs_as_ns2(case: str, tmp_path: Path) -> None:
    script = tmp_path / f"{case}.tcl"
    script.write_text(CASES[case])
    ns_dir, bl_dir, _ = run_both(script, tmp_path=tmp_path)
    trace = (bl_dir / "out.tr").read_text()
    assert trace == (ns_dir / "out.tr").read_text()
    assert " d " in f" {trace}" or trace.count("\nd ") > 0  # losses happened


def test_the_scenario_says_full_tcp(tmp_path: Path) -> None:
    """Without ns-2: the flow's tcp table has a full_tcp table with the class's variant and
    the listener's ACK frequency."""
    script = tmp_path / "f.tcl"
    script.write_text(_script("FullTcp/Newreno", "$dst set segsperack_ 2\n$src set segsperack_ 2"))
    r = run_cli("import-ns2", str(script), "-o", str(tmp_path / "f.toml"), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = (tmp_path / "f.toml").read_text()
    assert 'variant = "newreno"' in text
    assert "segsperack = 2" in text


@pytest.mark.parametrize(
    ("cls", "settings", "says"),
    [
        ("FullTcp", "$src set data_on_syn_ true", "data_on_syn_ true"),
        ("FullTcp", "$src set ecn_ 1", "ecn_ 1"),
    ],
)
def test_what_is_not_modelled_is_refused(
    cls: str, settings: str, says: str, tmp_path: Path
) -> None:
    script = tmp_path / "r.tcl"
    script.write_text(_script(cls, settings))
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stdout + r.stderr
    assert says in r.stderr
    assert "Traceback" not in r.stderr
