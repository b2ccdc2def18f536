# RIO (Clark & Fang 1998, ns-2's Queue/RED/RIO) on a 2 Mb/s, 20 ms bottleneck shared by four
# NewReno flows with different RTTs; flows 1 and 3 are In (priority_method_ 1: a packet whose
# flow id is not 0 is In), flows 0 and 2 Out (fid_ 0). In packets are judged against the In
# thresholds on the average of the In packets queued, Out packets against lower thresholds on
# the average of all. The whole run traced, a queue monitor's arrivals and drops and each
# sender's ack_ printed at the end. RIO's early-drop tests draw from ns-2's default RNG.
#
#   ns rio_aqm.tcl [time] [trace]            (ns-2.35)
#   bufferlab run rio_aqm.tcl [time] [trace] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 20.0}]
set trace [expr {$argc > 1 ? [lindex $argv 1] : "rio.tr"}]

set ns [new Simulator]
set tf [open $trace w]
$ns trace-all $tf

Queue/RED/RIO set priority_method_ 1
Queue/RED/RIO set in_thresh_ 10
Queue/RED/RIO set in_maxthresh_ 20
Queue/RED/RIO set out_thresh_ 3
Queue/RED/RIO set out_maxthresh_ 9
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms RED/RIO
$ns queue-limit $r0 $r1 100
for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb [expr {2 + 3 * $i}]ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ [expr {$i % 2}]
    $ns attach-agent $s($i) $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $r1 $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-source FTP]
    $ns at [expr {0.1 * $i}] "$ftp($i) start"
}
set qm [$ns monitor-queue $r0 $r1 ""]

proc finish {} {
    global ns qm tcp tf
    puts [format "queue arrivals %d drops %d" [$qm set parrivals_] [$qm set pdrops_]]
    for {set i 0} {$i < 4} {incr i} { puts "tcp$i ack_ [$tcp($i) set ack_]" }
    close $tf
    exit 0
}
$ns at $time finish
$ns run
