"""The experiment commands at the command line: sweep, results, plot, report (rendered by a
headless Chromium), advise; errors as one line with exit code 2."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from bufferlab.experiments.stats import aggregate
from conftest import ROOT, dumbbell_toml
from test_sweep import BASE, SWEEP, write_sweep


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    """A finished tiny sweep (4 points x 3 replications, one failing point added) in r.duckdb."""
    from conftest import run_cli

    d = tmp_path_factory.mktemp("swept")
    body = SWEEP.replace('["5KB", "20KB"]', '["5KB", "20KB", "10B"]')
    write_sweep(d, body)
    r = run_cli("sweep", "sweep.toml", "--db", "r.duckdb", "-j", "2", cwd=d)
    assert r.code == 0, r.stderr
    assert "tiny: 12 ok, 6 failed, 18 in all" in r.stderr
    # The first failure is shown with its grid point, not only counted.
    first = next(line for line in r.stderr.splitlines() if line.startswith("first failure:"))
    assert "limit=10B" in first and "replication 0" in first and "smaller than one" in first, first
    return d


def test_sweep_prints_a_summary_and_resumes(swept, cli):
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "--quiet", cwd=swept)
    assert r.code == 0
    assert "resuming: 12 of 18 runs already in r.duckdb" in r.stderr
    assert "0 ok, 6 failed, 12 already done" in r.stderr


def test_sweep_limit_on_a_fresh_database_says_what_is_left(tmp_path, cli):
    write_sweep(tmp_path, SWEEP)
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "--limit", "2", "--quiet", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "already done" not in r.stderr, r.stderr
    assert "2 ok, 0 failed, 10 left for a later call (--limit), 12 in all" in r.stderr, r.stderr


def test_results_lists_sweeps_and_aggregates(swept, cli):
    r = cli("results", "--db", "r.duckdb", cwd=swept)
    assert r.code == 0, r.stderr
    assert re.search(r"\btiny\b.*\b18\b.*\b12\b.*\b6\b", r.stdout)
    r = cli("results", "tiny", "--db", "r.duckdb", "-a", "flows.goodput_bps", cwd=swept)
    assert r.code == 0, r.stderr
    # the title names the metric in words with its unit, not its path twice
    assert "goodput, mean over flows (" in r.stdout and "95 % CI" in r.stdout, r.stdout
    assert "flows.goodput_bps" not in r.stdout
    assert "limit" in r.stdout and r.stdout.count("5KB") == 2


def test_results_of_a_sweep_is_one_row_per_point_in_human_units(swept, cli):
    """Issue #36: `results SWEEP` reads at a glance: one row per grid point, each metric's mean
    ± CI in a unit named in its header, not every run with raw SI numbers."""
    r = cli("results", "tiny", "--db", "r.duckdb", cwd=swept)
    assert r.code == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if re.match(r"^ \d+ ", ln)]
    # 6 points (3 buffers x 2 rates): one row each, not 18 runs
    assert len(rows) == 6, r.stdout
    assert "mean ± 95% CI over 3 replications per point" in r.stdout
    assert "goodput, mean" in r.stdout and "(Mbit/s)" in r.stdout, r.stdout
    assert "no finished run at points 4, 5" in r.stdout
    # the ok points have an interval; the failing one (10B) has none
    ok = [ln for ln in rows if "10B" not in ln]
    assert ok and all(ln.count("±") >= 1 for ln in ok), rows
    assert all("e+" not in ln and "e-" not in ln for ln in rows), rows
    assert all("-" in ln for ln in rows if "10B" in ln)


def test_results_export_csv_and_parquet(swept, cli, tmp_path):
    r = cli("results", "tiny", "--db", "r.duckdb", "--table", "runs", "--csv",
            str(tmp_path / "runs.csv"), cwd=swept)  # fmt: skip
    assert r.code == 0, r.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    assert len(runs) == 18 and set(runs["status"]) == {"ok", "failed"}
    # axis values are numbers with their unit in a column beside them
    limit = "links.bottleneck.queue.limit"
    assert sorted(set(runs[limit])) == [10.0, 5000.0, 20000.0], runs[limit]
    assert set(runs[f"{limit}_unit"]) == {"bytes"}
    out = tmp_path / "flows.parquet"
    r = cli("results", "tiny", "--db", "r.duckdb", "--table", "flows", "--parquet", str(out),
            cwd=swept)  # fmt: skip
    assert r.code == 0, r.stderr
    flows = pd.read_parquet(out)
    assert len(flows) == 12 * 2 and {"goodput_bps", "replication", "seed"} <= set(flows.columns)
    out = tmp_path / "agg.csv"
    r = cli("results", "tiny", "--db", "r.duckdb", "-a", "all", "--csv", str(out), cwd=swept)
    agg = pd.read_csv(out)
    assert set(agg["metric"]) == {"flows.goodput_bps", "queues[bottleneck].avg_packets"}
    units = dict(zip(agg["metric"], agg["unit"], strict=False))
    assert units == {"flows.goodput_bps": "bit/s", "queues[bottleneck].avg_packets": "packets"}
    assert agg["links.bottleneck.queue.limit"].dtype.kind == "f"


def test_the_database_is_plain_sql(swept):
    con = duckdb.connect(str(swept / "r.duckdb"), read_only=True)
    rows = con.execute(
        """SELECT json_extract_string(r.params, '$."links.bottleneck.queue.limit"') AS buffer,
                  avg(f.goodput_bps) FROM runs r JOIN flows f USING (run_key)
           WHERE r.status = 'ok' GROUP BY buffer ORDER BY buffer"""
    ).fetchall()
    con.close()
    assert [r[0] for r in rows] == ["20KB", "5KB"]


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["--kind", "metric"], "m.png"),
        (["--kind", "metric", "--metric", "queues[bottleneck].avg_packets"], "m.svg"),
        (["--kind", "queue"], "q.pdf"),
        (["--kind", "flows"], "f.png"),
    ],
)
def test_plot_writes_figures(swept, cli, tmp_path, args, name):
    out = tmp_path / name
    r = cli("plot", "tiny", "--db", "r.duckdb", *args, "-o", str(out), cwd=swept)
    assert r.code == 0, r.stderr
    head = out.read_bytes()[:8]
    assert head.startswith({"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[name[-3:]])


def test_plot_cwnd_without_tcp_series_is_an_answer(swept, cli, tmp_path):
    r = cli("plot", "tiny", "--db", "r.duckdb", "-k", "cwnd", "-o", str(tmp_path / "c.png"),
            cwd=swept)  # fmt: skip
    assert r.code == 2 and r.stderr.count("\n") == 1 and "no TCP series" in r.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["sweep", "bad.toml"], "bad.toml: sweep.replications: expected an integer >= 1"),
        (["sweep", "nope.toml"], "nope.toml: no such file"),
        (["results", "nope", "--db", "r.duckdb"], "no sweep named 'nope'"),
        (["results", "--db", "missing.duckdb"], "missing.duckdb: no such results database"),
        (["results", "tiny", "--db", "r.duckdb", "-a", "flows.nope"], "no column 'nope' in flows"),
        (["plot", "tiny", "--db", "r.duckdb", "-o", "x.gif"], "unknown figure format"),
        (["plot", "tiny", "--db", "r.duckdb", "-o", "x.png", "--x", "zz"], "--x: x axis 'zz'"),
        (["advise", "base.toml", "--link", "nope"], "--link: no link named 'nope'"),
        (["advise", "base.toml", "--objective", "speed"], "--objective: expected one of"),
        (["advise", "base.toml", "--sizes", "5 apples"], '--sizes: "5 apples" is not a buffer'),
    ],
)
def test_errors_are_one_line_and_exit_2(swept, cli, args, needle):
    (swept / "bad.toml").write_text("[sweep]\nname = 'x'\nbase = 'base.toml'\nreplications = 0\n")
    r = cli(*args, cwd=swept)
    assert r.code == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error: ") and r.stderr.count("\n") == 1, r.stderr
    assert needle in r.stderr


# -- advisor ----------------------------------------------------------------------------------


def test_advise_rules_follow_the_formulas(tmp_path, cli):
    import math

    from bufferlab.experiments.advise import bottleneck_rules

    p = tmp_path / "base.toml"
    p.write_text(BASE)
    r = bottleneck_rules(p)
    # RTT = 2 x (1 ms access + 10 ms bottleneck + 1 ms access); 10 Mbit/s; 1000-byte packets.
    assert r.rtt_s == pytest.approx(0.024)
    assert r.bdp_bytes == pytest.approx(10e6 * 0.024 / 8)
    assert r.n_flows == 2
    assert r.rules["BDP/sqrt(N) (Appenzeller et al. 2004)"] == pytest.approx(30000 / math.sqrt(2))
    w = 2 * 30 / 2
    logw = math.ceil(math.log(w * w / 0.5) / math.log(1 / 0.8))
    assert r.rules["O(log W) (Enachescu et al. 2006)"] == pytest.approx(logw * 1000)
    res = cli("advise", str(p), "--rules-only")
    assert res.code == 0 and "BDP/sqrt(N)" in res.stdout and "30,000" in res.stdout


def test_advise_simulates_and_recommends(tmp_path, cli):
    p = tmp_path / "base.toml"
    p.write_text(BASE)
    fig = tmp_path / "advise.png"
    r = cli("advise", str(p), "--sizes", "3p,10p,40p", "-r", "2", "--objective", "delay",
            "--delay-bound", "14ms", "-o", str(fig))  # fmt: skip
    assert r.code == 0, r.stderr
    assert "Simulated (2 replications" in r.stdout and "objective delay" in r.stdout
    marked = [ln for ln in r.stdout.splitlines() if "→" in ln and "p " in ln]
    assert len(marked) == 1
    assert fig.read_bytes()[:4] == b"\x89PNG"
    # issue #36: the delay objective bounds queueing delay, and the advice states its caveats
    out = " ".join(r.stdout.split())
    assert "queueing delay = the link's mean sojourn time" in out
    assert "mean queueing delay ≤ 14 ms (propagation excluded)" in out
    assert "BDP/sqrt(N) is outside its assumptions here" in out and "N = 2" in out
    # 10p: 5 ms of queueing (within 14 ms) though its one-way delay is 18 ms; 11 % loss there
    assert "→ 10p" in out, out
    assert "At the recommended size the flows lose" in out and "above 1%" in out, out


def test_advise_delay_objective_excludes_propagation():
    """A 14 ms bound on a path whose one-way delay alone is 12 ms: the queueing delay, not the
    one-way delay, decides."""
    from bufferlab.experiments.advise import Simulated, recommend

    t = pd.DataFrame(
        {
            "size": ["a", "b"],
            "bytes": [1e3, 1e4],
            "goodput_bps_mean": [5e6, 9e6],
            "delay_s_mean": [0.015, 0.025],  # propagation 12 ms + queueing
            "queue_delay_s_mean": [0.003, 0.013],
            "power_mean": [1.0, 1.0],
        }
    )
    assert recommend(Simulated(["a", "b"], t, 3), "delay", delay_bound_s=0.014) == 1


def test_recommend_objectives():
    from bufferlab.experiments.advise import Simulated, recommend

    t = pd.DataFrame(
        {
            "size": ["a", "b", "c"],
            "bytes": [1e3, 1e4, 1e5],
            "goodput_bps_mean": [5e6, 9.5e6, 10e6],
            "delay_s_mean": [0.03, 0.08, 0.2],
            # the delay objective bounds queueing delay (propagation excluded)
            "queue_delay_s_mean": [0.01, 0.03, 0.15],
            "power_mean": [5e8, 9.5e6 / 0.03, 10e6 / 0.2],
        }
    )
    sim = Simulated(["a", "b", "c"], t, 3)
    assert recommend(sim, "throughput", share=0.9) == 1
    assert recommend(sim, "throughput", share=0.99) == 2
    assert recommend(sim, "delay", delay_bound_s=0.05) == 1
    assert recommend(sim, "delay", delay_bound_s=0.001) == 0
    assert recommend(sim, "power") == 0


# -- the HTML report in a real browser --------------------------------------------------------


def _find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="session")
def chromium() -> str:
    """Debian's chromium, installed with apt-get when missing (needs root, as in CI)."""
    path = _find_chromium()
    if path is None and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=False, timeout=600)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=env, check=False,
                       timeout=1200, capture_output=True)  # fmt: skip
        path = _find_chromium()
    if path is None:
        pytest.skip("chromium is not installed and cannot be installed here (not root?)")
    return path


