# Short TCP transfers over a dumbbell, the idiom of buffer-sizing studies' short flows:
# FTP's `send` (bytes), `produce` and `producemore` (packets) give one-way TCP agents a finite
# amount of data; a proc polls each agent's ack_ every 10 ms and prints when a transfer is
# done. Flow 0 sends 10 KB at 0.5 s, then (scheduled by the poller when that one is done)
# 100 KB more on the same connection; flow 1 sends 1 MB at 1 s; flow 2 produces 100 packets
# at 1.2 s and 50 more at 3 s.
#
#   ns short_transfers.tcl [end]          bufferlab run short_transfers.tcl [end]

set ns [new Simulator]
set end 10.0
if {$argc >= 1} { set end [lindex $argv 0] }

set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms DropTail
$ns queue-limit $r0 $r1 20

for {set i 0} {$i < 3} {incr i} {
	set s($i) [$ns node]
	set d($i) [$ns node]
	$ns duplex-link $s($i) $r0 10Mb 2ms DropTail
	$ns duplex-link $r1 $d($i) 10Mb [expr 2 + 3 * $i]ms DropTail
	set tcp($i) [new Agent/TCP/Reno]
	$tcp($i) set fid_ $i
	set sink($i) [new Agent/TCPSink]
	$ns attach-agent $s($i) $tcp($i)
	$ns attach-agent $d($i) $sink($i)
	$ns connect $tcp($i) $sink($i)
	set ftp($i) [$tcp($i) attach-source FTP]
	set target($i) 0
	set busy($i) 0
	set count($i) 0
}

# A transfer: the packets it adds (ceil(bytes / packetSize_)) move the ack_ it waits for.
proc transfer {i bytes} {
	global ns ftp tcp target busy began
	set pkts [expr ($bytes + 999) / 1000]
	set target($i) [expr $target($i) + $pkts]
	set busy($i) 1
	set began($i) [$ns now]
	$ftp($i) send $bytes
	puts [format "%.2f flow %d send %d bytes: waits for ack_ %d" [$ns now] $i $bytes $target($i)]
}

proc produce {i how pkts} {
	global ns ftp target busy began
	if {$how == "produce"} {
		set target($i) $pkts
	} else {
		set target($i) [expr $target($i) + $pkts]
	}
	set busy($i) 1
	set began($i) [$ns now]
	$ftp($i) $how $pkts
	puts [format "%.2f flow %d %s %d: waits for ack_ %d" [$ns now] $i $how $pkts $target($i)]
}

proc poll {} {
	global ns tcp target busy began count
	set now [$ns now]
	for {set i 0} {$i < 3} {incr i} {
		if {$busy($i) && [$tcp($i) set ack_] >= $target($i)} {
			set busy($i) 0
			incr count($i)
			puts [format "%.2f flow %d done in %.2f s: ack_ %d t_seqno_ %d" $now $i \
				[expr $now - $began($i)] [$tcp($i) set ack_] [$tcp($i) set t_seqno_]]
			if {$i == 0 && $count($i) == 1} {
				# the next transfer on the same connection, from this proc
				$ns at [expr $now + 1.0] "transfer 0 100000"
			}
		}
	}
	$ns at [expr $now + 0.01] "poll"
}

proc finish {} {
	global tcp sink
	for {set i 0} {$i < 3} {incr i} {
		puts [format "flow %d ack_ %d t_seqno_ %d bytes_ %d" $i [$tcp($i) set ack_] \
			[$tcp($i) set t_seqno_] [$sink($i) set bytes_]]
	}
	exit 0
}

$ns at 0.5 "transfer 0 10000"
$ns at 1.0 "transfer 1 1000000"
$ns at 1.2 "produce 2 produce 100"
$ns at 3.0 "produce 2 producemore 50"
$ns at 0.0 "poll"
$ns at $end "finish"
$ns run
