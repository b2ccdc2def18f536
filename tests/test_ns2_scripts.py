"""ns-2 scripts on bufferlab's engine (`bufferlab run script.tcl`, `bufferlab import-ns2`):
the files the scripts of examples/ns2/ write have ns-2's formats, their numbers are those of
the imported scenario run by `bufferlab run` (same engine, same numbers), unsupported ns-2
features stop with one line and exit 2, and against ns-2.35 itself (Debian's `ns`) the same
scripts give the same goodput (aggregate within 3 %, per flow within 15 %)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from bufferlab import _core
from conftest import ONE_FTP_FLOW, ROOT, assert_script_refused, needs_ns, run_cli, run_ns

EX = ROOT / "examples" / "ns2"

needs_session = pytest.mark.skipif(
    not hasattr(_core, "Session"), reason="the compiled core has no Session yet (make build)"
)


def _import_and_run(script: Path, *args: str, tmp: Path, extra: tuple[str, ...] = ()) -> dict:
    toml = tmp / "imported.toml"
    r = run_cli("import-ns2", str(script), *args, "-o", str(toml), cwd=tmp)
    assert r.code == 0, r.stderr
    r = run_cli("run", str(toml), "--json", *extra, cwd=tmp)
    assert r.code == 0, r.stderr
    return json.loads(r.stdout)


@needs_session
def test_dumbbell_record_proc_writes_a_throughput_file(tmp_path: Path) -> None:
    r = run_cli("run", str(EX / "dumbbell_reno.tcl"), "10", "thr.tr", cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = (tmp_path / "thr.tr").read_text().splitlines()
    # `record` runs at 0, 0.5, ... 9.5 (the one at 10 s is finish's instant: ns-2 runs
    # finish first, as it was scheduled first)
    assert [ln.split()[0] for ln in lines] == [f"{0.5 * i:.1f}" for i in range(20)]
    rows = [[float(x) for x in ln.split()[1:]] for ln in lines]
    assert all(len(row) == 3 and all(0 <= x <= 2.0 for x in row) for row in rows)
    assert rows[0] == [0.0, 0.0, 0.0]
    # the bottleneck is busy once all three flows run: TCPSink's bytes_ counts whole packets
    # (1040 B, as ns-2's hdr_cmn size), so the sum is the link's 1.5 Mb/s
    busy = [sum(row) for row in rows[6:]]
    assert 1.4 < sum(busy) / len(busy) <= 1.51
    acked = [int(m) for m in re.findall(r"ack_ (\d+)", r.stdout)]
    assert len(acked) == 3
    # the same engine on the imported scenario: each flow's ACKed segments, as the report says
    rep = _import_and_run(EX / "dumbbell_reno.tcl", "10", "x.tr", tmp=tmp_path)
    report_acked = [f["tcp"]["bytes_acked"] // 1000 for f in rep["flows"]]
    assert all(abs(a - b) <= 1 for a, b in zip(acked, report_acked, strict=True)), (
        acked,
        report_acked,
    )


SINK_SCRIPT = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 2Mb 20ms DropTail
$ns queue-limit $n0 $n1 8
set em [new ErrorModel]
$em set rate_ 0.03
$em unit pkt
$ns lossmodel $em $n0 $n1
set tcp [new Agent/TCP/Reno]
$tcp set window_ 30
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.1 "$ftp start"
$ns at 8.0 "$ftp stop"
proc finish {} {
    global tcp sink
    puts "ack_ [$tcp set ack_] retransmitted [$tcp set nrexmitpack_] bytes_ [$sink set bytes_]"
    exit 0
}
$ns at 12.0 "finish"
$ns run
"""


