# Applications started and stopped while the run goes on: a controller proc looks at flow
# 1's progress at 2 s, starts flow 2 half a second later and stops flow 1 at 6 s; a CBR source
# is switched on and off every 2 s by a proc that reschedules itself.
#
#   ns dynamic_apps.tcl            (ns-2.35)
#   bufferlab run dynamic_apps.tcl (the same script on bufferlab's engine)
set ns [new Simulator]
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms DropTail
$ns queue-limit $r0 $r1 20
foreach i {1 2 3} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r0 10Mb 2ms DropTail
    $ns duplex-link $r1 $d($i) 10Mb 2ms DropTail
}
foreach i {1 2} {
    set tcp($i) [new Agent/TCP/Reno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-source FTP]
}
set udp [new Agent/UDP]
$udp set fid_ 3
set lm [new Agent/LossMonitor]
$ns attach-agent $s(3) $udp
$ns attach-agent $d(3) $lm
$ns connect $udp $lm
set cbr [new Application/Traffic/CBR]
$cbr set rate_ 500Kb
$cbr set packetSize_ 500
$cbr attach-agent $udp

proc controller {} {
    global ns tcp ftp
    set now [$ns now]
    puts "controller at $now: flow 1 ack_ [$tcp(1) set ack_]"
    if {[$tcp(1) set ack_] > 10} {
        $ns at [expr {$now + 0.5}] "$ftp(2) start"
    }
    $ns at 6.0 "$ftp(1) stop"
}
set on 0
proc toggle {} {
    global ns cbr on
    if {$on} { $cbr stop } else { $cbr start }
    set on [expr {!$on}]
    $ns at [expr {[$ns now] + 2.0}] toggle
}
proc finish {} {
    global tcp sink lm
    foreach i {1 2} { puts "flow $i ack_ [$tcp($i) set ack_] bytes_ [$sink($i) set bytes_]" }
    puts "cbr npkts_ [$lm set npkts_] bytes_ [$lm set bytes_]"
    exit 0
}
$ns at 0.0 "$ftp(1) start"
$ns at 2.0 controller
$ns at 1.0 toggle
$ns at 6.5 {puts "at 6.5 flow 1 bytes_ [$sink(1) set bytes_]"}
$ns at 9.5 {puts "at 9.5 flow 1 bytes_ [$sink(1) set bytes_]"}
$ns at 10.0 finish
$ns run
