"""Flow completion times and workloads from Python: the frames of Results, the sweep metric
table `fct`, the CLI's table within 80 columns, and the builder's workloads
(docs/models/fct.md, docs/models/workloads.md)."""

from __future__ import annotations

import math

import pytest

import bufferlab
from bufferlab.experiments.metrics import parse_metric
from bufferlab.experiments.store import report_rows
from conftest import ROOT

HOSTS = ["h0", "h1", "h2", "h3"]


def star() -> bufferlab.ScenarioBuilder:
    b = bufferlab.custom(nodes=["sw", *HOSTS], duration="0.5s", name="fct-star")
    for h in HOSTS:
        b.link(f"l{h}", between=["sw", h], rate="1Gbps", delay="10us",
               queue={"kind": "droptail", "limit": "300p"})  # fmt: skip
    return b


@pytest.fixture(scope="module")
def res() -> bufferlab.Results:
    b = star()
    b.poisson_flows(["h*"], "hadoop", 0.3, stop="0.3s", tcp={"preset": "linux"})
    b.incast("h0", ["h1", "h2", "h3"], "30KB", "50ms", stop="0.3s", tcp={"preset": "linux"})
    return b.run(seed=1)


def test_frames_hold_every_transfer_and_the_buckets_add_up(res):
    fct, buckets, queries = res.fct, res.fct_buckets, res.fct_queries
    assert len(fct) > 100
    assert list(buckets["bucket"]) == ["<100KB", "100KB-1MB", ">1MB", "all"]
    per_bucket = buckets.set_index("bucket")
    assert (
        per_bucket.loc[["<100KB", "100KB-1MB", ">1MB"], "count"].sum()
        == per_bucket.loc["all", "count"]
    )
    done = fct.dropna(subset=["fct_s"])
    assert (done["slowdown"] >= 1.0 - 1e-9).all()
    assert (done["fct_s"] >= done["ideal_fct_s"] - 1e-12).all()
    # six queries at 0, 50, ..., 250 ms, each done with its last answer
    assert list(queries["query"]) == [f"q1_{k}" for k in range(6)]
    assert (queries["responses"] == 3).all()
    for _, q in queries.iterrows():
        answers = fct[fct["flow"].str.startswith(q["query"] + "_")]
        assert math.isclose(q["finish_s"], answers["finish_s"].max())


def test_sweep_rows_and_metric_of_a_bucket(res):
    rows = report_rows(res.raw)["fct"]
    assert [r["bucket"] for r in rows] == ["<100KB", "100KB-1MB", ">1MB", "all"]
    m = parse_metric("fct[<100KB].slowdown_p99")
    assert (m.table, m.selector, m.column) == ("fct", "<100KB", "slowdown_p99")
    assert parse_metric("fct.slowdown_p99").selector == "all"


def test_the_cli_prints_the_table_within_80_columns(cli, tmp_path):
    scenario = star()
    scenario.flow("t", "h1", "h2", app={"kind": "transfer", "size": "200KB"},
                  tcp={"preset": "linux"})  # fmt: skip
    path = tmp_path / "t.toml"
    path.write_text(scenario.scenario().text)
    out = cli("run", str(path), columns=80)
    assert out.code == 0, out.stderr
    lines = out.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Flow completion times"))
    table = lines[start : start + 9]
    assert any(ln.lstrip().startswith("100KB-1MB") for ln in table), out.stdout
    assert all(len(ln) <= 80 for ln in table), table


def test_the_example_runs_and_prints_slowdown_by_size(cli):
    out = cli("run", str(ROOT / "examples/datacenter/websearch_fct.toml"), columns=80)
    assert out.code == 0, out.stderr
    assert "Flow completion times" in out.stdout
    assert ">1MB" in out.stdout


def test_workload_errors_are_one_line(cli, tmp_path):
    b = star()
    # a CDF file is named relative to the scenario's folder (docs/models/workloads.md)
    b.poisson_flows(["h*"], {"file": "bad.cdf"}, 0.3)
    (tmp_path / "bad.cdf").write_text("0 0\n100 0.5\n50 1\n")
    path = tmp_path / "w.toml"
    path.write_text(b.scenario().text)
    out = cli("run", str(path))
    assert out.code == 2
    assert "workloads[0].sizes" in out.stderr and "line 3" in out.stderr, out.stderr
