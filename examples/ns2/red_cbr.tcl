# RED in the classic ns-2 style: two CBR/UDP sources and one FTP/TCP flow share a 2 Mb/s,
# 10 ms RED bottleneck (packet mode, thresholds 5/15, limit 30); the CBR sinks are
# LossMonitors sampled every second into a file, and a queue monitor on the bottleneck gives
# the arrivals, drops and time-average queue at the end.
#
#   ns red_cbr.tcl [time] [out]            (ns-2.35)
#   bufferlab run red_cbr.tcl [time] [out] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 30.0}]
set out [expr {$argc > 1 ? [lindex $argv 1] : "red_cbr.out"}]

set ns [new Simulator]
$defaultRNG seed 1

Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set thresh_ 5
Queue/RED set maxthresh_ 15
Queue/RED set linterm_ 10
Queue/RED set mean_pktsize_ 1000

set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $n0 $r0 10Mb 1ms DropTail
$ns duplex-link $n1 $r0 10Mb 1ms DropTail
$ns duplex-link $n2 $r0 10Mb 1ms DropTail
$ns duplex-link $r0 $r1 2Mb 10ms RED
$ns queue-limit $r0 $r1 30
set qmon [$ns monitor-queue $r0 $r1 ""]

foreach i {0 1} src [list $n0 $n1] rate {0.8Mb 0.6Mb} {
    set udp($i) [new Agent/UDP]
    $ns attach-agent $src $udp($i)
    set lm($i) [new Agent/LossMonitor]
    $ns attach-agent $r1 $lm($i)
    $ns connect $udp($i) $lm($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set packetSize_ 500
    $cbr($i) set rate_ $rate
    $cbr($i) attach-agent $udp($i)
    $ns at [expr {0.5 * $i}] "$cbr($i) start"
    $ns at [expr {$time - 1.0}] "$cbr($i) stop"
}

set tcp [new Agent/TCP/Newreno]
set sink [new Agent/TCPSink/DelAck]
$ns attach-agent $n2 $tcp
$ns attach-agent $r1 $sink
$ns connect $tcp $sink
set ftp [$tcp attach-source FTP]
$ns at 1.0 "$ftp start"

set f [open $out w]

proc record {} {
    global ns lm f
    set now [$ns now]
    puts $f "$now [$lm(0) set npkts_] [$lm(0) set nlost_] [$lm(1) set npkts_] [$lm(1) set nlost_]"
    $ns at [expr {$now + 1.0}] "record"
}

proc finish {} {
    global ns f qmon lm tcp time
    set avg [expr {[[$qmon get-pkts-integrator] set sum_] / $time}]
    puts $f [format "# queue arrivals %d drops %d avg %.3f" \
        [$qmon set parrivals_] [$qmon set pdrops_] $avg]
    puts $f [format "# tcp ack_ %d ndatapack_ %d" [$tcp set ack_] [$tcp set ndatapack_]]
    for {set i 0} {$i < 2} {incr i} {
        puts $f [format "# cbr%d bytes_ %d" $i [$lm($i) set bytes_]]
    }
    close $f
    exit 0
}

$ns at 1.0 "record"
$ns at $time "finish"
$ns run
