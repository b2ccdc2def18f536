# User OTcl classes in the style of the ns-2 manual and tutorials: a Flow class builds an
# FTP/TCP connection (subclasses pick the TCP variant and call `$self next`), a Sampler reads
# its sink's bytes_ every interval, writes Mb/s, resets the counter and reschedules itself
# with `$ns at ... "$self sample"`; an Experiment object's finish ends the run.
#
#   ns sampler_class.tcl [time] [out]            (ns-2.35)
#   bufferlab run sampler_class.tcl [time] [out] (the same script on bufferlab's engine)

set time [expr {$argc > 0 ? [lindex $argv 0] : 10.0}]
set out [expr {$argc > 1 ? [lindex $argv 1] : "samples.tr"}]

set ns [new Simulator]
set r0 [$ns node]
set r1 [$ns node]
$ns duplex-link $r0 $r1 2Mb 20ms DropTail
$ns queue-limit $r0 $r1 15

Class Flow
Flow set window_ 20
Flow instproc init {id delay} {
    global ns r0 r1
    $self instvar tcp_ sink_ ftp_ id_
    set id_ $id
    set src [$ns node]
    set dst [$ns node]
    $ns duplex-link $src $r0 10Mb $delay DropTail
    $ns duplex-link $r1 $dst 10Mb 2ms DropTail
    set tcp_ [new [$self agent]]
    $tcp_ set fid_ $id
    $tcp_ set window_ [Flow set window_]
    set sink_ [new Agent/TCPSink]
    $ns attach-agent $src $tcp_
    $ns attach-agent $dst $sink_
    $ns connect $tcp_ $sink_
    set ftp_ [$tcp_ attach-source FTP]
}
Flow instproc agent {} { return Agent/TCP }
Flow instproc sink {} { $self instvar sink_; return $sink_ }
Flow instproc start {t} {
    global ns
    $self instvar ftp_
    $ns at $t "$ftp_ start"
}

Class RenoFlow -superclass Flow
RenoFlow instproc agent {} { return Agent/TCP/Reno }

Class NewRenoFlow -superclass Flow
NewRenoFlow instproc agent {} { return Agent/TCP/Newreno }
NewRenoFlow instproc init {id delay} {
    $self next $id $delay
    $self instvar tcp_
    $tcp_ set windowInit_ 4
}

Class Sampler
Sampler set interval_ 0.5
Sampler instproc init {flows file} {
    $self instvar flows_ file_ interval_
    set flows_ $flows
    set file_ $file
    set interval_ [Sampler set interval_]
}
Sampler instproc sample {} {
    global ns
    $self instvar flows_ file_ interval_
    set now [$ns now]
    set line [format %.1f $now]
    foreach f $flows_ {
        set sink [$f sink]
        append line [format " %.4f" [expr {[$sink set bytes_] * 8.0 / $interval_ / 1e6}]]
        $sink set bytes_ 0
    }
    puts $file_ $line
    $ns at [expr {$now + $interval_}] "$self sample"
}

Class Experiment
Experiment instproc init {file} { $self set file_ $file }
Experiment instproc finish {} {
    $self instvar file_
    close $file_
    puts "[$self info class]: [llength [Flow info instances]] Flow, [llength [RenoFlow info instances]] RenoFlow, [llength [NewRenoFlow info instances]] NewRenoFlow"
    exit 0
}

set flows [list [new RenoFlow 1 2ms] [new NewRenoFlow 2 10ms] [new Flow 3 5ms]]
foreach f $flows t {0.0 0.5 1.0} { $f start $t }
set fh [open $out w]
set sampler [new Sampler $flows $fh]
set exp [new Experiment $fh]
$ns at 0.5 "$sampler sample"
$ns at $time "$exp finish"
$ns run
