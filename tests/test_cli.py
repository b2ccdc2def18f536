"""The `bufferlab` command: output contracts and errors as answers."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, UNROUTABLE, dumbbell_toml

REPORT_KEYS = {
    "bufferlab_version", "scenario", "seed", "sim_time_s", "events", "wall_s", "partial",
    "flows", "queues", "links", "fairness", "series",
}  # fmt: skip
FLOW_KEYS = {
    "name", "src", "dst", "protocol", "app", "start_s", "stop_s", "tx_packets", "tx_bytes",
    "rx_packets", "rx_bytes", "lost_packets", "lost_bytes", "in_flight_packets",
    "drops_by_location", "throughput_bps", "goodput_bps", "delay_mean_s", "delay_p50_s",
    "delay_p95_s", "delay_p99_s", "delay_max_s", "jitter_s", "tcp",
}  # fmt: skip
QUEUE_KEYS = {
    "link", "from", "to", "discipline", "arrivals", "departures", "drops", "drops_by_reason",
    "marks", "avg_packets", "avg_bytes", "max_packets", "max_bytes", "sojourn_mean_s",
    "sojourn_p99_s", "sojourn_max_s",
}  # fmt: skip
LINK_KEYS = {
    "link", "from", "to", "rate_bps", "delay_s", "tx_packets", "tx_bytes", "utilisation",
    "lost_packets",
}  # fmt: skip


def assert_one_error_line(res, *needles: str, code: int = 2) -> str:
    """Exit code 2, nothing on stdout, exactly one `error:` line naming what is wrong."""
    assert res.code == code, (res.code, res.stdout, res.stderr)
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    line = lines[0]
    assert line.startswith("error: "), line
    assert "Traceback" not in res.stderr
    for needle in needles:
        assert needle in line, (needle, line)
    return line


# -- success paths --------------------------------------------------------------------------


def test_json_is_exactly_one_report_object(cli, example):
    res = cli("run", str(example), "--json")
    assert res.code == 0, res.stderr
    report = json.loads(res.stdout)  # raises if anything else is on stdout
    assert isinstance(report, dict)
    assert report.keys() >= REPORT_KEYS
    assert report["flows"], "the example has flows"
    for f in report["flows"]:
        assert f.keys() >= FLOW_KEYS
        assert f["protocol"] in ("udp", "tcp")
    for q in report["queues"]:
        assert q.keys() >= QUEUE_KEYS
    for link in report["links"]:
        assert link.keys() >= LINK_KEYS
    assert {"flows", "jain", "throughput_mean_bps", "throughput_std_bps"} <= report[
        "fairness"
    ].keys()
    for s in report["series"]["queues"]:
        assert {"link", "from", "to", "t_s", "packets", "bytes"} <= s.keys()
        assert len(s["t_s"]) == len(s["packets"]) == len(s["bytes"])


def test_seed_option_is_reported(cli, poisson_file):
    res = cli("run", str(poisson_file), "--json", "--seed", "42")
    assert res.code == 0, res.stderr
    assert json.loads(res.stdout)["seed"] == 42


def test_set_changes_the_run(cli, poisson_file):
    res = cli("run", str(poisson_file), "--json", "--set", "links.bottleneck.queue.limit=5p")
    assert res.code == 0, res.stderr
    bottleneck = [
        q for q in json.loads(res.stdout)["queues"] if q["link"] == "bottleneck" and q["arrivals"]
    ]
    assert bottleneck and max(q["max_packets"] for q in bottleneck) <= 5


def test_tables_on_terminal(cli, example):
    res = cli("run", str(example))
    assert res.code == 0, res.stderr
    out = res.stdout
    for word in ("Flows", "Queues", "Busiest links", "Fairness", "cbr", "poisson", "onoff"):
        assert word in out, word


def test_out_dir_files(cli, poisson_file, tmp_path: Path):
    out = tmp_path / "out"
    res = cli("run", str(poisson_file), "--out", str(out), "--json")
    assert res.code == 0, res.stderr
    json.loads(res.stdout)
    for name in ("report.json", "flows.csv", "queues.csv", "links.csv", "queue_series.parquet"):
        assert (out / name).is_file(), name
    report = json.loads((out / "report.json").read_text())
    assert report.keys() >= REPORT_KEYS
    flows = pd.read_csv(out / "flows.csv")
    assert list(flows["name"]) == [f["name"] for f in report["flows"]]
    series = pd.read_parquet(out / "queue_series.parquet")
    assert list(series.columns[:6]) == ["link", "from", "to", "t_s", "packets", "bytes"]
    assert len(series) == sum(len(s["t_s"]) for s in report["series"]["queues"])


def test_validate_ok(cli, example):
    res = cli("validate", str(example))
    assert res.code == 0, res.stderr
    assert res.stdout.startswith("ok:")


def test_validate_json_is_normalised_scenario(cli, example):
    res = cli("validate", str(example), "--json", "--set", "duration=5s")
    assert res.code == 0, res.stderr
    both = json.loads(res.stdout)
    assert both["scenario"]["duration"] == "5s"
    assert both["resolved"]["duration_s"] == 5.0


def test_validate_json_shows_the_network_as_built(cli):
    """Every default resolved by the core: the TCP preset's packet size on the wire (ns-2:
    1000-byte segments + 40 bytes of headers), routed paths, propagation RTTs and the RED
    thresholds a preset works out (ns-2: automatic, from the link rate)."""
    res = cli("validate", str(ROOT / "examples" / "dumbbell_tcp.toml"), "--json",
              "--set", 'links.bottleneck.queue={ kind = "red", preset = "ns2" }')  # fmt: skip
    assert res.code == 0, res.stderr
    built = json.loads(res.stdout)["resolved"]
    tcp0 = next(f for f in built["flows"] if f["name"] == "tcp0")
    assert tcp0["packet_size"] == 1040
    assert tcp0["tcp"]["mss_bytes"] == 1000
    assert [h["link"] for h in tcp0["path"]] == ["access_s0", "bottleneck", "access_d0"]
    hops = built["links"]
    delay = {(h["link"], h["from"]): h["delay_s"] for h in hops}
    there = sum(delay[(h["link"], h["from"])] for h in tcp0["path"])
    back = sum(delay[(h["link"], h["from"])] for h in tcp0["reverse_path"])
    assert tcp0["rtt_propagation_s"] == pytest.approx(there + back)
    red = next(h for h in hops if h["link"] == "bottleneck")["queue"]["settings"]
    rate = next(h["rate_bps"] for h in hops if h["link"] == "bottleneck")
    # ns-2 RED initialize_params: max(5, 5 ms x C / (8 x 500 B) / 2) packets of 500 B, x 3
    min_pkts = max(5.0, 0.005 * rate / (8 * 500) / 2)
    assert red["unit"] == "bytes"
    assert red["min_th"] == pytest.approx(min_pkts * 500)
    assert red["max_th"] == pytest.approx(3 * min_pkts * 500)


def test_red_limit_below_max_th_is_warned(cli, tmp_path):
    p = tmp_path / "red.toml"
    p.write_text(dumbbell_toml(
        name="red", duration="1s", bottleneck=("100Mbps", "10ms"),
        queue='{ kind = "red", preset = "ns2", limit = "50p" }',
        flows=[{"name": "f", "src": "s0", "dst": "d0", "app": {"kind": "bulk"}}],
    ))  # fmt: skip
    for cmd in ("validate", "run"):
        res = cli(cmd, str(p))
        assert res.code == 0, res.stderr
        assert "warning: link bottleneck r0->r1: RED's queue limit" in res.stderr, res.stderr


def test_schema_is_json_schema(cli):
    res = cli("schema")
    assert res.code == 0, res.stderr
    schema = json.loads(res.stdout)
    assert schema.get("type") == "object"
    assert "properties" in schema


def test_version(cli):
    import bufferlab

    res = cli("version")
    assert res.code == 0
    assert bufferlab.__version__ in res.stdout


def test_no_arguments_shows_help(cli):
    res = cli()
    assert res.code == 0
    assert "run" in res.stdout and "validate" in res.stdout


# -- errors are answers ---------------------------------------------------------------------


def test_missing_file(cli, tmp_path: Path):
    missing = tmp_path / "nope.toml"
    assert_one_error_line(cli("run", str(missing)), "nope.toml")


def test_missing_file_validate(cli, tmp_path: Path):
    assert_one_error_line(cli("validate", str(tmp_path / "nope.toml")), "nope.toml")


def test_directory_instead_of_file(cli, tmp_path: Path):
    assert_one_error_line(cli("run", str(tmp_path)))


def test_unknown_key(cli, poisson_file):
    poisson_file.write_text(poisson_file.read_text() + "\nbogus_key = 1\n")
    assert_one_error_line(cli("run", str(poisson_file)), "bogus_key")


def test_unknown_key_in_table(cli, poisson_file):
    text = poisson_file.read_text().replace('delay = "10ms"', 'delay = "10ms"\nspeed = "1Gbps"')
    poisson_file.write_text(text)
    assert_one_error_line(cli("validate", str(poisson_file)), "speed")


def test_wrong_unit(cli, poisson_file):
    text = poisson_file.read_text().replace('rate = "10Mbps"', 'rate = "10Mbpz"')
    poisson_file.write_text(text)
    assert_one_error_line(cli("run", str(poisson_file)), "links.bottleneck.rate", "Mbpz")


def test_wrong_unit_via_set(cli, poisson_file):
    res = cli("run", str(poisson_file), "--set", "links.bottleneck.rate=10Mbpz")
    assert_one_error_line(res, "links.bottleneck.rate", "Mbpz")


def test_negative_rate(cli, poisson_file):
    res = cli("run", str(poisson_file), "--set", "flows.0.app.rate=-2Mbps")
    line = assert_one_error_line(res, "rate")
    assert "flows" in line


def test_unroutable_flow(cli, tmp_path: Path):
    p = tmp_path / "unroutable.toml"
    p.write_text(UNROUTABLE)
    assert_one_error_line(cli("run", str(p)), "dst")


def test_unknown_node(cli, poisson_file):
    res = cli("run", str(poisson_file), "--set", "flows.0.dst=nowhere")
    assert_one_error_line(res, "dst", "nowhere")


def test_buffer_smaller_than_a_packet(cli, poisson_file):
    res = cli("run", str(poisson_file), "--set", "links.bottleneck.queue.limit=100B")
    assert_one_error_line(res, "limit")


@pytest.mark.parametrize("spec", ["no-equals-sign", "=5", ".x=1"])
def test_bad_set_syntax(cli, poisson_file, spec):
    assert_one_error_line(cli("run", str(poisson_file), "--set", spec))


def test_set_on_missing_index(cli, poisson_file):
    assert_one_error_line(cli("run", str(poisson_file), "--set", "flows.9.app.rate=1Mbps"), "9")


def test_toml_syntax_error_is_one_line(cli, poisson_file):
    poisson_file.write_text('name = "broken\nduration = \n')
    assert_one_error_line(cli("run", str(poisson_file)))


def test_usage_errors_are_one_line(cli, example):
    assert_one_error_line(cli("run"), "FILE")
    assert_one_error_line(cli("run", str(example), "--no-such-option"), "--no-such-option")
    assert_one_error_line(cli("run", str(example), "--seed", "minus-one"), "--seed")
    assert_one_error_line(cli("frobnicate"), "frobnicate")


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ("monitor.queue_interval=1ps", "monitor.queue_interval"),
        ("flows.0.app.rate=1e40bps", "flows[0].app.rate"),
    ],
)
def test_values_that_took_the_machine_down_are_refused_at_once(cli, example, override, field):
    """Each of these once grew to the machine's 24 GB and was killed by the kernel."""
    res = cli("run", str(example), "--set", override)
    assert res.code == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and field in lines[0], res.stderr


