# trace-all and awk, the way many ns-2 studies measured throughput: two FTP/TCP flows over a
# 1 Mb/s, 10 ms DropTail bottleneck (limit 10); finish flushes the trace and an awk one-liner
# counts the bytes each flow's packets brought to the receivers' node and its drops. The nam
# trace is asked for and nam started at the end, as the tutorials do (neither exists here).
#
#   ns trace_awk.tcl [time] [trace] [result]
#   bufferlab run trace_awk.tcl [time] [trace] [result]

set time [expr {$argc > 0 ? [lindex $argv 0] : 10.0}]
set trfile [expr {$argc > 1 ? [lindex $argv 1] : "out.tr"}]
set result [expr {$argc > 2 ? [lindex $argv 2] : "awk.out"}]

set ns [new Simulator]
set tf [open $trfile w]
$ns trace-all $tf
set nf [open /dev/null w]
$ns namtrace-all $nf

set a [$ns node]
set b [$ns node]
set c [$ns node]
set d [$ns node]
$ns duplex-link $a $c 10Mb 2ms DropTail
$ns duplex-link $b $c 10Mb 3ms DropTail
$ns duplex-link $c $d 1Mb 10ms DropTail
$ns queue-limit $c $d 10

foreach i {0 1} src [list $a $b] {
    set tcp($i) [new Agent/TCP]
    $tcp($i) set fid_ $i
    $ns attach-agent $src $tcp($i)
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $d $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {0.2 * $i}] "$ftp($i) start"
}

proc finish {} {
    global ns tf nf trfile result d
    $ns flush-trace
    close $tf
    close $nf
    # received tcp bytes per flow id at node d, drops of tcp packets
    set dn [$d id]
    exec awk -v dn=$dn {
        $1 == "r" && $4 == dn && $5 == "tcp" { bytes[$8] += $6 }
        $1 == "d" { drops[$8]++ }
        END { for (f in bytes) printf "flow %s bytes %d drops %d\n", f, bytes[f], drops[f] + 0 }
    } $trfile > $result
    exec nam out.nam &
    exit 0
}

$ns at $time "finish"
$ns run
