"""Sweeps: expansion and seeds, the DuckDB store, failures, resume after SIGKILL, Dask, and the
confidence intervals."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from bufferlab.experiments.execute import run_sweep
from bufferlab.experiments.spec import (
    SweepError,
    load_sweep,
    parse_sweep,
    replication_seed,
    run_key,
    splitmix64,
)
from bufferlab.experiments.stats import aggregate, summarize, t_quantile
from bufferlab.experiments.store import Store
from conftest import ROOT, dumbbell_toml

# Two Poisson flows over a 1-pair dumbbell: 1 simulated second, a few ms of wall time per run.
BASE = dumbbell_toml(
    name="tiny",
    duration="1s",
    seed=1,
    pairs=2,
    queue={"kind": "droptail", "limit": "20p"},
    flows=[
        {
            "name": n,
            "src": f"s{i}",
            "dst": f"d{i}",
            "app": {"kind": "poisson", "rate": r, "packet_size": "1000B"},
        }
        for i, (n, r) in enumerate([("a", "6Mbps"), ("b", "5Mbps")])
    ],
    monitor={"queue_interval": "10ms"},
)


def write_sweep(tmp: Path, body: str, base: str = BASE) -> Path:
    (tmp / "base.toml").write_text(base)
    p = tmp / "sweep.toml"
    p.write_text(body)
    return p


SWEEP = """\
[sweep]
name = "tiny"
base = "base.toml"
replications = 3
root_seed = 11
metrics = ["flows.goodput_bps", "queues[bottleneck].avg_packets"]

[grid]
"links.bottleneck.queue.limit" = ["5KB", "20KB"]

[[zip]]
"links.bottleneck.rate" = ["5Mbps", "10Mbps"]
"links.bottleneck.delay" = ["5ms", "20ms"]
"""


# -- seeds and expansion ----------------------------------------------------------------------


def test_splitmix64_reference_values():
    # First outputs of SplitMix64 seeded with 0 (the generator adds the golden gamma first).
    assert splitmix64(0) == 0xE220A8397B1DCDAF
    assert splitmix64(0x9E3779B97F4A7C15) == 0x6E789E6AA1B965F4


def test_replication_seed_formula_and_independence(tmp_path):
    assert replication_seed(11, 0) == splitmix64(11 ^ splitmix64(1))
    assert replication_seed(11, 4) == splitmix64(11 ^ splitmix64(5))
    assert all(0 <= replication_seed(2**64 - 1, r) < 2**64 for r in range(10))
    sw = load_sweep(write_sweep(tmp_path, SWEEP))
    runs = sw.runs()
    assert len(runs) == 2 * 2 * 3
    # The seed depends on the replication only, never on the grid point.
    for r in runs:
        assert r.seed == replication_seed(11, r.replication)
    assert len({r.key for r in runs}) == len(runs)
    # Keys do not depend on the order the axes are written in.
    assert run_key("s", {"a": 1, "b": 2}, 0) == run_key("s", {"b": 2, "a": 1}, 0)


def test_grid_times_zip_points(tmp_path):
    sw = load_sweep(write_sweep(tmp_path, SWEEP))
    pts = [p.params for p in sw.points()]
    assert pts == [
        {"links.bottleneck.queue.limit": "5KB", "links.bottleneck.rate": "5Mbps",
         "links.bottleneck.delay": "5ms"},
        {"links.bottleneck.queue.limit": "5KB", "links.bottleneck.rate": "10Mbps",
         "links.bottleneck.delay": "20ms"},
        {"links.bottleneck.queue.limit": "20KB", "links.bottleneck.rate": "5Mbps",
         "links.bottleneck.delay": "5ms"},
        {"links.bottleneck.queue.limit": "20KB", "links.bottleneck.rate": "10Mbps",
         "links.bottleneck.delay": "20ms"},
    ]  # fmt: skip


def test_inline_base_table_and_dotted_keys():
    text = """
[sweep]
name = "inline"
replications = 1