@pytest.mark.parametrize("width", [80, 100, 120])
def test_run_tables_keep_every_value_whole_at_terminal_widths(width, poisson_file):
    """At 80-120 columns no number is cut: wide tables are split, each part repeating the
    row's name, and every cell of the report appears whole on one line."""
    import io

    from rich.console import Console

    import bufferlab
    from bufferlab.cli.format import fmt_int, fmt_rate, fmt_time, print_report

    res = bufferlab.run(poisson_file)
    buf = io.StringIO()
    print_report(res, Console(file=buf, width=width, color_system=None))
    out = buf.getvalue()
    assert max(len(line) for line in out.splitlines()) <= width
    assert "…" not in out
    f = res.raw["flows"][0]
    for cell in (
        fmt_int(f["tx_packets"]),
        fmt_rate(f["goodput_bps"]),
        fmt_time(f["delay_mean_s"]),
        fmt_time(f["jitter_s"]),
    ):
        assert any(cell in line for line in out.splitlines()), (cell, out)


def test_max_wall_stops_with_partial_results(cli):
    """--max-wall: a hard stop the user asked for; the report says where it stopped."""
    res = cli("run", str(ROOT / "bench" / "scenarios" / "c_ns2.toml"), "--json",
              "--set", "duration=10000s", "--max-wall", "0.3s")  # fmt: skip
    assert res.code == 0, res.stderr
    assert "stopped by --max-wall after" in res.stderr
    report = json.loads(res.stdout)
    assert report["partial"] and report["stopped"]["kind"] == "max_wall"
    assert 0 < report["sim_time_s"] < 10000


