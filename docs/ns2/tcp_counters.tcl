# ns-2.35 agent counters on the bench's dumbbell (the node order of bench/peers/ns2_dumbbell.tcl),
# for docs/validation.md (TCP): per flow ndatapack_, nrexmitpack_, nrexmit_ (timeouts) and
# ncwndcuts_ (all window cuts: fast retransmits = cuts - timeouts for Reno), the bottleneck's
# drops and time-average queue. Optional: tr=FILE (trace-all), vt=FILE (traced variables of
# flow 1: cwnd_ ssthresh_ rtt_ srtt_ rttvar_ backoff_ nrexmit_ ack_ t_seqno_ dupacks_).
#   ns docs/ns2/tcp_counters.tcl                       paper 004, Reno, DropTail
#   ns docs/ns2/tcp_counters.tcl tcp=Vegas
#   ns docs/ns2/tcp_counters.tcl n=100 bw=100Mb delay=10ms abw=1Gb adelay=1ms alimit=100 \
#       limit=200 pkt=1448 window=10000 stagger=0 time=100       the scale case c_ns2
array set P {tcp Reno time 200 tr "" vt "" n 4 stagger 0.5 bw 2Mb delay 20ms limit 20 abw 10Mb adelay 2ms pkt 1000 window 20 alimit 50}
foreach a $argv { regexp {^([^=]+)=(.*)$} $a -> k v; set P($k) $v }
set ns [new Simulator]
if {$P(tr) ne ""} { set trf [open $P(tr) w]; $ns trace-all $trf }
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R $P(bw) $P(delay) DropTail
$ns queue-limit $L $R $P(limit)
$ns queue-limit $R $L $P(limit)
set qm [$ns monitor-queue $L $R ""]
set ags {}
for {set i 0} {$i < $P(n)} {incr i} {
  set s [$ns node]; set d [$ns node]
  $ns duplex-link $s $L $P(abw) $P(adelay) DropTail
  $ns duplex-link $R $d $P(abw) $P(adelay) DropTail
  $ns queue-limit $s $L $P(alimit); $ns queue-limit $R $d $P(alimit)
  set ag [new Agent/TCP/$P(tcp)]
  $ag set fid_ [expr {$i+1}]
  $ag set packetSize_ $P(pkt)
  $ag set window_ $P(window)
  set sk [new Agent/TCPSink]
  $ns attach-agent $s $ag; $ns attach-agent $d $sk; $ns connect $ag $sk
  if {$i == 0 && $P(vt) ne ""} {
    set vf [open $P(vt) w]
    $ag attach $vf
    foreach v {cwnd_ ssthresh_ rtt_ srtt_ rttvar_ backoff_ nrexmit_ ack_ t_seqno_ dupacks_} { $ag trace $v }
  }
  set app [new Application/FTP]; $app attach-agent $ag
  $ns at [expr {$i*$P(stagger)}] "$app start"
  lappend ags [list $ag [expr {$i*$P(stagger)}]]
}
proc finish {} {
  global ns P ags qm
  foreach x $ags {
    lassign $x ag st
    set acked [expr {[$ag set ack_]+1}]
    puts [format "flow sent %d rexmitpack %d timeouts %d cuts %d goodput_kbps %.1f" [$ag set ndatapack_] [$ag set nrexmitpack_] [$ag set nrexmit_] [$ag set ncwndcuts_] [expr {$acked*$P(pkt)*8.0/($P(time)-$st)/1000}]]
  }
  puts [format "queue drops %d arrivals %d avgq %.3f" [$qm set pdrops_] [$qm set parrivals_] [expr {[[$qm get-pkts-integrator] set sum_]/$P(time)}]]
  $ns flush-trace
  exit 0
}
$ns at $P(time) finish
$ns run