[base]
name = "inline-base"
duration = "1s"
[base.topology]
kind = "dumbbell"
pairs = 1
[base.links.access]
rate = "100Mbps"
delay = "1ms"
[base.links.bottleneck]
rate = "10Mbps"
delay = "10ms"
[[base.flows]]
name = "c"
src = "s0"
dst = "d0"
app = { kind = "cbr", rate = "1Mbps" }

[grid]
links.bottleneck.rate = ["5Mbps", "10Mbps"]
"""
    sw = parse_sweep(text, "inline.toml")
    assert sw.axes == ["links.bottleneck.rate"]
    store = Store(":memory:")
    out = run_sweep(sw, db=store, jobs=1)
    assert (out.done, out.failed) == (2, 0)
    store.close()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ("[sweep]\nbase='base.toml'\n", "sweep.name"),
        ("[sweep]\nname='x'\n", "sweep.base"),
        ("[sweep]\nname='x'\nbase='nope.toml'\n", "sweep.base"),
        ("[sweep]\nname='x'\nbase='base.toml'\nreplications=0\n", "sweep.replications"),
        ("[sweep]\nname='x'\nbase='base.toml'\nreplicates=3\n", "sweep.replicates"),
        ("[sweep]\nname='x'\nbase='base.toml'\nmetrics=['goodput']\n", "sweep.metrics[0]"),
        ("[sweep]\nname='x'\nbase='base.toml'\n[grid]\na = []\n", "grid.a"),
        ("[sweep]\nname='x'\nbase='base.toml'\n[[zip]]\na = [1, 2]\nb = [1]\n", "zip[0]"),
        ("[sweep]\nname='x'\nbase='base.toml'\n[grids]\n", "grids"),
    ],
)
def test_bad_sweep_file_names_the_field(tmp_path, body, field):
    p = write_sweep(tmp_path, body)
    with pytest.raises(SweepError) as e:
        load_sweep(p)
    assert f": {field}: " in str(e.value)


# -- the store, failures ----------------------------------------------------------------------


def test_failing_point_is_recorded_and_the_others_finish(tmp_path):
    # A 10-byte buffer is smaller than a packet: the core refuses that grid point.
    body = SWEEP.replace('["5KB", "20KB"]', '["5KB", "10B", "20KB"]')
    db = tmp_path / "r.duckdb"
    out = run_sweep(write_sweep(tmp_path, body), db=db, jobs=2)
    assert (out.total, out.done, out.failed) == (18, 12, 6)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT json_extract_string(params, '$.\"links.bottleneck.queue.limit\"'), status, "
        "error, error_kind FROM runs ORDER BY point_index, replication"
    ).fetchall()
    failed = [r for r in rows if r[1] == "failed"]
    assert len(failed) == 6 and {r[0] for r in failed} == {"10B"}
    assert all("queue.limit" in r[2] and r[3] == "ScenarioError" for r in failed)
    assert all(r[1] == "ok" for r in rows if r[0] != "10B")
    # Metric rows exist for the ok runs only; every ok run has its queue series.
    assert con.execute("SELECT count(DISTINCT run_key) FROM flows").fetchone()[0] == 12
    paths = con.execute("SELECT path FROM series WHERE kind = 'queues'").fetchall()
    assert len(paths) == 12 and all((tmp_path / p[0]).is_file() for p in paths)
    con.close()
    # A rerun retries the failed runs only (they fail again) and keeps one row per key.
    out2 = run_sweep(write_sweep(tmp_path, body), db=db, jobs=2)
    assert (out2.skipped, out2.done, out2.failed) == (12, 0, 6)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT run_key) FROM runs").fetchone() == (18, 18)
    con.close()


def test_results_frames_and_series(tmp_path):
    db = tmp_path / "r.duckdb"
    run_sweep(write_sweep(tmp_path, SWEEP), db=db, jobs=2)
    with Store(db, read_only=True) as s:
        runs = s.runs("tiny")
        assert list(runs.columns[:5]) == [
            "run_key",
            "sweep_id",
            "point_index",
            "links.bottleneck.queue.limit",
            "links.bottleneck.rate",
        ]
        flows = s.runs("tiny", "flows")
        assert len(flows) == 12 * 2 and set(flows["name"]) == {"a", "b"}
        assert "loss_ratio" in flows.columns
        series = s.series(runs["run_key"][0])
        assert {"t_s", "packets", "link"} <= set(series.columns)
        assert len(series) > 50
        with pytest.raises(Exception, match="no sweep named 'nope'"):
            s.sweep_info("nope")


# -- resume after SIGKILL ---------------------------------------------------------------------


def test_sigkill_half_way_then_rerun_gives_every_run_exactly_once(tmp_path):
    body = SWEEP.replace("replications = 3", "replications = 8").replace(
        'duration = "1s"', 'duration = "1s"'
    )
    sweep = write_sweep(tmp_path, body, base=BASE.replace('duration = "1s"', 'duration = "3s"'))
    db = tmp_path / "r.duckdb"
    series_dir = tmp_path / "r.series"
    env = dict(os.environ, COLUMNS="200")
    cmd = [sys.executable, "-m", "bufferlab", "sweep", str(sweep), "--db", str(db), "-j", "1",
           "-q"]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Each run writes its series file just before its transaction commits: wait for a few.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if len(list(series_dir.glob("*/*.parquet"))) >= 5:
            break
        time.sleep(0.02)
    assert p.poll() is None, "the sweep finished before it could be killed; make it longer"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL

    con = duckdb.connect(str(db), read_only=True)
    before = con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
    con.close()
    assert 1 <= before < 32

    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"resuming: {before} of 32 runs already in" in again.stderr
    assert f"{32 - before} ok, 0 failed, {before} already done" in again.stderr

    con = duckdb.connect(str(db), read_only=True)
    assert con.execute(
        "SELECT count(*), count(DISTINCT run_key), count(*) FILTER (WHERE status = 'ok') FROM runs"
    ).fetchone() == (32, 32, 32)
    # Metric rows: exactly one set per run (2 flows each), none left over from the killed run.
    assert con.execute("SELECT count(*), count(DISTINCT run_key) FROM flows").fetchone() == (64, 32)
    assert con.execute("SELECT count(*), count(DISTINCT run_key) FROM series").fetchone() == (
        32,
        32,
    )
    con.close()

    # And the numbers are those of an uninterrupted sweep.
    ref = tmp_path / "ref.duckdb"
    run_sweep(sweep, db=ref, jobs=2)
    assert _numbers(db) == _numbers(ref)


def _numbers(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT f.run_key, f.name, f.tx_packets, f.rx_packets, f.lost_packets, f.goodput_bps, "
        "f.delay_mean_s, r.seed, r.events FROM flows f JOIN runs r USING (run_key) "
        "ORDER BY f.run_key, f.name"
    ).fetchall()
    con.close()
    return rows


def _tables(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    out = {
        t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
        for t in ("flows", "queues", "links")
    }
    con.close()
    return out


def test_arrow_inserts_equal_the_parameter_inserts(tmp_path, monkeypatch):
    """Report rows go to DuckDB as one Arrow table; the slow path (one statement of bound
    parameters, taken when a column's values do not fit one Arrow type) stores the same."""
    sweep = write_sweep(tmp_path, SWEEP)
    run_sweep(sweep, db=tmp_path / "arrow.duckdb", jobs=1)
    monkeypatch.setattr(Store, "_insert_arrow", lambda *a, **k: False)
    run_sweep(sweep, db=tmp_path / "params.duckdb", jobs=1)
    monkeypatch.undo()
    arrow = _tables(tmp_path / "arrow.duckdb")
    assert all(arrow.values()) and arrow == _tables(tmp_path / "params.duckdb")
    # An integer beyond 64 bits has no Arrow type: that table's rows take the slow path.
    with Store(tmp_path / "huge.duckdb") as st:
        st._insert_rows("flows", "k", 1, [{"name": "a", "x": 2**64}, {"name": "b", "x": 3}])
        rows = st.con.execute("SELECT name, x FROM flows ORDER BY name").fetchall()
    assert rows == [("a", 2**64), ("b", 3)]


def _series(db: Path) -> dict[str, list]:
    """Every run's queue series, as plain rows, by run key."""
    with Store(db) as st:
        keys = [
            k for (k,) in st.con.execute("SELECT run_key FROM runs ORDER BY run_key").fetchall()
        ]
        return {k: st.series(k).to_dict("records") for k in keys}


# -- threads, processes and Dask give the same numbers ---------------------------------------


def test_executors_agree(tmp_path):
    sweep = write_sweep(tmp_path, SWEEP)
    run_sweep(sweep, db=tmp_path / "t1.duckdb", jobs=1, executor="thread")
    run_sweep(sweep, db=tmp_path / "t2.duckdb", jobs=2, executor="thread")
    run_sweep(sweep, db=tmp_path / "p2.duckdb", jobs=2, executor="process")
    run_sweep(sweep, db=tmp_path / "p1.duckdb", jobs=1, executor="process")
    run_sweep(sweep, db=tmp_path / "auto.duckdb", jobs=2)  # the default: processes (24 runs)
    ref = _numbers(tmp_path / "t1.duckdb")
    assert len(ref) == 24
    assert _numbers(tmp_path / "t2.duckdb") == ref
    assert _numbers(tmp_path / "p2.duckdb") == ref
    assert _numbers(tmp_path / "p1.duckdb") == ref
    assert _numbers(tmp_path / "auto.duckdb") == ref
    assert _tables(tmp_path / "auto.duckdb") == _tables(tmp_path / "t1.duckdb")
    # Workers stage the series files and the store renames them: none is left half-named.
    assert not list(tmp_path.glob("*.series/*/*.tmp"))
    assert _series(tmp_path / "p2.duckdb") == _series(tmp_path / "t1.duckdb")


def test_the_default_executor_is_processes_for_more_than_one_worker_and_a_few_runs():
    from bufferlab.experiments.execute import local_executor

    assert local_executor("auto", 2, 9) == "process"
    assert local_executor("auto", 2, 8) == "thread"  # a few runs: no processes to start
    assert local_executor("auto", 1, 100) == "thread"
    assert local_executor("thread", 8, 100) == "thread"
    assert local_executor("process", 1, 1) == "process"
    with pytest.raises(ValueError, match="auto, thread, process"):
        local_executor("fibers", 2, 100)
    with pytest.raises(ValueError, match="executor"):
        run_sweep(ROOT / "examples" / "sweep_red_table3.toml", db=":memory:", executor="x")


@pytest.mark.parametrize("executor", ["auto", "thread"])
def test_ctrl_c_stops_a_sweep_with_one_line_and_keeps_every_finished_run(tmp_path, executor):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) on a sweep in worker
    processes (the default with 2 workers): "interrupted", exit 130, no worker's traceback;
    every run recorded is a whole run, and the rerun completes the sweep with the numbers of an
    uninterrupted one."""
    body = SWEEP.replace("replications = 3", "replications = 8")
    sweep = write_sweep(tmp_path, body, base=BASE.replace('duration = "1s"', 'duration = "20s"'))
    db = tmp_path / "r.duckdb"
    env = dict(os.environ, COLUMNS="200")
    env.pop("BUFFERLAB_DEBUG", None)
    cmd = [sys.executable, "-m", "bufferlab", "sweep", str(sweep), "--db", str(db), "-j", "2",
           "-q", "--executor", executor]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        if len(list((tmp_path / "r.series").glob("*/*.parquet"))) >= 3:
            break
        time.sleep(0.02)
    assert p.poll() is None, "the sweep finished before it could be interrupted; make it longer"
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted", err

    con = duckdb.connect(str(db), read_only=True)
    recorded = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE status = 'ok' AND sim_time_s = 20.0) FROM runs"
    ).fetchone()
    con.close()
    assert 1 <= recorded[0] < 32 and recorded[0] == recorded[1], recorded

    again = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{32 - recorded[0]} ok, 0 failed, {recorded[0]} already done" in again.stderr
    ref = tmp_path / "ref.duckdb"
    run_sweep(sweep, db=ref, jobs=1, executor="thread")
    assert _numbers(db) == _numbers(ref)


def test_a_run_cut_short_by_ctrl_c_is_a_failed_run(monkeypatch):
    """A report marked partial without a limit (Ctrl-C reached the worker's process) is not a
    result: recorded as failed, so that a resume runs it again."""
    import bufferlab._core as core
    from bufferlab.experiments.execute import execute_run

    text = (ROOT / "examples" / "dumbbell_udp.toml").read_text()
    whole = execute_run(text, "x.toml", ["duration=3s"], 1)
    assert whole["ok"], whole
    real = core.run
    monkeypatch.setattr(
        core, "run", lambda *a, **k: real(*a, **k).replace('"partial":false', '"partial":true')
    )
    cut = execute_run(text, "x.toml", ["duration=3s"], 1)
    assert not cut["ok"] and cut["error_kind"] == "interrupted", cut


def test_dask_local_cluster_gives_the_same_numbers(tmp_path):
    distributed = pytest.importorskip("distributed")
    sweep = write_sweep(tmp_path, SWEEP)
    run_sweep(sweep, db=tmp_path / "local.duckdb", jobs=2)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            protocol="tcp://",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        out = run_sweep(sweep, db=tmp_path / "dask.duckdb", cluster=client)
        assert (out.done, out.failed) == (12, 0)
        # The same through the scheduler's address, as `--cluster tcp://...` does.
        out = run_sweep(sweep, db=tmp_path / "dask2.duckdb", cluster=cluster.scheduler_address)
        assert out.done == 12
        # And from the command line, whose process only submits and records.
        p = subprocess.run(
            [sys.executable, "-m", "bufferlab", "sweep", str(sweep), "--db", "dask3.duckdb",
             "--cluster", cluster.scheduler_address, "-q"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr
        assert f"on {cluster.scheduler_address}" in p.stderr and "12 ok, 0 failed" in p.stderr
    ref = _numbers(tmp_path / "local.duckdb")
    assert _numbers(tmp_path / "dask.duckdb") == ref
    assert _numbers(tmp_path / "dask2.duckdb") == ref
    assert _numbers(tmp_path / "dask3.duckdb") == ref
    # Dask workers return whole reports and the store writes the series itself: same files.
    assert _series(tmp_path / "dask.duckdb") == _series(tmp_path / "local.duckdb")


# -- aggregation ------------------------------------------------------------------------------


def test_t_quantiles_match_the_tables():
    # Two-sided 95% critical values of Student's t (any statistics table).
    table = {1: 12.7062047, 2: 4.3026527, 3: 3.1824463, 4: 2.7764451, 9: 2.2621572,
             29: 2.0452296, 120: 1.9799304}  # fmt: skip
    for df, t in table.items():
        assert t_quantile(0.975, df) == pytest.approx(t, abs=2e-7)
    assert t_quantile(0.995, 5) == pytest.approx(4.0321430, abs=2e-7)
    assert t_quantile(0.025, 3) == pytest.approx(-3.1824463, abs=2e-7)


def test_confidence_intervals_match_a_hand_computation(tmp_path):
    db = tmp_path / "r.duckdb"
    run_sweep(write_sweep(tmp_path, SWEEP), db=db, jobs=2)
    agg = aggregate(db, "tiny", "flows[a].goodput_bps")
    assert list(agg["n"]) == [3, 3, 3, 3]
    con = duckdb.connect(str(db), read_only=True)
    for _, row in agg.iterrows():
        xs = [v for (v,) in con.execute(
            "SELECT f.goodput_bps FROM flows f JOIN runs r USING (run_key) "
            "WHERE r.point_index = ? AND f.name = 'a' ORDER BY r.replication",
            [int(row["point"])],
        ).fetchall()]  # fmt: skip
        assert len(xs) == 3
        mean = (xs[0] + xs[1] + xs[2]) / 3
        std = math.sqrt(sum((x - mean) ** 2 for x in xs) / 2)
        half = 4.302652729911275 * std / math.sqrt(3)  # t(0.975, 2 degrees of freedom)
        assert row["mean"] == pytest.approx(mean, rel=1e-12)
        assert row["std"] == pytest.approx(std, rel=1e-9)
        assert row["ci_low"] == pytest.approx(mean - half, rel=1e-9)
        assert row["ci_high"] == pytest.approx(mean + half, rel=1e-9)
    con.close()
    # Default reducer of flows is the mean over the run's flows; :sum adds them.
    both = aggregate(db, "tiny", ["flows.goodput_bps", "flows.goodput_bps:sum"])
    m = both.pivot(index="point", columns="metric", values="mean")
    assert list(m["flows.goodput_bps:sum"]) == pytest.approx(list(2 * m["flows.goodput_bps"]))


def test_summarize_edge_cases():
    s = summarize([5.0])
    assert s["n"] == 1 and s["mean"] == 5.0 and math.isnan(s["ci_half"])
    assert summarize([])["n"] == 0
    s = summarize([1.0, 2.0, 3.0, 4.0], confidence=0.99)
    assert s["ci_half"] == pytest.approx(5.8409093 * math.sqrt(5 / 3) / 2, rel=1e-6)


def test_example_sweep_expands_and_every_point_validates():
    sw = load_sweep(ROOT / "examples" / "sweep_red_table3.toml")
    pts = sw.points()
    assert len(pts) == 9 * 3
    for p in pts[:3] + pts[-3:]:
        sw.scenario_for(p).validate()


# -- traces of chosen runs ----------------------------------------------------------------------


def test_chosen_runs_write_ns2_traces_and_pcap(tmp_path):
    body = SWEEP.replace(
        'metrics = ["flows.goodput_bps", "queues[bottleneck].avg_packets"]',
        'metrics = ["flows.goodput_bps"]\n'
        'traces = { points = [1], replications = [0, 2], dir = "tr", pcap = true, '
        'links = ["bottleneck"], events = "d" }',
    )
    sw = load_sweep(write_sweep(tmp_path, body))
    out = run_sweep(sw, db=tmp_path / "r.duckdb", jobs=2)
    assert out.failed == 0
    chosen = [r for r in sw.runs() if r.point.index == 1 and r.replication in (0, 2)]
    files = sorted(p.name for p in (tmp_path / "tr").iterdir())
    assert files == sorted([f"{r.key}.tr" for r in chosen] + [f"{r.key}.pcap" for r in chosen])
    for r in chosen:
        lines = (tmp_path / "tr" / f"{r.key}.tr").read_text().splitlines()
        assert lines and all(line.startswith("d ") for line in lines)
        assert (tmp_path / "tr" / f"{r.key}.pcap" / "bottleneck_r0-r1.pcap").is_file()


def test_bad_traces_table_names_the_field(tmp_path):
    body = SWEEP.replace("root_seed = 11", "root_seed = 11\ntraces = { pointz = [1] }")
    with pytest.raises(SweepError, match=r"sweep\.traces\.pointz"):
        load_sweep(write_sweep(tmp_path, body))


KILLER = '''
import os, signal
from collections import deque
from bufferlab import QueueDisc

class Q(QueueDisc):
    """A FIFO whose process dies at once when asked to (as the OOM killer would do it)."""
    def __init__(self, kill=False):
        if kill:
            os.kill(os.getpid(), signal.SIGKILL)
        self.q = deque()
    def enqueue(self, pkt, ctx):
        if len(self.q) >= 50:
            return "drop", "queue_full"
        self.q.append(pkt)
        return "accept"
    def dequeue(self, ctx):
        return self.q.popleft() if self.q else None
'''


def test_a_worker_process_that_dies_fails_its_run_and_no_other(tmp_path):
    """executor="process": the run whose worker is killed is recorded as failed with the
    reason; the runs that shared its pool are run again and recorded, and the sweep goes on."""
    (tmp_path / "killer.py").write_text(KILLER)
    body = (
        "[sweep]\nname = 'killed'\nbase = 'base.toml'\nreplications = 2\n[grid]\n"
        "'links.bottleneck.queue' = [\n"
        "  { kind = 'python', class = 'killer.py:Q', params = { kill = false } },\n"
        "  { kind = 'python', class = 'killer.py:Q', params = { kill = true } },\n"
        "  { kind = 'droptail', limit = '50p' },\n]\n"
    )
    p = write_sweep(tmp_path, body)
    out = run_sweep(
        p,
        db=tmp_path / "r.duckdb",
        jobs=2,
        executor="process",
        run_limits={"allow_python": True},
    )
    assert (out.done, out.failed) == (4, 2), out
    assert out.first_error and "worker process died" in out.first_error
    assert "point 1" in out.first_error


def test_a_full_disk_stops_the_sweep_with_a_clear_error_and_keeps_what_was_recorded(tmp_path):
    """A sweep writing into a 3 MB file system (a tmpfs mounted for the test) fills it: the
    sweep stops with one error line (exit 2), every run committed before is still in the
    database, and after the file system grows the same command resumes to the full sweep."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(disk)],
                             capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        write_sweep(disk, SWEEP.replace("replications = 3", "replications = 60"),
                    base=BASE.replace('duration = "1s"', 'duration = "3s"'))  # fmt: skip
        cmd = [sys.executable, "-m", "bufferlab", "sweep", "sweep.toml", "--db", "r.duckdb",
               "-j", "1", "-q"]  # fmt: skip
        env = dict(os.environ, COLUMNS="200")
        full = subprocess.run(cmd, cwd=disk, env=env, capture_output=True, text=True, timeout=300)
        assert full.returncode == 2, full.stderr
        errors = [line for line in full.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "No space left on device" in errors[0], full.stderr
        assert "runs recorded before are kept" in errors[0]
        con = duckdb.connect(str(disk / "r.duckdb"), read_only=True)
        kept = con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
        con.close()
        assert 0 < kept < 240
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        again = subprocess.run(cmd, cwd=disk, env=env, capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        assert f"resuming: {kept} of 240 runs already in" in again.stderr
        con = duckdb.connect(str(disk / "r.duckdb"), read_only=True)
        assert con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0] == 240
        con.close()
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def test_a_dask_worker_lost_mid_sweep(tmp_path):
    """A run that kills its Dask worker process (each time it is retried) is recorded as failed
    with Dask's reason; the runs of the lost workers are rescheduled and every other run is
    recorded ok."""
    distributed = pytest.importorskip("distributed")
    (tmp_path / "killer.py").write_text(KILLER)
    body = (
        "[sweep]\nname = 'dask-killed'\nbase = 'base.toml'\nreplications = 2\n[grid]\n"
        "'links.bottleneck.queue' = [\n"
        "  { kind = 'python', class = 'killer.py:Q', params = { kill = false } },\n"
        "  { kind = 'python', class = 'killer.py:Q', params = { kill = true } },\n]\n"
    )
    sweep = write_sweep(tmp_path, body)
    import dask

    # One task per worker thread at a time (worker-saturation 1.0): a run waiting on a worker
    # that a killer run takes down would count that death against itself (Dask's
    # allowed-failures) and could fail with it; under load that happened (CI, 2026-11-25).
    with (
        dask.config.set({"distributed.scheduler.worker-saturation": 1.0}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        out = run_sweep(
            sweep, db=tmp_path / "r.duckdb", cluster=client, run_limits={"allow_python": True}
        )
    assert (out.done, out.failed) == (2, 2), out
    assert out.first_error and "point 1" in out.first_error and "Killed" in out.first_error


def test_a_second_sweep_on_a_database_in_use_is_a_clear_error(tmp_path):
    """While one process writes the results database, a sweep from another gets one error line
    (exit 2) saying so, and the database is untouched."""
    sweep = write_sweep(tmp_path, SWEEP)
    db = tmp_path / "r.duckdb"
    run_sweep(sweep, db=db, jobs=1, limit=2)
    holder = duckdb.connect(str(db))  # a writer in this process holds the file's lock
    try:
        p = subprocess.run(
            [sys.executable, "-m", "bufferlab", "sweep", str(sweep), "--db", str(db), "-q"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert p.returncode == 2, p.stderr
        errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "in use by another process" in errors[0], p.stderr
        assert holder.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
    finally:
        holder.close()


def test_sweep_run_limits_fail_the_runs_they_stop(tmp_path, cli):
    """`bufferlab sweep --max-memory` bounds every run: a run past it is recorded as failed
    with the reason, and the summary names it. (The check runs every 131 072 events, so the
    runs here are the 100-flow bench case, not the tiny sweep's.)"""
    body = "[sweep]\nname = 'big'\nbase = 'base.toml'\nreplications = 2\n"
    body += "[grid]\n'links.bottleneck.queue.limit' = ['100p']\n"
    base = (ROOT / "bench" / "scenarios" / "c_ns2.toml").read_text()
    sweep = write_sweep(tmp_path, body, base=base)
    r = cli("sweep", str(sweep), "--db", "r.duckdb", "-q", "--max-memory", "20MB", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "0 ok, 2 failed" in r.stderr and "--max-memory 20 MB" in r.stderr, r.stderr
    bad = cli("sweep", str(sweep), "--db", "r.duckdb", "-q", "--max-wall", "soon", cwd=tmp_path)
    assert bad.code == 2 and '--max-wall: "soon" is not a time' in bad.stderr


def test_runs_recorded_together_equal_runs_recorded_one_by_one(tmp_path):
    """Runs that finish together are written in one transaction with one insert per table
    (group commit); the store then holds exactly what recording them one by one gives, also
    when one of them failed and when one's rows take the slow path (no Arrow type)."""
    from bufferlab.experiments.execute import _args_for, execute_run
    from bufferlab.experiments.store import RowBatch

    sw = load_sweep(write_sweep(tmp_path, SWEEP))
    specs = sw.runs()[:3]
    results = {}
    for db in ("one.duckdb", "group.duckdb"):
        with Store(tmp_path / db) as st:
            sid = st.register_sweep(sw)
            out = []
            for spec in specs:
                out.append(
                    (spec, execute_run(*_args_for(sw, spec), st.series_prefix(sid, spec.key)))
                )
            # the second run's flows as plain rows with a value beyond 64 bits (slow path)
            rows = out[1][1]["rows"]["flows"].arrow.to_pylist()
            rows[0]["huge"] = 2**64
            out[1][1]["rows"]["flows"] = rows
            out[2] = (out[2][0], {"ok": False, "error": "boom", "error_kind": "Test"})
            if db == "one.duckdb":
                for spec, result in out:
                    st.record_run(sid, sw, spec, result)
            else:
                assert isinstance(out[0][1]["rows"]["flows"], RowBatch)
                st.record_runs(sid, sw, out)
            runs = st.con.execute(
                "SELECT run_key, status, error, events FROM runs ORDER BY run_key"
            ).fetchall()
        results[db] = (_tables(tmp_path / db), runs)
    one, group = results["one.duckdb"], results["group.duckdb"]
    assert all(one[0].values()) and one == group
    assert [r[1] for r in one[1]].count("failed") == 1
