"""Studies run through the sweep machinery into the results store: resumable, queryable, and
with the same tables, figures and pages as when they ran on their own executor."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb

from bufferlab import _core
from bufferlab.experiments.store import Store, series_records, series_table
from conftest import ROOT, run_cli


def _without_times(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "runs ok in" not in line)


def test_a_study_resumes_from_its_store_and_says_the_same(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_cli("study", "run", "queues_004", "--tiny", "--out", str(out))
    assert first.code == 0, first.stderr
    db = out / "studies.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    names = [n for (n,) in con.execute("SELECT name FROM sweeps").fetchall()]
    finished = dict(con.execute("SELECT run_key, finished FROM runs").fetchall())
    con.close()
    assert names == ["study:queues_004:tiny:main"]
    assert len(finished) == 8 and all(finished.values())

    # Half the runs lost (an interrupted study): only those run again, and it says the same.
    con = duckdb.connect(str(db))
    lost = sorted(finished)[:4]
    for t in ("runs", "flows", "queues", "links", "series"):
        con.execute(f"DELETE FROM {t} WHERE run_key IN (SELECT unnest(?))", [lost])
    con.close()
    again = run_cli("study", "run", "queues_004", "--tiny", "--out", str(out))
    assert again.code == 0, again.stderr
    assert _without_times(again.stdout) == _without_times(first.stdout)
    con = duckdb.connect(str(db), read_only=True)
    now = dict(con.execute("SELECT run_key, finished FROM runs").fetchall())
    con.close()
    assert set(now) == set(finished)
    assert {k for k in now if now[k] != finished[k]} == set(lost)

    # --fresh runs every run again; `bufferlab results` sees the study's runs like a sweep's.
    fresh = run_cli("study", "run", "queues_004", "--tiny", "--out", str(out), "--fresh")
    assert fresh.code == 0, fresh.stderr
    assert _without_times(fresh.stdout) == _without_times(first.stdout)
    con = duckdb.connect(str(db), read_only=True)
    rerun = dict(con.execute("SELECT run_key, finished FROM runs").fetchall())
    con.close()
    assert set(rerun) == set(finished) and all(rerun[k] > now[k] for k in rerun)
    listed = run_cli("results", "study:queues_004:tiny:main", "--db", str(db))
    assert listed.code == 0, listed.stderr
    assert re.search(r"\b8\b", listed.stdout)


def test_series_come_back_from_the_store_exactly(tmp_path: Path) -> None:
    """The figures and metrics of a study read series from the store's Parquet files: they
    are the report's records exactly (queues with RED's average, TCP cwnd, per-flow series)."""
    text = (ROOT / "examples" / "paper004_red.toml").read_text()
    report = json.loads(
        _core.run(
            text,
            overrides=["duration=20s", "monitor.queue_interval=100ms", "monitor.flow_interval=1s"],
        )
    )
    series = report["series"]
    assert {"queues", "tcp", "flows"} <= set(series)
    for kind, records in series.items():
        table = series_table(records)
        assert table is not None
        back = series_records(table)
        assert back == records, kind
    # and through a store file
    with Store(tmp_path / "s.duckdb") as store:
        import pyarrow.parquet as pq

        pq.write_table(series_table(series["queues"]), tmp_path / "q.parquet")
        assert series_records(pq.read_table(tmp_path / "q.parquet")) == series["queues"]
        assert store.series_records("no-such-run", "queues") == []
