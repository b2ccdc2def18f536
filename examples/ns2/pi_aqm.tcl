# The PI AQM (Hollot et al. 2001, ns-2's Queue/PI) on a 2 Mb/s, 20 ms bottleneck shared by
# four NewReno flows with different RTTs, its target queue qref_ 20 packets; the whole run
# traced into a file, a queue monitor's arrivals and drops and each sender's ack_ printed at
# the end. PI's drop test draws from ns-2's default RNG, as RED's does.
#
#   ns pi_aqm.tcl [time] [trace]            (ns-2.35)
#   bufferlab run pi_aqm.tcl [time] [trace] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 20.0}]
set trace [expr {$argc > 1 ? [lindex $argv 1] : "pi.tr"}]

set ns [new Simulator]
set tf [open $trace w]
$ns trace-all $tf

Queue/PI set qref_ 20
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms PI
$ns queue-limit $r0 $r1 100
for {set i 0} {$i < 4} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb [expr {2 + 3 * $i}]ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
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
