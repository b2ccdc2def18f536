# ns-2.35 counterpart of crates/bufferlab-core/tests/tcp_mathis.rs: one Agent/TCP/Reno flow
# (window_ 100000), access 1 Gb/1 ms, bottleneck 100 Mb/48 ms with uniform per-packet loss p
# on the data direction (ErrorModel via lossmodel), 1000 s, goodput after 20 s over Mathis.
#   ns docs/ns2/mathis.tcl p=0.02 seed=1
array set P {p 0.02 time 1000 warm 20 tcp Reno seed 1}
foreach a $argv { regexp {^([^=]+)=(.*)$} $a -> k v; set P($k) $v }
set ns [new Simulator]
global defaultRNG; $defaultRNG seed $P(seed)
set s [$ns node]; set L [$ns node]; set R [$ns node]; set d [$ns node]
$ns duplex-link $s $L 1Gb 1ms DropTail
$ns duplex-link $L $R 100Mb 48ms DropTail
$ns duplex-link $R $d 1Gb 1ms DropTail
foreach {a b} [list $s $L $L $R $R $d] { $ns queue-limit $a $b 10000; $ns queue-limit $b $a 10000 }
set em [new ErrorModel]; $em unit pkt; $em set rate_ $P(p); $em ranvar [new RandomVariable/Uniform]; $em drop-target [new Agent/Null]
$ns lossmodel $em $L $R
set ag [new Agent/TCP/$P(tcp)]; $ag set window_ 100000; $ag set packetSize_ 1000
set sk [new Agent/TCPSink]; $ns attach-agent $s $ag; $ns attach-agent $d $sk; $ns connect $ag $sk
set ftp [new Application/FTP]; $ftp attach-agent $ag; $ns at 0 "$ftp start"
set a0 0
$ns at $P(warm) {set a0 [$ag set ack_]}
$ns at $P(time) {
  set gp [expr {([$ag set ack_]-$a0)*1000*8.0/($P(time)-$P(warm))}]
  set pred [expr {8000/0.1*sqrt(3/(2*$P(p)))}]
  puts [format "p %s goodput %.0f ratio %.3f timeouts %d rexmit %d" $P(p) $gp [expr {$gp/$pred}] [$ag set nrexmit_] [$ag set nrexmitpack_]]
  exit 0 }
$ns run
