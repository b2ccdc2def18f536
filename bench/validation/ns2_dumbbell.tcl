# ns-2.35 side of bench/validation (issue #22; was bench/ns2_recovery/dumbbell.tcl): a dumbbell
# with one-way TCP agents, adapted from bench/peers/ns2_dumbbell.tcl (Debian package `ns2`,
# binary `ns`). Differences: each sender has its own access delay (RTT mixes), its own start
# time, the sink may be a DelAck sink, and the JSON adds timeouts (`nrexmit_`, tcp.cc timeout())
# per flow. The receivers' access links have delay `radelay` (default 1ms, as before).
#
#   ns ns2_dumbbell.tcl tcp=Newreno n=4 bw=2Mb delay=20ms adelays=1ms,5ms,... starts=0,0.3,...
#       qtype=RED limit=50 delack=1 time=100
#
# tcp=Linux is Agent/TCP/Linux with Sack1 sinks, ca=NAME its `select_ca NAME` (none: ns-2's own
# window rules).
#
# Keys (key=value): see `array set P` below; an unknown key is an error.

array set P {
    n 2 tcp Newreno pkt 1000 window 20 time 100 delack 0
    bw 1Mb delay 10ms abw 100Mb adelays {} radelay 1ms starts {} alimit 1000
    qtype DropTail limit 20 qib 0 meanpkt 1000 seed 1 ca {}
}
foreach a $argv {
    if {![regexp {^([^=]+)=(.*)$} $a -> k v] || ![info exists P($k)]} {
        puts stderr "ns2_dumbbell.tcl: bad argument '$a'; keys: [lsort [array names P]]"
        exit 2
    }
    set P($k) $v
}
set adelays [split $P(adelays) ,]
set starts [split $P(starts) ,]

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $P(seed)

Queue/DropTail set queue_in_bytes_ $P(qib)
Queue/DropTail set mean_pktsize_ $P(meanpkt)
if {$P(qtype) eq "RED"} {
    Queue/RED set queue_in_bytes_ $P(qib)
    Queue/RED set bytes_ $P(qib)
    Queue/RED set mean_pktsize_ $P(meanpkt)
}

set L [$ns node]
set R [$ns node]
$ns duplex-link $L $R $P(bw) $P(delay) $P(qtype)
$ns queue-limit $L $R $P(limit)
$ns queue-limit $R $L $P(limit)
set qm [$ns monitor-queue $L $R ""]

set flows {}
for {set i 0} {$i < $P(n)} {incr i} {
    set s [$ns node]
    set d [$ns node]
    set ad [lindex $adelays $i]
    $ns duplex-link $s $L $P(abw) $ad DropTail
    $ns duplex-link $R $d $P(abw) $P(radelay) DropTail
    $ns queue-limit $s $L $P(alimit)
    $ns queue-limit $R $d $P(alimit)
    set start [lindex $starts $i]
    # tcp=Tahoe is ns-2's base agent, Agent/TCP (tcp.cc).
    set ag [new [expr {$P(tcp) eq "Tahoe" ? "Agent/TCP" : "Agent/TCP/$P(tcp)"}]]
    if {$P(tcp) in {Sack1 Linux}} {
        set sk [new [expr {$P(delack) ? "Agent/TCPSink/Sack1/DelAck" : "Agent/TCPSink/Sack1"}]]
    } else {
        set sk [new [expr {$P(delack) ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]]
    }
    $ag set fid_ [expr {$i + 1}]
    $ag set packetSize_ $P(pkt)
    $ag set window_ $P(window)
    $ns attach-agent $s $ag
    $ns attach-agent $d $sk
    $ns connect $ag $sk
    # tcp=Linux ca=cubic: Agent/TCP/Linux's select_ca (tcp/linux/tcp_linux.cc)
    if {$P(ca) ne ""} { $ag select_ca $P(ca) }
    set app [new Application/FTP]
    $app attach-agent $ag
    $ns at $start "$app start"
    lappend flows [list $ag $start]
}

proc fmt {x} { return [format %.6g $x] }

proc finish {} {
    global ns P flows qm
    set T $P(time)
    set out "\{\"simulator\":\"ns-2\",\"flows\":\["
    set sep ""
    foreach f $flows {
        lassign $f ag start
        set acked [expr {[$ag set ack_] + 1}]
        set gp [expr {$acked * $P(pkt) * 8.0 / ($T - $start)}]
        append out "$sep\{\"goodput_bps\":[fmt $gp],\"tx_packets\":[$ag set ndatapack_],\"rexmit_packets\":[$ag set nrexmitpack_],\"timeouts\":[$ag set nrexmit_]\}"
        set sep ","
    }
    append out "\],\"queue\":\{\"arrivals\":[$qm set parrivals_],\"drops\":[$qm set pdrops_]"
    append out ",\"avg_packets\":[fmt [expr {[[$qm get-pkts-integrator] set sum_] / $T}]]\}\}"
    puts $out
    exit 0
}

$ns at $P(time) "finish"
$ns run
