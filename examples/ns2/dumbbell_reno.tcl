# A DropTail dumbbell in the classic ns-2 style: three FTP/TCP Reno flows share a 1.5 Mb/s,
# 20 ms bottleneck with a 20-packet buffer; a `record` proc samples each sink's bytes every
# 0.5 s and writes one throughput line per sample (time, then Mb/s of each flow).
#
#   ns dumbbell_reno.tcl [time] [out]            (ns-2.35)
#   bufferlab run dumbbell_reno.tcl [time] [out] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 20.0}]
set out [expr {$argc > 1 ? [lindex $argv 1] : "throughput.tr"}]

set ns [new Simulator]

Agent/TCP set window_ 32
Agent/TCP set packetSize_ 1000

set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 1.5Mb 20ms DropTail
$ns queue-limit $r0 $r1 20
$ns duplex-link-op $r0 $r1 orient right
$ns duplex-link-op $r0 $r1 queuePos 0.5
$ns color 1 Blue

set delays {2ms 5ms 10ms}
for {set i 0} {$i < 3} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb [lindex $delays $i] DropTail
    $ns duplex-link $r1 $d($i) 10Mb 2ms DropTail

    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set fid_ [expr {$i + 1}]
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {0.1 + 0.5 * $i}] "$ftp($i) start"
}

set f [open $out w]
set last {0 0 0}

proc record {} {
    global ns sink f last
    set interval 0.5
    set now [$ns now]
    set line [format %.1f $now]
    set cur {}
    for {set i 0} {$i < 3} {incr i} {
        set b [$sink($i) set bytes_]
        lappend cur $b
        append line [format " %.4f" [expr {($b - [lindex $last $i]) * 8.0 / $interval / 1e6}]]
    }
    set last $cur
    puts $f $line
    $ns at [expr {$now + $interval}] "record"
}

proc finish {} {
    global ns f tcp time
    close $f
    for {set i 0} {$i < 3} {incr i} {
        set acked [$tcp($i) set ack_]
        puts [format "flow %d: ack_ %d goodput %.4f Mb/s" $i $acked \
            [expr {$acked * 1000 * 8.0 / $time / 1e6}]]
    }
    exit 0
}

$ns at 0.0 "record"
$ns at $time "finish"
$ns run