def test_max_memory_is_an_error_that_keeps_what_was_measured(cli, tmp_path):
    """A run past --max-memory stops with one error line (exit 2) and still writes its
    partial results where -o asked. 10 MB: above the run's up-front estimate (about 2 MB),
    below what the process holds (about 17 MB at start on the fast path, which loads neither
    typer nor rich; the limit was 30 MB when every command loaded them)."""
    out = tmp_path / "out"
    res = cli("run", str(ROOT / "bench" / "scenarios" / "c_ns2.toml"), "--max-memory", "10MB",
              "-o", str(out))  # fmt: skip
    assert res.code == 2
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "--max-memory 10 MB" in errors[0], res.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["partial"] and report["stopped"]["kind"] == "max_memory"
    bad = cli("run", str(ROOT / "bench" / "scenarios" / "c_ns2.toml"), "--max-memory", "3x")
    assert bad.code == 2 and '--max-memory: "3x" is not a size' in bad.stderr


def test_rates_and_times_never_show_an_exponent():
    """A value that rounds up to the next unit takes that unit (999.97 Mbit/s read
    "1e+03 Mbit/s" in a run table once)."""
    from bufferlab.cli.format import fmt_rate, fmt_time

    assert fmt_rate(999.97e6) == "1 Gbit/s"
    assert fmt_rate(999.4e6) == "999 Mbit/s"
    assert fmt_time(0.99996) == "1 s"
    assert fmt_time(0.0009999) == "1 ms"
    for k in range(-9, 13):
        for m in (1.0, 9.994, 9.996, 99.96, 999.6):
            if k >= 0:  # from 1 bit/s
                assert "e" not in fmt_rate(m * 10.0**k).split()[0]
            if k < 3:  # up to 1000 s
                assert "e" not in fmt_time(m * 10.0**k).split()[0]