def _headless(chromium: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-dev-shm-usage", f"--user-data-dir={tmp / 'profile'}",
         *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_report_renders_in_headless_chromium(swept, cli, chromium, tmp_path):
    out = tmp_path / "report.html"
    r = cli("report", "tiny", "--db", "r.duckdb", "-o", str(out), cwd=swept)
    assert r.code == 0, r.stderr
    page = out.read_text()
    # Self-contained: no external resources.
    assert not re.search(r'(src|href)="(https?:)?//', page)
    n_img = page.count("<img ")
    assert n_img >= 4  # two metric figures, the queue and the flows of one run
    # For readers: a table of contents, a summary of what the sweep found (each metric's range
    # over the grid, named points), human metric labels, and the run shown chosen on purpose.
    assert '<a href="#summary">Summary</a>' in page
    summary = page[page.index('<h2 id="summary">') : page.index('<h2 id="grid">')]
    assert summary.count("<li>") == 2 and " from " in summary and "limit=" in summary
    assert "goodput, mean over flows (Mbit/s)" in page
    assert "flows.goodput_bps (" not in page
    assert "The run shown is the first ok replication of point" in page
    assert '<p id="render-check" class="meta" hidden>' in page  # the test hook is not shown

    p = _headless(chromium, tmp_path, "--virtual-time-budget=10000", "--dump-dom",
                  out.as_uri())  # fmt: skip
    dom = p.stdout
    assert p.returncode == 0, p.stderr[-2000:]
    m = re.search(r'id="render-check"[^>]*', dom)
    assert m, dom[-2000:]
    attrs = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', m.group(0)))
    assert attrs["data-images"] == str(n_img)
    assert attrs["data-images-ok"] == str(n_img)  # every <img> decoded: naturalWidth > 0
    assert int(attrs["data-tables"]) >= 4
    assert "Sweep tiny" in dom and "flows.goodput_bps" in dom and "Failed runs" in dom

    shot = tmp_path / "shot.png"
    p = _headless(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1200,3000",
                  out.as_uri())  # fmt: skip
    assert shot.is_file() and shot.stat().st_size > 20_000, p.stderr[-2000:]


def test_axis_labels_are_short_and_unique():
    from bufferlab.experiments.figures import axis_labels, numeric_value

    axes = ["links.bottleneck.queue.limit", "links.bottleneck.rate", "flows.0.app.rate",
            "flows.1.app.rate"]  # fmt: skip
    assert axis_labels(axes) == {
        "links.bottleneck.queue.limit": "limit",
        "links.bottleneck.rate": "bottleneck.rate",
        "flows.0.app.rate": "0.app.rate",
        "flows.1.app.rate": "1.app.rate",
    }
    assert numeric_value("50KB") == (50000.0, "bytes")
    assert numeric_value("25p") == (25.0, "packets")
    assert numeric_value("0.5MB/s") == (4e6, "bit/s")
    assert numeric_value("red") is None


TCP_BASE = dumbbell_toml(
    name="tcp-tiny",
    duration="2s",
    pairs=2,
    bottleneck=("2Mbps", "10ms"),
    queue={"kind": "red", "limit": "20KB"},
    flows=[{"name": "t", "count": 2, "src": "s{i}", "dst": "d{i}", "app": {"kind": "bulk"}}],
    monitor={"queue_interval": "10ms", "cwnd_interval": "50ms"},
)


def test_tcp_series_are_stored_and_plotted(tmp_path, cli):
    body = (
        "[sweep]\nname = 'tcp'\nbase = 'base.toml'\nreplications = 1\n"
        "[grid]\n'links.bottleneck.queue.limit' = ['10KB', '30KB']\n"
    )
    write_sweep(tmp_path, body, base=TCP_BASE)
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "-q", cwd=tmp_path)
    assert r.code == 0, r.stderr
    con = duckdb.connect(str(tmp_path / "r.duckdb"), read_only=True)
    kinds = con.execute("SELECT kind, count(*) FROM series GROUP BY kind ORDER BY kind").fetchall()
    assert kinds == [("queues", 2), ("tcp", 2)]
    path = con.execute("SELECT path FROM series WHERE kind = 'tcp' LIMIT 1").fetchone()[0]
    tcp = pd.read_parquet(tmp_path / path)
    assert {"flow", "t_s", "cwnd_bytes"} <= set(tcp.columns) and set(tcp["flow"]) == {"t0", "t1"}
    assert con.execute("SELECT count(*) FROM queues WHERE discipline = 'red'").fetchone()[0] >= 2
    con.close()
    out = tmp_path / "cwnd.png"
    r = cli("plot", "tcp", "--db", "r.duckdb", "-k", "cwnd", "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"
    r = cli("plot", "tcp", "--db", "r.duckdb", "-k", "flow-series", "-o", str(out), cwd=tmp_path)
    assert r.code == 2 and "set [monitor] flow_interval" in r.stderr, r.stderr


def test_flow_series_are_stored_and_plotted(tmp_path, cli):
    base = TCP_BASE + "flow_interval = '500ms'\n"  # the [monitor] table is last
    body = (
        "[sweep]\nname = 'fs'\nbase = 'base.toml'\nreplications = 1\n"
        "[grid]\n'links.bottleneck.queue.limit' = ['10KB']\n"
    )
    write_sweep(tmp_path, body, base=base)
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "-q", cwd=tmp_path)
    assert r.code == 0, r.stderr
    con = duckdb.connect(str(tmp_path / "r.duckdb"), read_only=True)
    path = con.execute("SELECT path FROM series WHERE kind = 'flows'").fetchone()[0]
    con.close()
    fs = pd.read_parquet(tmp_path / path)
    assert set(fs["flow"]) == {"t0", "t1"} and len(fs) == 2 * 4  # 2 s in 0.5 s intervals
    assert {"tx_packets", "lost_packets", "throughput_bps"} <= set(fs.columns)
    out = tmp_path / "fs.png"
    r = cli("plot", "fs", "--db", "r.duckdb", "-k", "flow-series", "-o", str(out), cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"


def _deterministic_sweep(tmp: Path, start: dict | None) -> None:
    flow = {"name": "t", "count": 2, "src": "s{i}", "dst": "d{i}", "app": {"kind": "bulk"}}
    if start:
        flow["start"] = start
    base = dumbbell_toml(
        name="det",
        duration="2s",
        pairs=2,
        bottleneck=("2Mbps", "10ms"),
        queue={"kind": "droptail", "limit": "10p"},
        flows=[flow],
    )
    body = """[sweep]
name = "det"
base = "base.toml"
replications = 3
metrics = ["flows.goodput_bps"]
[grid]
"links.bottleneck.queue.limit" = ["10p"]
"""
    write_sweep(tmp, body, base=base)


def test_identical_replications_are_said_and_random_starts_make_them_differ(tmp_path, cli):
    """A deterministic TCP scenario gives identical replications: the sweep and the report say
    so (and the interval is an exact 0, not 7e-16); random start times make them differ."""
    _deterministic_sweep(tmp_path, None)
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "--quiet", cwd=tmp_path)
    assert r.code == 0, r.stderr
    # the note names the cause: fixed start times, not "the interval says nothing"
    assert (
        "note: identical replications at 1 of 1 (point, metric) pairs (flows.goodput_bps): "
        "nothing random in the scenario changes this value: randomise the flows' start times"
    ) in r.stderr, r.stderr
    agg = aggregate(tmp_path / "r.duckdb", "det")
    assert agg["std"].tolist() == [0.0] and agg["ci_half"].tolist() == [0.0]
    r = cli("report", "det", "--db", "r.duckdb", "-o", "rep.html", cwd=tmp_path)
    assert r.code == 0, r.stderr
    html = (tmp_path / "rep.html").read_text()
    assert "Identical replications at 1 of 1" in html and "randomise the flows" in html
    r = cli("results", "det", "--db", "r.duckdb", cwd=tmp_path)
    assert "± 0" in r.stdout and "nothing random in the scenario" in r.stdout, r.stdout

    other = tmp_path / "random"
    other.mkdir()
    _deterministic_sweep(other, {"kind": "uniform", "min": "0s", "max": "0.5s"})
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "--quiet", cwd=other)
    assert r.code == 0, r.stderr
    assert "identical values" not in r.stderr
    assert aggregate(other / "r.duckdb", "det")["std"].iloc[0] > 0


