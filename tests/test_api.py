"""The Python API: load, Scenario, run and Results."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
import tomli_w

import bufferlab
from bufferlab import Results, Scenario, ScenarioError, SimulationPanic
from bufferlab.results import FLOW_COLUMNS, LINK_COLUMNS, QUEUE_COLUMNS
from bufferlab.scenario import normalise_overrides
from conftest import POISSON, ROOT, dumbbell_toml

EXAMPLES = ROOT / "examples"


def test_public_names():
    for name in ("load", "run", "Scenario", "Results", "ScenarioError", "__version__"):
        assert hasattr(bufferlab, name), name
    assert issubclass(ScenarioError, ValueError)
    assert issubclass(SimulationPanic, RuntimeError)
    assert isinstance(bufferlab.__version__, str) and bufferlab.__version__


def test_load_keeps_text_and_source(example: Path):
    sc = bufferlab.load(example)
    assert sc.text == example.read_text()
    assert sc.source == str(example)
    assert sc.path == example
    assert sc.overrides == ()


def test_load_missing_file(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        bufferlab.load(tmp_path / "missing.toml")


def test_with_overrides_is_immutable_and_accumulates(example: Path):
    sc = bufferlab.load(example)
    sc2 = sc.with_overrides({"links.bottleneck.queue.limit": "10KB"})
    sc3 = sc2.with_overrides(["flows.0.app.rate=2Mbps"], duration="5s")
    assert sc.overrides == ()
    assert sc2.overrides == ("links.bottleneck.queue.limit=10KB",)
    assert sc3.overrides == (
        "links.bottleneck.queue.limit=10KB",
        "flows.0.app.rate=2Mbps",
        "duration=5s",
    )


def test_normalise_overrides_forms():
    assert normalise_overrides(None) == []
    assert normalise_overrides("a.b=1") == ["a.b=1"]
    assert normalise_overrides({"seed": 3, "x.on": True, "r": "5Mbps"}) == [
        "seed=3",
        "x.on=true",
        "r=5Mbps",
    ]
    assert normalise_overrides({"q": {"kind": "droptail", "limit": "5p"}}) == [
        'q={ kind = "droptail", limit = "5p" }'
    ]
    with pytest.raises(ScenarioError):
        normalise_overrides(["no-equals"])
    with pytest.raises(ScenarioError):
        normalise_overrides(["=1"])


def test_validate_returns_normalised_dict(example: Path):
    normalised = bufferlab.load(example).validate()
    assert isinstance(normalised, dict)


def test_validate_raises_scenario_error(example: Path):
    sc = bufferlab.load(example).with_overrides({"links.bottleneck.rate": "10Mbpz"})
    with pytest.raises(ScenarioError, match=r"links\.bottleneck\.rate"):
        sc.validate()


def test_run_accepts_path_scenario_and_text(example: Path):
    by_path = bufferlab.run(example)
    by_str = bufferlab.run(str(example))
    by_scenario = bufferlab.run(bufferlab.load(example))
    by_text = bufferlab.run(Scenario.from_text(example.read_text()))
    raw_text = bufferlab.run(example.read_text())
    for res in (by_path, by_str, by_scenario, by_text, raw_text):
        assert isinstance(res, Results)
        assert res.scenario == by_path.scenario
        assert len(res.flows) == 3


def test_dataframe_columns(example: Path):
    res = bufferlab.run(example)
    assert list(res.flows.columns[: len(FLOW_COLUMNS)]) == FLOW_COLUMNS
    assert list(res.queues.columns[: len(QUEUE_COLUMNS)]) == QUEUE_COLUMNS
    assert list(res.links.columns[: len(LINK_COLUMNS)]) == LINK_COLUMNS
    assert list(res.flows["name"]) == ["cbr", "poisson", "onoff"]
    # Nested records are not columns of the flat frames.
    for nested in ("drops_by_location", "tcp"):
        assert nested not in res.flows.columns
    assert "drops_by_reason" not in res.queues.columns
    assert pd.api.types.is_numeric_dtype(res.flows["goodput_bps"])
    assert pd.api.types.is_numeric_dtype(res.flows["delay_p99_s"])

    series = res.queue_series
    assert list(series.columns[:6]) == ["link", "from", "to", "t_s", "packets", "bytes"]
    assert len(series) == sum(len(s["t_s"]) for s in res.raw["series"]["queues"])
    assert len(series) > 0

    assert set(res.flow_drops.columns) == {"flow", "link", "reason", "packets"}
    assert set(res.queue_drops.columns) == {"link", "reason", "packets"}
    assert res.flow_drops["packets"].sum() <= res.flows["lost_packets"].sum()

    fair = res.fairness
    assert {"flows", "jain", "throughput_mean_bps", "throughput_std_bps"} <= fair.keys()
    assert 0 < fair["jain"] <= 1


def test_to_json_round_trips(example: Path):
    res = bufferlab.run(example)
    assert json.loads(res.to_json()) == res.raw
    assert json.loads(res.to_json(indent=2)) == res.raw
    assert Results.from_json(res.to_json()).raw == res.raw


def test_overrides_dict_form(poisson_file: Path):
    small = bufferlab.run(poisson_file, overrides={"links.bottleneck.queue.limit": "5p"})
    big = bufferlab.run(poisson_file, overrides=["links.bottleneck.queue.limit=200p"])
    q_small = small.queues.query("link == 'bottleneck'")["max_packets"].max()
    q_big = big.queues.query("link == 'bottleneck'")["max_packets"].max()
    assert q_small <= 5
    assert q_big > q_small
    assert small.queues["drops"].sum() > big.queues["drops"].sum()


def test_overrides_on_scenario_and_run_combine(poisson_file: Path):
    sc = bufferlab.load(poisson_file).with_overrides({"duration": "1s"})
    res = sc.run(overrides={"flows.0.app.rate": "1Mbps"})
    assert res.sim_time_s == pytest.approx(1.0)
    assert res.flows.loc[0, "goodput_bps"] < 2e6


def test_run_errors_are_scenario_errors(poisson_file: Path):
    with pytest.raises(ScenarioError, match="bogus"):
        bufferlab.run(poisson_file, overrides={"bogus": 1})
    with pytest.raises(ScenarioError):
        bufferlab.run(poisson_file, seed=-1)
    with pytest.raises(ScenarioError):
        bufferlab.run(POISSON + "\nnot toml at all [\n")


def test_flow_series_frame_matches_the_report(tmp_path: Path):
    text = dumbbell_toml(
        name="fs", duration="3s", monitor={"flow_interval": "1s"},
        flows=[{"name": "u", "src": "s0", "dst": "d0",
                "app": {"kind": "cbr", "rate": "1Mbps"}}],
    )  # fmt: skip
    res = bufferlab.run(text)
    fs = res.flow_series
    assert list(fs["t_s"]) == [1.0, 2.0, 3.0]
    assert fs["tx_packets"].sum() == res.flows.loc[0, "tx_packets"]
    assert fs["rx_packets"].sum() == res.flows.loc[0, "rx_packets"]
    written = res.save(tmp_path / "out")
    assert (tmp_path / "out" / "flow_series.parquet") in written
    assert bufferlab.run(text.replace("flow_interval", "queue_interval")).flow_series.empty


def test_empty_series_frame_has_columns():
    res = Results({"flows": [], "queues": [], "links": [], "series": {"queues": []}})
    assert list(res.queue_series.columns) == ["link", "from", "to", "t_s", "packets", "bytes"]
    assert list(res.flows.columns) == FLOW_COLUMNS
    assert res.queue_series.empty and res.flows.empty


def test_threads_give_the_same_results(poisson_file: Path):
    """The GIL is released while simulating; runs in threads stay deterministic."""
    seeds = [1, 2, 3, 4]
    sequential = [bufferlab.run(poisson_file, seed=s).raw for s in seeds]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(lambda s: bufferlab.run(poisson_file, seed=s).raw, seeds))
    for a, b in zip(sequential, threaded, strict=True):
        a.pop("wall_s")
        b.pop("wall_s")
        assert a == b


def test_queue_figure_draws_a_byte_mode_red_average_in_bytes() -> None:
    """RED in byte mode averages bytes: its figure is in bytes, queue and average alike (the
    average of ~thousands of bytes was once drawn on a 0-10 packet axis)."""
    from bufferlab.experiments.figures import queue_figure

    res = bufferlab.run(
        EXAMPLES / "table3_base.toml",
        overrides={"duration": "3s", "monitor.queue_interval": "10ms"},
    )
    qs = res.queue_series
    assert set(qs["average_unit"].dropna()) == {"bytes"}
    ax = queue_figure(qs, link="bottleneck").axes[0]
    assert ax.get_ylabel() == "queue length (bytes)"
    fwd = qs[(qs["link"] == "bottleneck") & (qs["from"] == "r0")]
    drawn = max(max(line.get_ydata()) for line in ax.lines)
    assert drawn == max(fwd["bytes"].max(), fwd["average"].max())


def test_limits_stop_a_run_and_a_sweep_records_it_as_failed():
    """max_memory / max_wall reach the core from the Python API; a sweep run that a limit
    stopped is a failed run with the reason, not a short successful one."""
    from bufferlab.experiments.execute import execute_run

    text = (ROOT / "bench" / "scenarios" / "c_ns2.toml").read_text()
    # 10 MB: above the up-front estimate (1.9 MB, links and flows), below what the process holds
    res = bufferlab.run(text, max_memory=10_000_000)
    assert res.partial and res.stopped and res.stopped["kind"] == "max_memory"
    assert "--max-memory" in res.stopped["message"]
    out = execute_run(text, "c_ns2.toml", [], 1, {"max_memory": 10_000_000})
    assert not out["ok"] and out["error_kind"] == "stopped:max_memory", out
    assert bufferlab.run(text, overrides={"duration": "2s"}, max_memory=0).stopped is None
    with pytest.raises(ScenarioError, match="max_wall"):
        bufferlab.run(text, max_wall=-1.0)
    # refused before it starts: 202 nodes and 201 links x 3 KB + 100 flows x 13 KB
    with pytest.raises(ScenarioError, match=r"would hold about 1\.9 MB once built"):
        bufferlab.run(text, max_memory=1_000_000)


def test_deep_buffers_that_traffic_cannot_fill_are_not_refused_up_front():
    """The up-front estimate counts only what a run is sure to hold: 100 Reno flows behind
    10-million-packet access buffers (every queue full would be about 260 GB) run within a
    1 GB budget, since TCP never fills them (a study at N = 1000 was refused this way)."""
    text = (ROOT / "bench" / "scenarios" / "c_ns2.toml").read_text()
    res = bufferlab.run(
        text,
        overrides={"duration": "2s", "links.access.queue.limit": "10000000p"},
        max_memory=1_000_000_000,
    )
    assert res.stopped is None and not res.partial
    assert res.queues["arrivals"].sum() > 0


def test_from_dict_is_the_toml_path():
    """A scenario built as a dict runs like the same file and fails with the same message."""
    from conftest import dumbbell

    flows = [{"name": "u", "src": "s0", "dst": "d0", "app": {"kind": "cbr", "rate": "1Mbps"}}]
    d = dumbbell(name="d", duration="2s", flows=flows)
    a = Scenario.from_dict(d).run()
    b = bufferlab.run(dumbbell_toml(name="d", duration="2s", flows=flows))
    assert a.flows.equals(b.flows)
    bad = dumbbell(name="d", duration="2s", flows=flows, queue={"kind": "red", "max_p": 7.0})
    with pytest.raises(ScenarioError) as from_dict:
        Scenario.from_dict(bad).validate()
    with pytest.raises(ScenarioError) as from_text:
        Scenario.from_text(tomli_w.dumps(bad), source="<dict>").validate()
    assert str(from_dict.value) == str(from_text.value)
    assert "links.bottleneck.queue" in str(from_dict.value) and "max_p" in str(from_dict.value)
    with pytest.raises(ScenarioError, match="leave out a key"):
        Scenario.from_dict({**d, "seed": None})


def test_results_in_a_notebook(tmp_path: Path):
    """Results show themselves as HTML (tables, fairness, a queue figure) and draw one run's
    figures without a database."""
    res = bufferlab.run(ROOT / "examples" / "dumbbell_tcp.toml", overrides={
        "duration": "5s", "monitor.queue_interval": "100ms", "monitor.cwnd_interval": "100ms",
        "monitor.flow_interval": "1s"})  # fmt: skip
    page = res._repr_html_()
    assert "<h5>Flows</h5>" in page and "tcp0" in page and "Jain" in page
    assert 'src="data:image/png;base64,' in page
    for fig in (res.plot.queue(), res.plot.flows(), res.plot.cwnd(), res.plot.flow_series()):
        assert fig is not None
        assert all(ax.get_ylabel() for ax in fig.axes), "every axis says what it shows"
    udp = bufferlab.run(ROOT / "examples" / "dumbbell_udp.toml")
    assert udp.plot.cwnd() is None and udp.plot.flow_series() is None


def test_results_read_numbers_warnings_and_stop_without_parsing_the_report():
    """`Results.from_json` reads the top-level numbers, the warnings and the stop from the
    core's text without parsing flows, queues, links and series (what `bufferlab run --json`
    needs; a 100 000-flow report parsed is over a gigabyte), and gives what the parsed report
    says."""
    from bufferlab import _core
    from bufferlab.results import SUMMARY_KEYS, summary_fields
    from conftest import dumbbell_toml

    text = dumbbell_toml(
        name="red",
        duration="2s",
        bottleneck=("100Mbps", "10ms"),
        queue='{ kind = "red", preset = "ns2", limit = "50p" }',
        flows=[{"name": "f", "src": "s0", "dst": "d0", "app": {"kind": "bulk"}}],
    )
    whole = _core.run(text)
    # stopped by the limit at its first check
    stopped = _core.run(text, overrides=["duration=100s"], max_wall=1e-9)
    for report in (whole, stopped):
        full = json.loads(report)
        res = Results.from_json(report)
        assert (res.warnings, res.stopped, res.partial) == (
            full.get("warnings", []),
            full.get("stopped"),
            full["partial"],
        )
        assert (res.sim_time_s, res.events, res.seed) == (
            full["sim_time_s"],
            full["events"],
            full["seed"],
        )
        assert res.to_json() == report
        assert res._raw is None  # nothing above parsed the whole report
        assert summary_fields(report) == {k: full[k] for k in SUMMARY_KEYS if k in full}
        assert len(res.flows) == len(full["flows"])  # the frames parse it
    assert json.loads(whole)["warnings"] and json.loads(stopped)["stopped"]
    assert summary_fields('{"a": 1}') is None  # not the core's layout: parsed whole
