# REM (Athuraliya et al. 2001, ns-2's Queue/REM) on a 2 Mb/s, 20 ms bottleneck shared by
# four NewReno flows with different RTTs, its target backlog pbo_ 20 packets, marking off or
# on (the first argument after the time: markpkts_ with ECN senders); the whole run traced, a
# queue monitor's arrivals and drops and each sender's ack_ printed at the end. REM draws from
# ns-2's default RNG at every arrival it does not force-drop (marking: at every dequeue).
#
#   ns rem_aqm.tcl [time] [trace] [mark]            (ns-2.35)
#   bufferlab run rem_aqm.tcl [time] [trace] [mark] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 20.0}]
set trace [expr {$argc > 1 ? [lindex $argv 1] : "rem.tr"}]

set ns [new Simulator]
set tf [open $trace w]
$ns trace-all $tf

set mark [expr {$argc > 2 ? [lindex $argv 2] : 0}]
Queue/REM set pbo_ 20
Queue/REM set markpkts_ [expr {$mark ? "true" : "false"}]
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms REM
$ns queue-limit $r0 $r1 100
for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb [expr {2 + 3 * $i}]ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set ecn_ $mark
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