@needs_session
def test_tcpsink_bytes_count_only_what_it_delivered_in_order(tmp_path: Path) -> None:
    """ns-2's TCPSink bytes_ adds the bytes Acker::update releases (tcp-sink.cc): the opening
    packet's 40 header bytes, then each data packet's packetSize_ + 40 once it is in order;
    retransmitted duplicates and packets held out of order add nothing. With every packet
    acknowledged at the end, bytes_ is 40 + ack_ x 1040."""
    (tmp_path / "sink.tcl").write_text(SINK_SCRIPT)
    r = run_cli("run", "sink.tcl", cwd=tmp_path)
    assert r.code == 0, r.stderr
    m = re.search(r"ack_ (\d+) retransmitted (\d+) bytes_ (\d+)", r.stdout)
    assert m, r.stdout
    ack, rexmit, got = (int(x) for x in m.groups())
    assert ack > 100 and rexmit > 0  # losses, so duplicates can arrive
    assert got == 40 + ack * 1040


@needs_session
def test_red_cbr_loss_monitors_and_queue_monitor(tmp_path: Path) -> None:
    r = run_cli("run", str(EX / "red_cbr.tcl"), "10", "red.out", cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = (tmp_path / "red.out").read_text().splitlines()
    samples = [[float(x) for x in ln.split()] for ln in lines if not ln.startswith("#")]
    assert [s[0] for s in samples] == [float(t) for t in range(1, 10)]
    for col in (1, 3):  # npkts_ of each LossMonitor only grows
        assert [s[col] for s in samples] == sorted(s[col] for s in samples)
    summary = "\n".join(ln for ln in lines if ln.startswith("#"))
    q = re.search(r"queue arrivals (\d+) drops (\d+) avg ([\d.]+)", summary)
    assert q, summary
    rep = _import_and_run(EX / "red_cbr.tcl", "10", "x.out", tmp=tmp_path)
    bq = next(x for x in rep["queues"] if x["from"] == "n3" and x["to"] == "n4")
    assert bq["discipline"] == "red"
    assert int(q.group(1)) == bq["arrivals"] and int(q.group(2)) == bq["drops"]
    assert float(q.group(3)) == pytest.approx(bq["avg_packets"], abs=1e-3)
    cbr = [int(x) for x in re.findall(r"cbr\d bytes_ (\d+)", summary)]
    assert cbr == [f["rx_bytes"] for f in rep["flows"] if f["protocol"] == "udp"]
    assert all(f["packet_size"] == 500 for f in rep["flows"] if f["protocol"] == "udp")


@needs_session
def test_trace_all_is_closed_before_finish_runs_awk(tmp_path: Path) -> None:
    r = run_cli("run", str(EX / "trace_awk.tcl"), "5", "out.tr", "awk.out", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "namtrace-all" in r.stderr and "exec nam: not installed" in r.stderr
    trace = (tmp_path / "out.tr").read_text().splitlines()
    assert trace and all(len(ln.split()) == 12 for ln in trace)
    assert {ln.split()[0] for ln in trace} <= {"+", "-", "r", "d"}
    got = dict(re.findall(r"flow (\d) bytes (\d+)", (tmp_path / "awk.out").read_text()))
    assert set(got) == {"0", "1"} and all(int(b) > 0 for b in got.values())
    assert 0.8 < sum(int(b) for b in got.values()) * 8 / 5 / 1e6 < 1.0  # the 1 Mb/s bottleneck
    # the imported scenario, run with --trace-ns2, writes the same trace
    _import_and_run(
        EX / "trace_awk.tcl", "5", tmp=tmp_path, extra=("--trace-ns2", str(tmp_path / "b.tr"))
    )
    assert (tmp_path / "b.tr").read_text().splitlines() == trace


@needs_session
def test_probes_during_the_run_and_exit_code(tmp_path: Path) -> None:
    script = tmp_path / "probe.tcl"
    script.write_text(_ONE_FLOW + _PROBE)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 3, r.stderr
    assert "not reached" not in r.stdout
    rows = [ln.split() for ln in r.stdout.splitlines()]
    assert [row[0] for row in rows] == ["0.5", "1", "1.5"]
    acks = [int(row[4]) for row in rows]
    assert acks == sorted(acks) and acks[0] > 0
    assert all(float(row[2]) >= 1 for row in rows)


_ONE_FLOW = ONE_FTP_FLOW + '$ns at 0 "$ftp start"\n'
_PROBE = """\
proc show {} {
    global tcp ns
    puts "[$ns now] cwnd [$tcp set cwnd_] ack [$tcp set ack_]"
    if {[$ns now] < 1.5} { $ns at [expr {[$ns now] + 0.5}] show }
}
$ns at 0.5 show
$ns at 2.0 "exit 3"
$ns run
puts "not reached"
"""


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            "set n0 [$ns node]\nset n1 [$ns node]\n$ns duplex-link $n0 $n1 1Mb 10ms CBQ\n",
            4,
            "queue type CBQ (class-based queueing, Floyd and Jacobson 1995",
        ),
        ("$ns node-config -adhocRouting DSDV\n", 2, "wireless nodes are not modelled"),
        ("set m [new Mac/802_11]\n", 2, "Mac/802_11"),
        (
            "set n0 [$ns node]\nset n1 [$ns node]\n$ns simplex-link $n0 $n1 1Mb 1ms DropTail\n"
            '$ns at 1 "exit 0"\n$ns run\n',
            6,
            "no reverse link",
        ),
    ],
)
def test_unsupported_features_exit_2_naming_the_line(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    assert_script_refused(tmp_path, body, line, message)


@needs_session
def test_setting_an_agent_variable_during_the_run_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "set.tcl"
    script.write_text(
        _ONE_FLOW
        + "proc poke {} {\n    global tcp\n    $tcp set window_ 5\n}\n"
        + '$ns at 1.0 "poke"\n$ns at 2.0 "exit 0"\n$ns run\n'
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2
    assert r.stderr.startswith("error: set.tcl:15: `$tcp set window_ 5`: setting window_"), r.stderr


def test_import_writes_the_static_part_with_a_header(tmp_path: Path) -> None:
    out = tmp_path / "s.toml"
    r = run_cli("import-ns2", str(EX / "red_cbr.tcl"), "12", "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = out.read_text()
    assert text.startswith(
        "# Translated by `bufferlab import-ns2` from the ns-2 script red_cbr.tcl 12"
    )
    assert '$ns at 1 "record"' in text and "left out (dynamic)" in r.stderr
    sc = json.loads(_core.validate(text, "s.toml"))
    assert sc["duration"] in ("12s", 12.0, "12 s") or "12" in str(sc["duration"])
    q = sc["links"]["n3_n4"]["queue"]
    assert q["kind"] == "red" and q["limit"] in ("30p", "30 packets")
    kinds = [(f["name"], f["app"]["kind"]) for f in sc["flows"]]
    assert kinds == [("udp0", "cbr"), ("udp1", "cbr"), ("tcp2", "bulk")]
    assert sc["flows"][0]["stop"] not in (None, "")
    assert sc["flows"][2]["tcp"]["delayed_ack"] is True


def test_import_comments_every_line_of_a_multiline_event(tmp_path: Path) -> None:
    """A `$ns at` event whose script spans lines (the peers' `every 0.01 {...}` samplers) is
    left out as a comment on each of its lines, so the file stays valid TOML (it did not:
    `import-ns2 paperD.tcl` failed on its own header until 2026-11-27)."""
    script = tmp_path / "m.tcl"
    script.write_text(
        _ONE_FLOW + '$ns at 0.5 "\n    puts one\n    puts two\n"\n$ns at 2 "exit 0"\n$ns run\n'
    )
    out = tmp_path / "m.toml"
    r = run_cli("import-ns2", str(script), "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    text = out.read_text()
    assert "#     puts one\n#     puts two\n" in text
    json.loads(_core.validate(text, "m.toml"))


FIRST_SEND = (
    ONE_FTP_FLOW
    + """\
$ns at 0.5 "$ftp send 10500"
$ns at 2.0 "$ftp send 5000"
$ns at 3 "exit 0"
$ns run
"""
)


def test_import_makes_the_first_scheduled_send_a_transfer(tmp_path: Path) -> None:
    """`$ns at 0.5 "$ftp send 10500"` is a transfer of ceil(10500 / 1000) = 11 packets from
    0.5 s (tcp.cc sendmsg); the later send is left out. Run, it sends those 11 data packets
    and the 40-byte opening packet."""
    (tmp_path / "s.tcl").write_text(FIRST_SEND)
    r = run_cli("import-ns2", "s.tcl", "-o", "s.toml", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert '$ns at 2 "_o' in (tmp_path / "s.toml").read_text()  # left out, listed
    sc = json.loads(_core.validate((tmp_path / "s.toml").read_text(), "s.toml"))
    (flow,) = sc["flows"]
    assert flow["app"] == {"kind": "transfer", "size": "11000B"} and flow["start"] == "0.5s"
    r = run_cli("run", "s.toml", "--json", cwd=tmp_path)
    assert r.code == 0, r.stderr
    f = json.loads(r.stdout)["flows"][0]
    assert (f["rx_packets"], f["rx_bytes"]) == (12, 11 * 1040 + 40)


def test_import_of_a_script_whose_flows_start_from_procs_says_so(tmp_path: Path) -> None:
    r = run_cli("import-ns2", str(EX / "short_transfers.tcl"), "-o", "x.toml", cwd=tmp_path)
    assert r.code == 2
    err = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(err) == 1 and "no flow starts before $ns run" in err[0]
    assert "bufferlab run" in err[0]


def test_script_arguments_only_for_tcl(tmp_path: Path) -> None:
    r = run_cli("run", str(ROOT / "examples" / "dumbbell_udp.toml"), "extra")
    assert r.code == 2 and "only ns-2 scripts take arguments" in r.stderr


# -- against ns-2.35 ------------------------------------------------------------------------------


def _ns(script: Path, *args: str, cwd: Path) -> str:
    # the exit code is not checked: trace_awk.tcl ends with exec nam, which fails in ns-2 (exit 1)
    return run_ns(script, *args, cwd=cwd, timeout=600).stdout


@needs_ns
@needs_session
def test_same_scripts_as_ns2(tmp_path: Path) -> None:
    (tmp_path / "ns").mkdir()
    (tmp_path / "bl").mkdir()
    # dumbbell: goodput from each sender's ack_, 60 s
    ns_out = _ns(EX / "dumbbell_reno.tcl", "60", "thr.tr", cwd=tmp_path / "ns")
    bl = run_cli("run", str(EX / "dumbbell_reno.tcl"), "60", "thr.tr", cwd=tmp_path / "bl")
    assert bl.code == 0, bl.stderr
    a = [int(x) for x in re.findall(r"ack_ (\d+)", ns_out)]
    b = [int(x) for x in re.findall(r"ack_ (\d+)", bl.stdout)]
    assert len(a) == len(b) == 3
    assert sum(b) == pytest.approx(sum(a), rel=0.03)
    for x, y in zip(a, b, strict=True):
        assert y == pytest.approx(x, rel=0.15), (a, b)
    # the record proc's throughput from each TCPSink's bytes_ (in-order bytes, tcp-sink.cc),
    # every 0.5 s: the same file as ns-2's (with each agent's tick phase, the runs are the same
    # event for event)
    assert (tmp_path / "bl" / "thr.tr").read_text() == (tmp_path / "ns" / "thr.tr").read_text()
    # trace-all + awk: bytes received and drops per flow id, 60 s
    _ns(EX / "trace_awk.tcl", "60", "out.tr", "awk.out", cwd=tmp_path / "ns")
    bl = run_cli("run", str(EX / "trace_awk.tcl"), "60", "out.tr", "awk.out", cwd=tmp_path / "bl")
    assert bl.code == 0, bl.stderr

    def per_flow(d: Path) -> dict[str, tuple[int, int]]:
        text = (d / "awk.out").read_text()
        found = re.findall(r"flow (\d) bytes (\d+) drops (\d+)", text)
        return {f: (int(by), int(dr)) for f, by, dr in found}

    n, m = per_flow(tmp_path / "ns"), per_flow(tmp_path / "bl")
    assert set(n) == set(m) == {"0", "1"}
    assert sum(v[0] for v in m.values()) == pytest.approx(sum(v[0] for v in n.values()), rel=0.03)
    for f in n:
        assert m[f][0] == pytest.approx(n[f][0], rel=0.15), (n, m)
        assert m[f][1] == pytest.approx(n[f][1], rel=0.15), (n, m)
    # RED + CBR: LossMonitor bytes and the TCP flow's ack_, 30 s
    _ns(EX / "red_cbr.tcl", "30", "red.out", cwd=tmp_path / "ns")
    bl = run_cli("run", str(EX / "red_cbr.tcl"), "30", "red.out", cwd=tmp_path / "bl")
    assert bl.code == 0, bl.stderr

    def red(d: Path) -> list[int]:
        text = (d / "red.out").read_text()
        return [int(x) for x in re.findall(r"\b(?:bytes_|ack_) (\d+)", text)]

    n2, m2 = red(tmp_path / "ns"), red(tmp_path / "bl")
    assert len(n2) == len(m2) == 3
    for x, y in zip(n2, m2, strict=True):
        assert y == pytest.approx(x, rel=0.15), (n2, m2)


@needs_ns
@pytest.mark.parametrize(("flows", "bw"), [(6, "5Mb"), (3, "2Mb")])
def test_sfq_is_ns2s_own(tmp_path: Path, flows: int, bw: str) -> None:
    """ns-2's Queue/SFQ (`preset = "ns2"`, sfq.cc's rules) on the bench's peer script, run
    unchanged by both: goodput within 3 %, drops and mean queue within 15 % (Linux's SFQ with
    the same 40 packets and 16 buckets keeps a queue about 70 % longer on the first network)."""
    script = ROOT / "bench" / "peers" / "ns2_dumbbell.tcl"
    args = [f"n={flows}", f"bw={bw}", "delay=20ms", "qtype=SFQ", "time=60"]
    ns = json.loads(_ns(script, *args, cwd=tmp_path))
    bl = run_cli("run", str(script), *args, cwd=tmp_path)
    assert bl.code == 0, bl.stderr
    ours = json.loads(bl.stdout)
    assert ours["goodput_total_bps"] == pytest.approx(ns["goodput_total_bps"], rel=0.03)
    for key in ("drops", "avg_packets"):
        assert ours["queue"][key] == pytest.approx(ns["queue"][key], rel=0.15), (key, ns, ours)


# -- queue state during the run, flow ids, EDrop traces ----------------------------------------

_RED_LINK = """\
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
$ns duplex-link $n0 $n1 1Mb 10ms RED
$ns queue-limit $n0 $n1 25
set qm [$ns monitor-queue $n0 $n1 ""]
set redq [[$ns link $n0 $n1] queue]
set udp [new Agent/UDP]
$udp set fid_ 7
set null [new Agent/Null]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $null
$ns connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set rate_ [expr {2 * [bw_parse 1Mb]}]
$cbr set packetSize_ 1000
$cbr attach-agent $udp
$ns at 0 "$cbr start"
"""


@needs_session
def test_queue_monitor_and_red_variables_during_the_run(tmp_path: Path) -> None:
    script = tmp_path / "q.tcl"
    script.write_text(
        _RED_LINK
        + """\
proc sample {} {
    global ns qm redq
    puts "[$ns now] [$qm set pkts_] [$qm set size_] [$qm set parrivals_] [$qm set pdrops_]\
 [$qm set pdepartures_] [$redq set ave_] [$redq set curq_]\
 [[$qm get-pkts-integrator] set sum_]"
    $ns after 0.5 sample
}
proc finish {} {
    global qm
    puts "end [$qm set parrivals_] [$qm set pdrops_] [$qm set barrivals_] [$qm set bdrops_]\
 [[$qm get-bytes-integrator] set sum_]"
    exit 0
}
$ns at 0.5 sample
$ns at 5 finish
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    rows = [[float(x) for x in ln.split()] for ln in r.stdout.splitlines()[:-1]]
    assert [row[0] for row in rows] == [0.5 * i for i in range(1, 10)]
    for t, pkts, size, arr, drops, dep, ave, curq, area in rows:
        assert 0 < area <= 25 * t  # the integral of pkts_ so far (packet-seconds)
        assert size == pkts * 1000 and 0 <= pkts <= 25
        assert 0 <= arr - drops - dep - pkts <= 1  # one may be on the wire
        # twice the link's rate: RED's average sits between its thresholds (5, 15 packets)
        assert 3 < ave < 25 and 0 <= curq <= 25, (t, ave, curq)
    arrivals = [row[3] for row in rows]
    assert arrivals == sorted(arrivals) and rows[-1][4] > 0
    sums = [row[8] for row in rows]
    assert sums == sorted(sums)
    *counts, byte_area = r.stdout.splitlines()[-1].split()[1:]
    end = [int(x) for x in counts]
    assert end[2] == end[0] * 1000 and end[3] == end[1] * 1000
    # the same engine on the imported scenario: the counters of its report
    rep = _import_and_run(script, tmp=tmp_path)
    q = next(x for x in rep["queues"] if x["from"] == "n0" and x["to"] == "n1")
    assert (end[0], end[1]) == (q["arrivals"], q["drops"])
    # ns-2's integrator stops at the queue's last change (integrator.cc newPoint), the
    # report's average runs to the end: apart by at most the queue (25 packets of 1028 bytes)
    # for the gap after the last change (a CBR packet arrives every 4.1 ms; when one comes at
    # the very end, as ns-2's double sums put it, the two agree to the rounding of their sums)
    tail = q["avg_bytes"] * 5 - float(byte_area)
    assert -1e-6 <= tail <= 25 * 1028 * 0.0042, tail


@needs_session
def test_trace_carries_the_scripts_fid_and_edrop_lines(tmp_path: Path) -> None:
    script = tmp_path / "e.tcl"
    # trace-all before the link, so that the link is traced (ns-2.35 traces only the links
    # made after it: with trace-all after the link its file has only the `e` lines)
    script.write_text(
        _RED_LINK.replace(
            "set ns [new Simulator]\n",
            "set ns [new Simulator]\nset tf [open out.tr w]\n$ns trace-all $tf\n",
        )
        + """\
set em [new ErrorModel]
$em set rate_ 0.05
$em unit pkt
$em ranvar [new RandomVariable/Uniform]
$ns lossmodel $em $n0 $n1
set et [$ns create-trace EDrop $tf $n0 $n1]
$et target [$ns set nullAgent_]
$em drop-target $et
proc finish {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns at 3 finish
$ns run
"""
    )
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = [ln.split() for ln in (tmp_path / "out.tr").read_text().splitlines()]
    assert lines and {ln[7] for ln in lines} == {"7"}  # the agent's fid_, not the index 0
    events = {e: sum(1 for ln in lines if ln[0] == e) for e in "+-rde"}
    assert events["e"] > 0 and events["d"] > 0, events
    # the error model's losses never reach the queue: `e` packets have no `+` line
    plus = {ln[11] for ln in lines if ln[0] == "+"}
    assert all(ln[11] not in plus for ln in lines if ln[0] == "e")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("$ns create-trace Hop $tf $n0 $n1\n", "create-trace Hop: trace objects of the types"),
        ("[$ns link $n0 $n1] trace $ns $tf nam\n", "nam traces are not written"),
    ],
)
def test_other_per_link_traces_exit_2(tmp_path: Path, body: str, message: str) -> None:
    script = tmp_path / "bad.tcl"
    script.write_text(_RED_LINK + "set tf [open out.tr w]\n$ns trace-all $tf\n" + body)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 2, r.stderr
    assert message in r.stderr


# -- the ns-2 peer scripts (../shared/peers/ns2), unchanged -------------------------------------

PEERS = ROOT.parent / "shared" / "peers" / "ns2"
needs_peers = pytest.mark.skipif(
    not (PEERS / "common.tcl").exists(),
    reason=f"the ns-2 peer scripts are not beside the repository ({PEERS})",
)

# Short runs (seconds of simulated time) so that each stays within a few seconds.
PEER_RUNS = {
    "paperA": ["time=10"],
    "paperA-packets": ["bw=4Mb", "loss=0.05", "qlim=10", "time=5"],
    "paperB": ["time=5"],
    "paperB-droptail": ["qtype=DropTail", "time=5"],
    "paperC": ["topo=2", "time=10"],
    "paperD": ["time=10"],
    "paperD-fq-vegas": ["tcp=Vegas", "qtype=FQ", "time=10"],
    "paperD-drr": ["qtype=DRR", "time=10"],
    "paperD-red": ["qtype=RED", "time=10"],
    "scale": ["n=20", "time=2"],
}


def _peer(case: str) -> Path:
    return PEERS / f"{case.split('-')[0]}.tcl"


@needs_peers
@needs_session
@pytest.mark.parametrize("case", sorted(PEER_RUNS))
def test_peer_scripts_run_unchanged(tmp_path: Path, case: str) -> None:
    """Each peer script, samplers and trace on (their defaults), prints its JSON summary:
    its analyze.py read our trace, with the script's fid_ numbers."""
    tr = tmp_path / "t.tr"
    r = run_cli("run", str(_peer(case)), *PEER_RUNS[case], f"tr={tr}", cwd=tmp_path)
    assert r.code == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    fids = sorted(f["fid"] for f in out["flows"])
    assert fids == list(range(1, len(fids) + 1))
    tcp = out["agg_tcp"]
    assert tcp["thr_sum_kbps"] > 0
    if out.get("traced"):
        assert tcp["sent"] >= tcp["recv"] > 0
    if "q_arrivals" in out and not case.startswith("paperC"):
        assert out["q_arrivals"] > 0 and out["q_mean_pkts"] > 0
        if out.get("qtype", "RED") == "RED" and case.startswith(("paperA", "paperB")):
            assert out["red_ave_mean"] > 0


def _peer_both(script: str, args: list[str], tmp: Path) -> tuple[dict, dict]:
    ns = json.loads(_ns(PEERS / f"{script}.tcl", *args, cwd=tmp).strip().splitlines()[-1])
    bl = run_cli("run", str(PEERS / f"{script}.tcl"), *args, cwd=tmp)
    assert bl.code == 0, bl.stderr
    return ns, json.loads(bl.stdout.strip().splitlines()[-1])


@needs_ns
@needs_peers
@needs_session
@pytest.mark.parametrize(
    ("script", "args", "per_flow"),
    [
        ("paperB", ["time=20"], False),
        ("paperD", ["time=60"], True),
        ("paperD", ["qtype=RED", "time=60"], True),
        ("paperA", ["time=100"], False),
    ],
)
def test_peer_scripts_as_ns2(tmp_path: Path, script: str, args: list[str], per_flow: bool) -> None:
    """The peer scripts under ns-2.35 and bufferlab, unchanged (trace, queue monitor, RED ave_
    and cwnd_ samplers on): aggregate TCP throughput (from the trace, by the script's fid_)
    within 3 %, the queue's drops, mean length and RED average within 15 %, and where the
    flows are symmetric each flow's throughput within 15 %."""
    ns, bl = _peer_both(script, args, tmp_path)
    assert bl["agg_tcp"]["thr_sum_kbps"] == pytest.approx(ns["agg_tcp"]["thr_sum_kbps"], rel=0.03)
    if "agg_udp" in ns:
        assert bl["agg_udp"]["thr_sum_kbps"] == pytest.approx(
            ns["agg_udp"]["thr_sum_kbps"], rel=0.03
        )
    for key in ("q_drops", "q_mean_pkts", "red_ave_mean", "q_arrivals"):
        if ns.get(key):
            assert bl[key] == pytest.approx(ns[key], rel=0.15), (key, ns[key], bl[key])
    if script == "paperD":  # sampled cwnd_ (ns-2's: Reno's recovery inflation left out)
        total = [sum(f["cwnd_mean"] for f in out["flows"]) for out in (ns, bl)]
        assert total[1] == pytest.approx(total[0], rel=0.03), total
    if per_flow:
        for a, b in zip(ns["flows"], bl["flows"], strict=True):
            assert a["fid"] == b["fid"]
            assert b["thr_kbps"] == pytest.approx(a["thr_kbps"], rel=0.15), (a, b)


_VAR_TRACE = (
    _ONE_FLOW.replace("1Mb 10ms DropTail\n", "1Mb 10ms DropTail\n$ns queue-limit $n0 $n1 10\n")
    + """\
set f [open cwnd.tr w]
$tcp attach $f
$tcp trace cwnd_
$tcp trace ack_
$ns at 3 "close $f; exit 0"
$ns run
"""
)
_VAR_LINE = re.compile(r"^(\d+\.\d{5}) +0  0  1  0  (cwnd_|ack_) (-?[\d.]+) ?$")


def _var_lines(path: Path) -> list[tuple[float, str, float]]:
    out = []
    for ln in path.read_text().splitlines():
        m = _VAR_LINE.match(ln)
        assert m, ln
        out.append((float(m.group(1)), m.group(2), float(m.group(3))))
    return out


@needs_session
def test_variable_traces_write_each_change_in_ns2s_format(tmp_path: Path) -> None:
    script = tmp_path / "vt.tcl"
    script.write_text(_VAR_TRACE)
    r = run_cli("run", str(script), cwd=tmp_path)
    assert r.code == 0, r.stderr
    lines = _var_lines(tmp_path / "cwnd.tr")
    assert lines[0][:2] == (0.0, "cwnd_") and lines[1][:2] == (0.0, "ack_")
    times = [t for t, _, _ in lines]
    assert times == sorted(times) and times[-1] < 3
    cwnd = [v for _, var, v in lines[2:] if var == "cwnd_"]
    acks = [v for _, var, v in lines[2:] if var == "ack_"]
    assert len(cwnd) > 50 and all(a != b for a, b in itertools.pairwise(cwnd))
    assert acks == sorted(acks) and len(acks) > 100


@needs_ns
@needs_session
def test_variable_traces_as_ns2(tmp_path: Path) -> None:
    """The same cwnd_/ack_ trace under ns-2.35: as many ack_ lines (one per new ACK) and
    cwnd_ lines within 15 %, the same final values within 15 % (on 2026-11-25 the cwnd_
    lines were identical, 266 of them)."""
    (tmp_path / "ns").mkdir()
    (tmp_path / "bl").mkdir()
    for d in ("ns", "bl"):
        (tmp_path / d / "vt.tcl").write_text(_VAR_TRACE)
    _ns(tmp_path / "ns" / "vt.tcl", cwd=tmp_path / "ns")
    r = run_cli("run", str(tmp_path / "bl" / "vt.tcl"), cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    a, b = _var_lines(tmp_path / "ns" / "cwnd.tr"), _var_lines(tmp_path / "bl" / "cwnd.tr")
    for var in ("cwnd_", "ack_"):
        na = [v for _, x, v in a if x == var]
        nb = [v for _, x, v in b if x == var]
        assert len(nb) == pytest.approx(len(na), rel=0.15), (var, len(na), len(nb))
        assert nb[-1] == pytest.approx(na[-1], rel=0.15), (var, na[-1], nb[-1])


@needs_ns
@needs_session
def test_a_variable_trace_set_up_before_attach_writes_no_first_line(tmp_path: Path) -> None:
    """ns-2 writes a traced variable's value at `trace` only to a channel already attached:
    with `trace` before `attach` (as ns-2's suites' enable_tracecwnd does) the first line is
    the first change, as under ns-2.35."""
    body = _VAR_TRACE.replace(
        "$tcp attach $f\n$tcp trace cwnd_\n", "$tcp trace cwnd_\n$tcp attach $f\n"
    )
    assert body != _VAR_TRACE
    for d in ("ns", "bl"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "vt.tcl").write_text(body)
    _ns(tmp_path / "ns" / "vt.tcl", cwd=tmp_path / "ns")
    r = run_cli("run", str(tmp_path / "bl" / "vt.tcl"), cwd=tmp_path / "bl")
    assert r.code == 0, r.stderr
    a, b = _var_lines(tmp_path / "ns" / "cwnd.tr"), _var_lines(tmp_path / "bl" / "cwnd.tr")
    first = [next(ln for ln in lines if ln[1] == "cwnd_") for lines in (a, b)]
    assert first[0][0] > 0 and first[1] == first[0]
    # ack_, traced after attach, still has its line at set-up
    assert next(ln for ln in b if ln[1] == "ack_")[0] == 0.0
