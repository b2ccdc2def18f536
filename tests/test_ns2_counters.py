"""A TCP sender's counters read while the run goes on (tcp.cc `output`, `timeout`, `recv`):
`ndatapack_` (every packet sent, the opening packet too), `ndatabytes_`, `nrexmitpack_`,
`nrexmitbytes_`, `nrexmit_`, `nackpack_`, as the validation suites' procs read them (simple
`stats*`, red `flows_*`). A Reno and a Sack1 flow over a 6-packet bottleneck, sampled every
0.5 s, compared with ns-2.35 where it is installed."""

from __future__ import annotations

from pathlib import Path

from conftest import needs_ns, run_both

SCRIPT = """\
set ns [new Simulator]
set n0 [$ns node]; set n1 [$ns node]; set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 6
set tcp [$ns create-connection TCP/Reno $n0 TCPSink $n2 1]
$tcp set window_ 30
set tcp2 [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n2 2]
$tcp2 set packetSize_ 700
set ftp [$tcp attach-app FTP]
set ftp2 [$tcp2 attach-app FTP]
$ns at 0.1 "$ftp start"
$ns at 0.7 "$ftp2 start"
proc show {} {
    global ns tcp tcp2
    set line [$ns now]
    foreach t [list $tcp $tcp2] {
        foreach v {ndatapack_ ndatabytes_ nrexmitpack_ nrexmitbytes_ nrexmit_ nackpack_} {
            append line " [$t set $v]"
        }
    }
    puts $line
    $ns at [expr [$ns now] + 0.5] show
}
$ns at 0.0 show
$ns at 6.0 "show; exit 0"
$ns run
"""


@needs_ns
def test_counters_during_the_run_are_ns2s(tmp_path: Path) -> None:
    script = tmp_path / "counters.tcl"
    script.write_text(SCRIPT)
    _, _, out = run_both(script, tmp_path=tmp_path)
    lines = out.splitlines()
    assert len(lines) == 13  # 0 .. 6 s every 0.5 s (the last by the event that ends the run)
    assert lines[0] == "0 0 0 0 0 0 0 0 0 0 0 0 0"
    last = [int(x) for x in lines[-1].split()[1:]]
    assert last[2] > 0 and last[8] > 0  # both retransmitted
