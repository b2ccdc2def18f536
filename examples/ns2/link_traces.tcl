# Link traces the ways the ns-2 manual and tutorials make them, on a two-hop path (one Reno
# flow over a 1 Mb/s, 10 ms bottleneck with a 5-packet queue):
#   * trace-all traces only the links made after it: n0-n1 is made before, so all.tr has none
#     of its lines;
#   * [$ns link n0 n1] trace $ns $f gives that direction a trace of its own (l01.tr);
#   * trace-queue into the trace-all file traces the ACK direction a second time: each of its
#     lines comes twice in all.tr;
#   * a Drop trace object made the bottleneck queue's drop-target takes its drops (drops.tr):
#     all.tr has no d line any more;
#   * an Enque trace object never put in a packet's path writes nothing (enq.tr).
#
#   ns link_traces.tcl
#   bufferlab run link_traces.tcl

set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
$ns duplex-link $n0 $n1 10Mb 2ms DropTail
set all [open all.tr w]
$ns trace-all $all
$ns duplex-link $n1 $n2 1Mb 10ms DropTail
$ns queue-limit $n1 $n2 5
set f01 [open l01.tr w]
[$ns link $n0 $n1] trace $ns $f01
$ns trace-queue $n2 $n1 $all
set fd [open drops.tr w]
set dt [$ns create-trace Drop $fd $n1 $n2]
$dt target [$ns set nullAgent_]
[[$ns link $n1 $n2] queue] drop-target $dt
set fe [open enq.tr w]
set et [$ns create-trace Enque $fe $n0 $n1]
set tcp [new Agent/TCP/Reno]
$tcp set fid_ 3
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
$ns at 0.1 "$ftp start"
proc finish {} {
    global ns all f01 fd fe
    $ns flush-trace
    close $all; close $f01; close $fd; close $fe
    exit 0
}
$ns at 3.0 finish
$ns run
