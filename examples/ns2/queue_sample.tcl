# The tutorials' first complete example, in their idioms: a TCP/FTP flow and a 1 Mb/s CBR
# (packet_size_ and rate_ set the tutorials' way) share a 1.7 Mb/s, 20 ms DropTail
# bottleneck of 10 packets; the bottleneck's queue monitor samples itself every 0.1 s into
# a file (`queue-sample-timeout`: mean bytes and packets queued, arrivals, departures and
# drops), a `record` proc writes the sink's throughput every 0.5 s, and both agents are
# detached before the end. The nam trace and the link's nam layout are asked for (neither
# is written).
#
#   ns queue_sample.tcl [time] [queue file] [throughput file]
#   bufferlab run queue_sample.tcl [time] [queue file] [throughput file]

set time [expr {$argc > 0 ? [lindex $argv 0] : 5.0}]
set qfile [expr {$argc > 1 ? [lindex $argv 1] : "qm.out"}]
set tfile [expr {$argc > 2 ? [lindex $argv 2] : "thr0.tr"}]

set ns [new Simulator]
$ns color 1 Blue
$ns color 2 Red
set nf [open /dev/null w]
$ns namtrace-all $nf
set f0 [open $tfile w]

proc finish {} {
    global ns nf f0
    $ns flush-trace
    close $nf
    close $f0
    exit 0
}

set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns duplex-link $n0 $n2 2Mb 10ms DropTail
$ns duplex-link $n1 $n2 2Mb 10ms DropTail
$ns duplex-link $n2 $n3 1.7Mb 20ms DropTail
$ns queue-limit $n2 $n3 10
$ns duplex-link-op $n0 $n2 orient right-down
$ns duplex-link-op $n1 $n2 orient right-up
$ns duplex-link-op $n2 $n3 orient right
$ns duplex-link-op $n2 $n3 queuePos 0.5

set tcp [new Agent/TCP]
$tcp set class_ 2
$tcp set fid_ 1
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n3 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ftp set type_ FTP

set udp [new Agent/UDP]
$udp set fid_ 2
$ns attach-agent $n1 $udp
set null [new Agent/Null]
$ns attach-agent $n3 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr attach-agent $udp
$cbr set type_ CBR
$cbr set packet_size_ 1000
$cbr set rate_ 1mb
$cbr set random_ false

# the queue monitor's own samples, into the file it was given
set qmon [$ns monitor-queue $n2 $n3 [open $qfile w] 0.1]
[$ns link $n2 $n3] queue-sample-timeout

proc record {} {
    global sink f0 ns
    set interval 0.5
    set now [$ns now]
    set bytes [$sink set bytes_]
    puts $f0 "$now [expr $bytes / $interval * 8 / 1000000]"
    $sink set bytes_ 0
    $ns at [expr $now + $interval] "record"
}

$ns at 0.0 "record"
$ns at 0.1 "$cbr start"
$ns at 1.0 "$ftp start"
$ns at [expr $time - 1.0] "$ftp stop"
$ns at [expr $time - 0.5] "$cbr stop"
$ns at [expr $time - 0.5] "$ns detach-agent $n0 $tcp ; $ns detach-agent $n3 $sink"
$ns at $time "finish"

puts "CBR packet size = [$cbr set packet_size_]"
puts "CBR interval = [$cbr set interval_]"
$ns run