def test_a_sweep_compares_queue_disciplines_by_their_kind(tmp_path, cli):
    """An axis over `...queue.kind` switches disciplines even when the base queue has fields
    of its own kind (DropTail's `flavour`): each kind keeps the fields it has. The figure shows
    each discipline as a labelled point with its interval, not a line through categories."""
    from bufferlab.experiments.figures import metric_figure, metric_label

    base = dumbbell_toml(
        name="kinds",
        duration="3s",
        pairs=2,
        bottleneck=("2Mbps", "10ms"),
        queue={"kind": "droptail", "limit": "20p", "flavour": "ns2"},
        flows=[{"name": "t", "count": 2, "src": "s{i}", "dst": "d{i}", "app": {"kind": "bulk"}}],
    )
    body = """[sweep]
name = "kinds"
base = "base.toml"
metrics = ["flows[t0].delay_mean_s"]
[grid]
"links.bottleneck.queue.kind" = ["droptail", "red", "codel", "pi"]
"""
    write_sweep(tmp_path, body, base=base)
    r = cli("sweep", "sweep.toml", "--db", "r.duckdb", "--quiet", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "kinds: 4 ok, 0 failed" in r.stderr, r.stderr
    agg = aggregate(tmp_path / "r.duckdb", "kinds")
    fig = metric_figure(agg, "flows[t0].delay_mean_s")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["droptail", "red", "codel", "pi"]
    assert ax.get_xlabel() == "queue discipline of bottleneck"
    assert ax.get_ylabel() == "mean one-way delay of t0 (ms)"
    assert all(line.get_linestyle() == "None" for line in ax.lines if len(line.get_xdata()) > 1)
    assert metric_label("flows.goodput_bps:sum") == ("goodput, sum over flows (Mbit/s)", 1e6)


def test_advise_converts_with_the_packet_size_the_core_resolves():
    """examples/dumbbell_tcp.toml: ns-2 preset, 1000-byte segments + 40 bytes of headers. The
    advisor once assumed 1500-byte packets whatever the preset (BDP 8.0 packets instead of
    11.5)."""
    from bufferlab.experiments.advise import bottleneck_rules

    r = bottleneck_rules(ROOT / "examples" / "dumbbell_tcp.toml")
    assert r.packet_bytes == 1040
    rtt = 2 * (0.002 + 0.020 + 0.002)  # access 2 ms, bottleneck 20 ms, access 2 ms
    assert abs(r.bdp_bytes - 2e6 * rtt / 8) < 1
    assert round(r.bdp_bytes / r.packet_bytes, 1) == 11.5


def test_results_tables_keep_every_value_whole_at_80_columns(swept):
    """The runs view of `bufferlab results` at 80 columns: split into parts that repeat the run
    key, no value cut or folded."""
    import io

    from rich.console import Console

    from bufferlab.cli.experiments import _print_df
    from bufferlab.experiments.store import Store

    store = Store(swept / "r.duckdb", read_only=True)
    runs = store.runs("tiny")
    store.close()
    buf = io.StringIO()
    _print_df(Console(file=buf, width=80, color_system=None), runs, "tiny: runs")
    out = buf.getvalue()
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "…" not in out
    for key in runs["run_key"]:
        assert out.count(key) >= 2  # whole, and repeated in each part


def test_advise_explains_an_interval_of_zero():
    """No "± 0" without its reason: identical replications are marked † and explained."""
    from bufferlab.experiments.advise import Simulated, bottleneck_rules, caveats, results_table

    r = bottleneck_rules(ROOT / "examples" / "dumbbell_tcp.toml")
    row = {"size": "12480B", "packets": 12.0, "bytes": 12480.0}
    for key, mean in (("goodput_bps", 1.9e6), ("queue_delay_s", 0.026), ("delay_s", 0.056),
                      ("loss", 0.036), ("utilisation", 0.969), ("power", 3.3e7)):  # fmt: skip
        row |= {f"{key}_mean": mean, f"{key}_ci": 0.0, f"{key}_same": True}
    sim = Simulated(["12480B"], pd.DataFrame([row]), 3)
    _, _, rows = results_table(sim, 0, "throughput")
    assert "1.9 ± 0 †" in rows[0]
    notes = " ".join(caveats(0, r, sim))
    # fixed start times in that example: the cause is the scenario, and the fix is named
    assert "† identical replications (goodput at 12480B" in notes
    assert "randomise the flows' start times" in notes
    assert "lose 3.6 % of their packets" in notes


def test_advise_sizes_in_bdp_and_time(tmp_path):
    """--sizes takes the units the field uses: "0.5BDP" of the rules' BDP, "12ms" at the rate."""
    from bufferlab.experiments.advise import bottleneck_rules, simulate

    p = tmp_path / "base.toml"
    p.write_text(BASE)
    r = bottleneck_rules(p)  # 10 Mbit/s, RTT 24 ms: BDP 30 000 B
    sim = simulate(r, sizes=["0.5BDP", "12ms"], replications=1, jobs=1)
    assert sim.table["bytes"].tolist() == pytest.approx([15000.0, 15000.0])
    assert sim.table["goodput_bps_mean"].tolist()[0] == pytest.approx(
        sim.table["goodput_bps_mean"].tolist()[1]
    )
