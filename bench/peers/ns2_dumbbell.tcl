# bufferlab bench peer: a parameterised ns-2.35 dumbbell (Debian package `ns2`, binary `ns`).
#
#   src_i --access--> L ==bottleneck (qtype)==> R --access--> dst_i      i = 0 .. n+nudp-1
#
# n FTP/TCP flows (one-way agents) and nudp CBR/UDP flows; flow i starts at i*stagger s, or at
# the i-th of starts=T0,T1,... (seconds) when that list is given.
# No packet trace and no Tcl samplers (they cost more than the simulation): agent counters,
# a QueueMonitor on the bottleneck (exact time averages) and the wall clock. One JSON line out.
#
#   ns ns2_dumbbell.tcl n=100 bw=100Mb delay=10ms abw=1Gb adelay=1ms qtype=DropTail limit=200 \
#      pkt=1448 window=10000 time=100
#
# Keys (key=value): see `array set P` below; an unknown key is an error.

set T_start [clock microseconds]
array set P {
    n 5 nudp 0 udprate 500kb udppkt 1052 tcp Reno pkt 1000 window 20 stagger 0 time 100
    bw 1Mb delay 10ms abw 10Mb adelay 1ms alimit 100
    qtype DropTail limit 20 qib 0 meanpkt 500
    thresh 0 maxthresh 0 linterm 10 qweight -1 gentle 1
    drr_blimit 25000 drr_quantum 250 seed 1 starts {}
}
foreach a $argv {
    if {![regexp {^([^=]+)=(.*)$} $a -> k v] || ![info exists P($k)]} {
        puts stderr "ns2_dumbbell.tcl: bad argument '$a'; keys: [lsort [array names P]]"
        exit 2
    }
    set P($k) $v
}

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $P(seed)

# Queue settings must be in place before the links are created.
Queue/DropTail set queue_in_bytes_ $P(qib)
Queue/DropTail set mean_pktsize_ $P(meanpkt)
if {$P(qtype) eq "RED"} {
    Queue/RED set queue_in_bytes_ $P(qib)
    Queue/RED set bytes_ $P(qib)
    Queue/RED set mean_pktsize_ $P(meanpkt)
    Queue/RED set thresh_ $P(thresh)
    Queue/RED set maxthresh_ $P(maxthresh)
    Queue/RED set linterm_ $P(linterm)
    Queue/RED set q_weight_ $P(qweight)
    Queue/RED set gentle_ $P(gentle)
}

set L [$ns node]
set R [$ns node]
$ns duplex-link $L $R $P(bw) $P(delay) $P(qtype)
$ns queue-limit $L $R $P(limit)
$ns queue-limit $R $L $P(limit)
set bq [[$ns link $L $R] queue]
if {$P(qtype) eq "DRR"} {
    foreach qq [list $bq [[$ns link $R $L] queue]] {
        $qq set blimit_ $P(drr_blimit)
        $qq set quantum_ $P(drr_quantum)
    }
}
if {$P(qtype) eq "FQ"} {
    # FQLink writes its per-flow drops to drpT_, which exists only with a trace: give it a sink.
    foreach l [list [$ns link $L $R] [$ns link $R $L]] { $l set drpT_ [$ns set nullAgent_] }
    set qm ""
} else {
    set qm [$ns monitor-queue $L $R ""]
}

