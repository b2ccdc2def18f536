"""RED's automatic `q_weight_` codes (0, -1, -2) under plain and Adaptive RED, as a script of
ours shows under ns-2.35 and bufferlab.

red.cc `initialize_params` (run when the queue gets its link) turns a `q_weight_` of 0 into
1 - exp(-1/C), -1 into 1 - exp(-1/(10 RTT C)) with RTT = max(0.1, 3 (delay + 1/C)), -2 into
1 - exp(-10/C), for C the link's packets per second, whatever `adaptive_` says. The
translation used to leave an automatic weight to the engine's default for the kind (-1 for
`red`, 0 for `ared`), so Adaptive RED with -1 (test-suite-adaptive-red.tcl's
longlinkAdapt1, a 100 ms link where the two differ) and plain RED with 0 or -2 set on the
class ran with another weight; it now passes ns-2's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_ns, run_both

# argv: adaptive_ and the class's q_weight_ code; three Sack1 flows over a 1.5 Mb/s, 100 ms
# RED bottleneck with automatic thresholds
SCRIPT = """\
set adaptive [lindex $argv 0]
set code [lindex $argv 1]
Queue/RED set q_weight_ $code
Queue/RED set adaptive_ $adaptive
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
set ns [new Simulator]
set f [open out.tr w]
$ns trace-all $f
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 1ms DropTail
$ns duplex-link $n1 $n2 1.5Mb 100ms RED
$ns queue-limit $n1 $n2 60
set q [[$ns link $n1 $n2] queue]
puts "q_weight_ [$q set q_weight_]"
foreach i {1 2 3} {
    set tcp($i) [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 $i]
    $tcp($i) set window_ 100
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at [expr 0.2 * $i] "$ftp($i) start"
}
$ns at 8 "close $f; exit 0"
$ns run
"""

# ns-2's weight for each code on this link (C = 375 packets of 500 B per second)
WEIGHT = {
    "0": "0.0026631142694990562",
    "-1": "0.00086542616837681496",
    "-2": "0.026314250646854997",
}


@needs_ns
@pytest.mark.parametrize(
    "adaptive, code", [("1", "-1"), ("1", "-2"), ("0", "0"), ("0", "-2"), ("1", "0")]
)
def test_red_automatic_weight_codes_are_ns2s(adaptive: str, code: str, tmp_path: Path) -> None:
    script = tmp_path / "qweight.tcl"
    script.write_text(SCRIPT)
    ns_dir, bl_dir, out = run_both(script, adaptive, code, tmp_path=tmp_path)
    assert out == f"q_weight_ {WEIGHT[code]}\n"
    ours = (bl_dir / "out.tr").read_bytes()
    assert ours == (ns_dir / "out.tr").read_bytes()
    assert ours.count(b"\nd ") > 30  # early drops, whose timing the weight sets
