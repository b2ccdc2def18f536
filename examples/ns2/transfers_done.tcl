# Transfers one after another (each `done` asks for the next, larger one) beside a bulk FTP
# that is stopped and started again: the ns-2 idioms of $tcp done and $ftp stop/start.
#
#   ns transfers_done.tcl            (ns-2.35)
#   bufferlab run transfers_done.tcl (the same script on bufferlab's engine)
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
$ns duplex-link $n0 $n1 10Mb 5ms DropTail
$ns duplex-link $n3 $n1 10Mb 5ms DropTail
$ns duplex-link $n1 $n2 1Mb 20ms DropTail
$ns queue-limit $n1 $n2 20

set tcp [new Agent/TCP/Reno]
$ns attach-agent $n0 $tcp
set sink [new Agent/TCPSink]
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

set bulk [new Agent/TCP/Newreno]
$ns attach-agent $n3 $bulk
set bsink [new Agent/TCPSink]
$ns attach-agent $n2 $bsink
$ns connect $bulk $bsink
set ftp2 [$bulk attach-source FTP]

# ns-2 calls `$agent done` when a new ACK covers all the data it was given (tcp.cc finish)
set count 0
$tcp proc done {} {
    global ns ftp count
    incr count
    puts [format "transfer %d done at %.6f s, ack_ %d" $count [$ns now] [$self set ack_]]
    if {$count < 4} { $ftp producemore [expr {25 * $count}] }
}
$bulk proc done {} {
    global ns
    puts [format "bulk stopped and all acknowledged at %.6f s, ack_ %d" [$ns now] [$self set ack_]]
}

proc report {} {
    global ns bulk
    puts [format "%.1f s: bulk ack_ %d cwnd_ %.3f" [$ns now] [$bulk set ack_] [$bulk set cwnd_]]
}
$ns at 0.1 "$ftp produce 25"
$ns at 0.5 "$ftp2 start"
$ns at 3.0 "$ftp2 stop"
$ns at 5.0 "$ftp2 start"
foreach t {2.9 4.9 6.0 8.0} { $ns at $t report }
$ns at 8.0 "exit 0"
$ns run