set nall [expr {$P(n) + $P(nudp)}]
set flows {}
for {set i 0} {$i < $nall} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $L $P(abw) $P(adelay) DropTail
    $ns duplex-link $R $d $P(abw) $P(adelay) DropTail
    $ns queue-limit $s $L $P(alimit)
    $ns queue-limit $R $d $P(alimit)
    set start [expr {$i < [llength [split $P(starts) ,]] ? [lindex [split $P(starts) ,] $i]
                     : $i * $P(stagger)}]
    if {$i < $P(n)} {
        set ag [new [expr {$P(tcp) eq "Tahoe" ? "Agent/TCP" : "Agent/TCP/$P(tcp)"}]]
        set sk [new [expr {$P(tcp) eq "Sack1" ? "Agent/TCPSink/Sack1" : "Agent/TCPSink"}]]
        $ag set fid_ [expr {$i + 1}]
        $ag set packetSize_ $P(pkt)
        $ag set window_ $P(window)
        $ns attach-agent $s $ag
        $ns attach-agent $d $sk
        $ns connect $ag $sk
        set app [new Application/FTP]
        $app attach-agent $ag
        $ns at $start "$app start"
        lappend flows [list tcp $ag $start]
    } else {
        set ag [new Agent/UDP]
        $ag set fid_ [expr {$i + 1}]
        set sk [new Agent/LossMonitor]
        $ns attach-agent $s $ag
        $ns attach-agent $d $sk
        $ns connect $ag $sk
        set app [new Application/Traffic/CBR]
        $app set rate_ $P(udprate)
        $app set packetSize_ $P(udppkt)
        $app attach-agent $ag
        $ns at $start "$app start"
        lappend flows [list udp $sk $start]
    }
}

proc fmt {x} { return [format %.6g $x] }

proc finish {} {
    global ns P flows qm T_start T_run
    set T_end [clock microseconds]
    set T $P(time)
    set out "\{\"simulator\":\"ns-2\",\"flows\":\["
    set sep ""
    set total 0.0
    set sent 0; set recv 0; set udp_recv 0; set udp_lost 0
    foreach f $flows {
        lassign $f kind ag start
        set active [expr {$T - $start}]
        if {$kind eq "tcp"} {
            # goodput: highest cumulative ACK (in packets, from 0) times the payload size
            set acked [expr {[$ag set ack_] + 1}]
            set gp [expr {$acked * $P(pkt) * 8.0 / $active}]
            set nd [$ag set ndatapack_]
            incr sent $nd
            incr recv $acked
            append out "$sep\{\"kind\":\"tcp\",\"goodput_bps\":[fmt $gp],\"acked_packets\":$acked,\"tx_packets\":$nd,\"rexmit_packets\":[$ag set nrexmitpack_],\"cwnd_end\":[fmt [$ag set cwnd_]]\}"
        } else {
            set bytes [$ag set bytes_]
            set gp [expr {$bytes * 8.0 / $active}]
            incr udp_recv [$ag set npkts_]
            incr udp_lost [$ag set nlost_]
            append out "$sep\{\"kind\":\"udp\",\"goodput_bps\":[fmt $gp],\"rx_packets\":[$ag set npkts_],\"lost_packets\":[$ag set nlost_]\}"
        }
        set total [expr {$total + $gp}]
        set sep ","
    }
    append out "\],\"goodput_total_bps\":[fmt $total]"
    set qdrops 0
    if {$qm ne ""} {
        set qdrops [$qm set pdrops_]
        append out ",\"queue\":\{\"discipline\":\"$P(qtype)\",\"arrivals\":[$qm set parrivals_],\"drops\":$qdrops"
        append out ",\"avg_packets\":[fmt [expr {[[$qm get-pkts-integrator] set sum_] / $T}]]"
        append out ",\"avg_bytes\":[fmt [expr {[[$qm get-bytes-integrator] set sum_] / $T}]]\}"
    } else {
        append out ",\"queue\":null"
    }
    # Packet-hops, estimated from agent counters (no per-link counters without a trace):
    # a TCP data packet crosses 3 links unless dropped at the bottleneck (then 1), each
    # delivered data packet is acknowledged by one ACK crossing 3 links (TCPSink, no delayed
    # ACK); a UDP packet crosses 3 links or 1 when lost. Drops on access links are assumed nil.
    set tcp_drops [expr {$sent - $recv > 0 ? $sent - $recv : 0}]
    set hops [expr {3 * $sent - 2 * $tcp_drops + 3 * ($sent - $tcp_drops) + 3 * $udp_recv + $udp_lost}]
    append out ",\"packet_hops\":$hops,\"packet_hops_estimated\":true"
    append out ",\"sim_wall_s\":[fmt [expr {($T_end - $T_run) / 1e6}]]"
    append out ",\"script_wall_s\":[fmt [expr {($T_end - $T_start) / 1e6}]]\}"
    puts $out
    exit 0
}

$ns at $P(time) "finish"
set T_run [clock microseconds]
$ns run
