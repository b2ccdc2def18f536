"""The results database: one DuckDB file (default ``results.duckdb``) plus Parquet time series.

Tables (schema in docs/experiments.md):

* ``sweeps`` - one row per sweep (by name): file, grid, points, replications, metrics, base
  scenario text, bufferlab version.
* ``runs`` - one row per run key (hash of sweep name, point parameters, replication): status
  ``ok``/``failed``, error text, seed, wall time, events, the report (without its series).
* ``flows``, ``queues``, ``links`` - the report's rows for each ok run, keyed by ``run_key``.
* ``fct`` - the run's flow completion times by size bucket (``fct.buckets`` of the report:
  one row per bucket, ``all`` last), for runs with finite transfers.
* ``series`` - where each run's time series are: Parquet files under ``<db stem>.series/``
  next to the database (paths relative to the database's directory).

Only one process writes (the sweep's main thread); each run is one transaction, so a sweep
killed at any moment leaves every finished run exactly once and nothing half-written.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from bufferlab.experiments.spec import RunSpec, Sweep

from bufferlab.results import (
    FCT_BUCKET_COLUMNS,
    FLOW_COLUMNS,
    LINK_COLUMNS,
    QUEUE_COLUMNS,
    long_columns,
)

METRIC_TABLES = ("flows", "queues", "links", "fct")


class StoreError(ValueError):
    """The database cannot be used as asked (no such sweep, locked, not a bufferlab store)."""


# The databases open in this process, newest last: what a DuckDB error that names no file is
# about (damage_message).
_OPEN: list[str] = []
# What DuckDB says of a file it cannot read as a database: damage, not a bug.
_DAMAGE = (
    "corrupt database file",
    "checksum",
    "could not read enough bytes",
    "not a valid duckdb database",
    "could not read from file",
    "failed to read",
    "invalid block",
    "serialization error",
)


def _recover_hint(path: str) -> str:
    """What is left beside a damaged database, and how to get the rest back."""
    p = Path(path)
    series = p.with_name(p.stem + ".series")
    kept = (
        f"the runs' time series are kept apart in {series} (Parquet files, one per run and "
        "kind, named by run key); "
        if series.is_dir()
        else ""
    )
    return (
        f"{kept}move {p.name} away and run the sweep again into a new database: its runs are "
        "recomputed with the same seeds, so with the same results"
    )


def damage_message(e: BaseException) -> str | None:
    """The one line for a DuckDB error that means a results database file is damaged
    (truncated, overwritten, not a database at all), naming the file; None for other errors."""
    import re

    msg = " ".join(str(e).split())
    if not any(d in msg.lower() for d in _DAMAGE):
        return None
    named = re.search(r'file "([^"]+)"', msg)
    path = named.group(1) if named else (_OPEN[-1] if _OPEN else None)
    if path is None:
        return None
    if Path(path).is_dir():
        return f"{path}: is a directory, not a results database; give the database's file (--db)"
    return f"{path}: the results database is damaged (DuckDB: {msg}); {_recover_hint(path)}"


_SCHEMA = [
    "CREATE SEQUENCE IF NOT EXISTS sweep_ids START 1",
    """CREATE TABLE IF NOT EXISTS sweeps (
        id INTEGER PRIMARY KEY DEFAULT nextval('sweep_ids'),
        name VARCHAR NOT NULL UNIQUE,
        file VARCHAR,
        description VARCHAR,
        created TIMESTAMP,
        updated TIMESTAMP,
        grid JSON,
        axes JSON,
        points JSON,
        replications INTEGER,
        root_seed UBIGINT,
        metrics JSON,
        base_source VARCHAR,
        base_scenario VARCHAR,
        bufferlab_version VARCHAR
    )""",
    # No PRIMARY KEY on run_key: a failed run is replaced (delete + insert) in one transaction,
    # which DuckDB's index constraints do not allow; uniqueness is kept by the writer.
    """CREATE TABLE IF NOT EXISTS runs (
        run_key VARCHAR NOT NULL,
        sweep_id INTEGER NOT NULL,
        point_index INTEGER,
        params JSON,
        replication INTEGER,
        seed UBIGINT,
        status VARCHAR,
        error VARCHAR,
        error_kind VARCHAR,
        wall_s DOUBLE,
        events BIGINT,
        sim_time_s DOUBLE,
        partial BOOLEAN,
        fairness_jain DOUBLE,
        fairness_throughput_mean_bps DOUBLE,
        fairness_throughput_std_bps DOUBLE,
        bufferlab_version VARCHAR,
        scenario_hash VARCHAR,
        finished TIMESTAMP,
        report JSON
    )""",
    """CREATE TABLE IF NOT EXISTS series (
        run_key VARCHAR NOT NULL,
        sweep_id INTEGER NOT NULL,
        kind VARCHAR,
        path VARCHAR,
        rows BIGINT
    )""",
]


class Store:
    """A results database. ``Store(":memory:")`` keeps everything in memory (no series files)."""

    def __init__(self, path: str | os.PathLike[str] = "results.duckdb", read_only: bool = False):
        import duckdb

        self.path = str(path)
        self._schema: dict[str, list[str]] | None = None
        self._keys: dict[int, set[str]] = {}
        self.memory = self.path == ":memory:"
        if read_only and not self.memory and not Path(self.path).exists():
            raise StoreError(f"{self.path}: no such results database (run a sweep first)")
        if not read_only and not self.memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self.con: duckdb.DuckDBPyConnection = duckdb.connect(self.path, read_only=read_only)
        except duckdb.Error as e:
            msg = " ".join(str(e).split())
            if "lock" in msg.lower():
                raise StoreError(
                    f"{self.path}: the database is in use by another process (a running sweep?)"
                ) from None
            if Path(self.path).is_dir():
                raise StoreError(
                    f"{self.path}: is a directory, not a results database; give the database's "
                    "file (--db results.duckdb)"
                ) from None
            if "not a valid duckdb database" in msg.lower():
                raise StoreError(
                    f"{self.path}: not a results database: the file is damaged (truncated or "
                    f"overwritten) or is another kind of file; {_recover_hint(self.path)}"
                ) from None
            damaged = damage_message(e)
            if damaged is not None:
                raise StoreError(damaged) from None
            raise StoreError(f"{self.path}: cannot open the results database: {msg}") from None
        _OPEN.append(self.path)
        if not read_only:
            for stmt in _SCHEMA:
                self.con.execute(stmt)
        elif "sweeps" not in self.tables():
            raise StoreError(f"{self.path}: not a bufferlab results database (no sweeps table)")

    # -- housekeeping ------------------------------------------------------------------------

    def close(self) -> None:
        self.con.close()
        with contextlib.suppress(ValueError):
            _OPEN.remove(self.path)

    def __enter__(self) -> Store:
        return self

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Writes runs on one DuckDB thread for the duration of a sweep: each run's inserts are
        a few hundred rows, and DuckDB's parallel plan for them waits for a second thread that
        the sweep's workers keep busy (a 100-flow run's flows insert: 11.9 ms on two threads,
        3.6 ms on one; docs/performance.md, "Sweeps"). The setting is restored after, for
        queries."""
        (before,) = self.con.execute("SELECT current_setting('threads')").fetchone()
        self.con.execute("SET threads = 1")
        try:
            yield
        finally:
            self.con.execute(f"SET threads = {int(before)}")

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tables(self) -> set[str]:
        rows = self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
        return {r[0] for r in rows}

    def columns(self, table: str) -> list[str]:
        rows = self.con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
            "AND table_schema = 'main' ORDER BY ordinal_position",
            [table],
        ).fetchall()
        return [r[0] for r in rows]

    @property
    def series_dir(self) -> Path | None:
        if self.memory:
            return None
        p = Path(self.path)
        return p.with_name(p.stem + ".series")

    # -- sweeps ------------------------------------------------------------------------------

    def register_sweep(self, sweep: Sweep) -> int:
        """Adds the sweep (or updates its description) and returns its id."""
        from bufferlab import __version__

        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        points = [{"index": p.index, "params": p.params} for p in sweep.points()]
        values = [
            sweep.file,
            sweep.description,
            now,
            json.dumps(sweep.grid_json()),
            json.dumps(sweep.axes),
            json.dumps(points),
            sweep.replications,
            sweep.root_seed,
            json.dumps(sweep.metrics),
            sweep.base.source,
            sweep.base.text,
            __version__,
        ]
        row = self.con.execute("SELECT id FROM sweeps WHERE name = ?", [sweep.name]).fetchone()
        if row:
            self.con.execute(
                "UPDATE sweeps SET file = ?, description = ?, updated = ?, grid = ?, axes = ?, "
                "points = ?, replications = ?, root_seed = ?, metrics = ?, base_source = ?, "
                "base_scenario = ?, bufferlab_version = ? WHERE id = ?",
                [*values, row[0]],
            )
            return int(row[0])
        self.con.execute(
            "INSERT INTO sweeps (name, file, description, created, updated, grid, axes, points, "
            "replications, root_seed, metrics, base_source, base_scenario, bufferlab_version) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [sweep.name, *values[:2], now, *values[2:]],
        )
        got = self.con.execute("SELECT id FROM sweeps WHERE name = ?", [sweep.name]).fetchone()
        assert got is not None
        return int(got[0])

    def list_sweeps(self) -> pd.DataFrame:
        return self.con.execute(
            """SELECT s.id, s.name, s.file, s.created, s.replications,
                      json_array_length(s.points) AS points,
                      json_array_length(s.points) * s.replications AS planned,
                      count(r.run_key) FILTER (WHERE r.status = 'ok') AS ok,
                      count(r.run_key) FILTER (WHERE r.status = 'failed') AS failed,
                      s.bufferlab_version
               FROM sweeps s LEFT JOIN runs r ON r.sweep_id = s.id
               GROUP BY ALL ORDER BY s.id"""
        ).df()

    def sweep_info(self, sweep: str | int) -> dict[str, Any]:
        """The sweep's row with JSON fields decoded; by name or id. Raises StoreError."""
        cond = "id = ?" if isinstance(sweep, int) else "name = ?"
        cur = self.con.execute(f"SELECT * FROM sweeps WHERE {cond}", [sweep])
        row = cur.fetchone()
        if row is None:
            names = [r[0] for r in self.con.execute("SELECT name FROM sweeps").fetchall()]
            known = ", ".join(names) if names else "none yet"
            raise StoreError(f"no sweep named {sweep!r} in {self.path} (sweeps: {known})")
        cols = [d[0] for d in cur.description]
        info = dict(zip(cols, row, strict=True))
        for k in ("grid", "axes", "points", "metrics"):
            info[k] = json.loads(info[k]) if info[k] is not None else None
        return info

    def ok_keys(self, sweep_id: int) -> set[str]:
        rows = self.con.execute(
            "SELECT run_key FROM runs WHERE sweep_id = ? AND status = 'ok'", [sweep_id]
        ).fetchall()
        return {r[0] for r in rows}

    # -- runs --------------------------------------------------------------------------------

    def record_run(
        self, sweep_id: int, sweep: Sweep, spec: RunSpec, result: Mapping[str, Any]
    ) -> None:
        """Writes one finished run (ok or failed) in one transaction, replacing an earlier
        attempt with the same key."""
        self.record_runs(sweep_id, sweep, [(spec, result)])

    def record_runs(
        self,
        sweep_id: int,
        sweep: Sweep,
        finished: Sequence[tuple[RunSpec, Mapping[str, Any]]],
    ) -> None:
        """Writes runs that finished together in one transaction (all or none), each replacing
        an earlier attempt with the same key. A sweep hands over every run its workers finished
        while it recorded the last ones: one commit and one insert per table for all of them
        (group commit), so that the recording keeps up when the machine is busy."""
        if not finished:
            return
        prepared = [self._run_row(sweep_id, sweep, spec, result) for spec, result in finished]
        con = self.con
        seen = self._seen_keys(sweep_id)
        con.begin()
        try:
            for spec, row, _, series_files in prepared:
                if spec.key in seen:
                    for t in ("runs", "series", *METRIC_TABLES):
                        if t in ("runs", "series") or t in self._table_columns():
                            con.execute(f"DELETE FROM {t} WHERE run_key = ?", [spec.key])
                con.execute(f"INSERT INTO runs VALUES ({', '.join('?' * len(row))})", row)
                for kind, path, n in series_files:
                    con.execute(
                        "INSERT INTO series VALUES (?, ?, ?, ?, ?)",
                        [spec.key, sweep_id, kind, path, n],
                    )
            for table in dict.fromkeys(t for _, _, tables, _ in prepared for t in tables):
                self._insert_tables(
                    table,
                    sweep_id,
                    [
                        (spec.key, tables[table])
                        for spec, _, tables, _ in prepared
                        if table in tables
                    ],
                )
            con.commit()
        except BaseException as e:
            with contextlib.suppress(Exception):  # the failed commit may have ended it already
                con.rollback()
            self._schema = None  # a rolled-back CREATE or ALTER
            if _is_write_failure(e):
                raise self.write_failed(e) from None
            raise
        seen.update(spec.key for spec, _ in finished)

    def _run_row(
        self, sweep_id: int, sweep: Sweep, spec: RunSpec, result: Mapping[str, Any]
    ) -> tuple[RunSpec, list[Any], dict[str, Any], list[tuple[str, str, int]]]:
        """A finished run's row of the runs table, its metric rows by table and its series
        files (moved to their final names)."""
        from bufferlab import __version__

        sc = sweep.scenario_of(spec)
        scenario_hash = hashlib.sha256(
            json.dumps([sc.text, list(sc.overrides), spec.seed]).encode()
        ).hexdigest()[:16]
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        tables: dict[str, Any] = {}
        series_files: list[tuple[str, str, int]] = []
        report: dict[str, Any] | None = None
        if result.get("ok"):
            # A worker may have parsed the report and written its series already (see
            # bufferlab.experiments.execute.execute_run's ``stage``): then only small rows are
            # left to do here.
            report = result.get("report_head") or json.loads(result["report"])
            tables = result.get("rows") or report_rows(report)
            if "series_staged" in result:
                series_files = self._commit_staged(result["series_staged"])
            else:
                series_files = self._write_series(sweep_id, spec.key, report.get("series") or {})
        fair = (report or {}).get("fairness") or {}
        slim = result.get("report_text")
        if report is not None and slim is None:
            slim = json.dumps({k: v for k, v in report.items() if k != "series"})
        row = [
            spec.key,
            sweep_id,
            spec.point.index,
            json.dumps(spec.point.params),
            spec.replication,
            spec.seed,
            "ok" if result.get("ok") else "failed",
            result.get("error"),
            result.get("error_kind"),
            (report or {}).get("wall_s", result.get("wall_s")),
            (report or {}).get("events"),
            (report or {}).get("sim_time_s"),
            (report or {}).get("partial"),
            fair.get("jain"),
            fair.get("throughput_mean_bps"),
            fair.get("throughput_std_bps"),
            (report or {}).get("bufferlab_version", __version__),
            scenario_hash,
            now,
            slim,
        ]
        return spec, row, tables, series_files

    def forget_sweep_runs(self, sweep_id: int) -> int:
        """Deletes every run of a sweep (its rows and series files), so that running it again
        runs everything; the sweep itself stays registered. Returns how many runs."""
        con = self.con
        paths = [
            p
            for (p,) in con.execute(
                "SELECT path FROM series WHERE sweep_id = ?", [sweep_id]
            ).fetchall()
        ]
        n = len(self._seen_keys(sweep_id))
        con.begin()
        try:
            for t in ("series", *[t for t in METRIC_TABLES if t in self._table_columns()], "runs"):
                con.execute(f"DELETE FROM {t} WHERE sweep_id = ?", [sweep_id])
            con.commit()
        except BaseException:
            with contextlib.suppress(Exception):
                con.rollback()
            raise
        self._keys.pop(sweep_id, None)
        base = Path(self.path).resolve().parent
        for p in paths:
            with contextlib.suppress(FileNotFoundError):
                (base / p).unlink()
        return n

    def write_failed(self, e: BaseException) -> StoreError:
        """The error for results that could not be written (a full disk, a file too large):
        what failed, and that every run recorded before stays recorded."""
        msg = " ".join(str(e).split())
        return StoreError(
            f"{self.path}: writing the results failed ({msg}); the runs recorded before are "
            "kept: free some space and run the sweep again, it resumes where it stopped"
        )

    def _table_columns(self) -> dict[str, list[str]]:
        """Columns of the metric tables, cached (the information schema is slow to query)."""
        if self._schema is None:
            self._schema = {t: self.columns(t) for t in METRIC_TABLES if t in self.tables()}
        return self._schema

    def _seen_keys(self, sweep_id: int) -> set[str]:
        """Run keys of the sweep present in the database (any status), cached."""
        if sweep_id not in self._keys:
            rows = self.con.execute(
                "SELECT run_key FROM runs WHERE sweep_id = ?", [sweep_id]
            ).fetchall()
            self._keys[sweep_id] = {r[0] for r in rows}
        return self._keys[sweep_id]

    def _insert_rows(
        self, table: str, key: str, sweep_id: int, rows: list[dict[str, Any]] | RowBatch
    ) -> None:
        """Inserts one run's report rows (or a worker's :class:`RowBatch` of them)."""
        self._insert_tables(table, sweep_id, [(key, rows)])

    def _insert_tables(
        self,
        table: str,
        sweep_id: int,
        runs: Sequence[tuple[str, list[dict[str, Any]] | RowBatch]],
    ) -> None:
        """Inserts the rows of runs (run key, rows or a :class:`RowBatch`) into a metric table:
        runs whose columns agree go in one Arrow insert. A table is created from the first rows
        it gets, and report fields it has not seen yet become new columns (the report only
        ever adds fields)."""
        batches = [(k, r if isinstance(r, RowBatch) else row_batch(r)) for k, r in runs]
        batches = [(k, b) for k, b in batches if b.columns]
        while batches:
            key, first = batches[0]
            same = 1
            while (
                same < len(batches)
                and first.arrow is not None
                and batches[same][1].arrow is not None
                and batches[same][1].columns == first.columns
            ):
                same += 1
            group, batches = batches[:same], batches[same:]
            cols = first.columns
            self._ensure_columns(table, cols)
            names = ["run_key", "sweep_id", *cols]
            quoted = ", ".join(f'"{c}"' for c in names)
            if self._insert_arrow(table, quoted, sweep_id, group):
                continue
            # Values Arrow cannot type in one column (a float after integers, a huge integer):
            # one statement with every row (DuckDB's executemany costs a statement per row).
            for key, batch in group:
                plain = batch.rows if batch.rows is not None else batch.arrow.to_pylist()
                one = "(" + ", ".join("?" * len(names)) + ")"
                sql = f"INSERT INTO {table} ({quoted}) VALUES {', '.join([one] * len(plain))}"
                values = [v for r in plain for v in (key, sweep_id, *(r.get(c) for c in cols))]
                self.con.execute(sql, values)

    def _ensure_columns(self, table: str, cols: Mapping[str, str]) -> None:
        """Creates the table, or adds the columns it lacks."""
        schema = self._table_columns()
        con = self.con
        if table not in schema:
            body = ", ".join(
                ["run_key VARCHAR NOT NULL", "sweep_id INTEGER NOT NULL"]
                + [f'"{c}" {t}' for c, t in cols.items()]
            )
            con.execute(f"CREATE TABLE {table} ({body})")
            schema[table] = ["run_key", "sweep_id", *cols]
        else:
            have = set(schema[table])
            for c, t in cols.items():
                if c not in have:
                    con.execute(f'ALTER TABLE {table} ADD COLUMN "{c}" {t}')
                    schema[table].append(c)

    def _insert_arrow(
        self, table: str, quoted: str, sweep_id: int, group: Sequence[tuple[str, RowBatch]]
    ) -> bool:
        """Inserts the runs' rows (the same columns) as one Arrow table that DuckDB scans: a
        run of a 100-flow scenario (700 rows in three tables) took 200 ms as a statement of
        bound parameters, a few ms so (docs/performance.md, "Sweeps"). False, having written
        nothing, when a batch has no Arrow table (a column's values do not fit one Arrow
        type)."""
        import pyarrow as pa

        if any(batch.arrow is None for _, batch in group):
            return False
        parts = []
        for key, batch in group:
            n = batch.arrow.num_rows
            keyed = batch.arrow.add_column(0, "sweep_id", pa.array([sweep_id] * n, pa.int32()))
            parts.append(keyed.add_column(0, "run_key", pa.array([key] * n, pa.string())))
        self.con.register("_bufferlab_rows", pa.concat_tables(parts))
        try:
            self.con.execute(f"INSERT INTO {table} ({quoted}) SELECT * FROM _bufferlab_rows")
        finally:
            self.con.unregister("_bufferlab_rows")
        return True

    def _write_series(
        self, sweep_id: int, key: str, series: Mapping[str, Any]
    ) -> list[tuple[str, str, int]]:
        """Writes each kind of series (``queues``, ``tcp``, ...) of a run as one Parquet file
        in long format; returns (kind, path relative to the database's directory, rows)."""
        prefix = self.series_prefix(sweep_id, key)
        if prefix is None:
            return []
        return self._commit_staged(stage_series(prefix, series))

    def series_prefix(self, sweep_id: int, key: str) -> str | None:
        """Where a run's series files go (``<prefix>-<kind>.parquet``), its folder created;
        None for an in-memory database."""
        base = self.series_dir
        if base is None:
            return None
        d = base / str(sweep_id)
        d.mkdir(parents=True, exist_ok=True)
        return str(d / key)

    def _commit_staged(self, staged: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
        """Renames staged series files to their final names (an atomic step, so a file under a
        final name is always whole); returns (kind, path relative to the database, rows)."""
        out = []
        for kind, tmp, rows in staged:
            final = tmp.removesuffix(".tmp")
            os.replace(tmp, final)
            out.append((kind, os.path.relpath(final, Path(self.path).resolve().parent), rows))
        return out

    # -- reading -----------------------------------------------------------------------------

    def runs(self, sweep: str | int, table: str = "runs") -> pd.DataFrame:
        """Rows of ``runs`` (or of ``flows``/``queues``/``links`` joined with their run) of a
        sweep, with one column per axis."""
        info = self.sweep_info(sweep)
        run_cols = "r.run_key, r.point_index, r.replication, r.seed, r.status, r.params"
        if table == "runs":
            df = self.con.execute(
                "SELECT * EXCLUDE (report) FROM runs r WHERE sweep_id = ? "
                "ORDER BY point_index, replication",
                [info["id"]],
            ).df()
        elif table in METRIC_TABLES:
            if table not in self.tables():
                return self._with_axes(self.con.execute("SELECT 1 WHERE false").df(), info)
            df = self.con.execute(
                f"SELECT {run_cols}, t.* EXCLUDE (run_key, sweep_id) FROM runs r "
                f"JOIN {table} t ON t.run_key = r.run_key WHERE r.sweep_id = ? "
                "ORDER BY r.point_index, r.replication",
                [info["id"]],
            ).df()
        else:
            raise StoreError(f"table: expected runs, flows, queues, links or fct, got {table!r}")
        return self._with_axes(df, info)

    @staticmethod
    def _with_axes(df: pd.DataFrame, info: Mapping[str, Any]) -> pd.DataFrame:
        if "params" not in df.columns:
            return df
        params = [json.loads(p) if isinstance(p, str) else (p or {}) for p in df["params"]]
        pos = list(df.columns).index("params")
        for i, axis in enumerate(info["axes"]):
            vals = [p.get(axis) for p in params]
            vals = [json.dumps(v) if isinstance(v, dict | list) else v for v in vals]
            df.insert(pos + 1 + i, axis, vals)
        return df.drop(columns=["params"])

    def series(self, run_key: str, kind: str = "queues") -> pd.DataFrame | None:
        import pandas as pd

        row = self.con.execute(
            "SELECT path FROM series WHERE run_key = ? AND kind = ?", [run_key, kind]
        ).fetchone()
        if row is None:
            return None
        return pd.read_parquet(self._series_file(row[0]))

    def _series_file(self, rel: str) -> Path:
        """A series file the database names (relative to its folder), or StoreError."""
        f = Path(self.path).resolve().parent / rel
        if not f.is_file():
            folder = Path(rel).parts[0] if Path(rel).parts else rel
            raise StoreError(
                f"{self.path}: the runs' time series are not beside the database ({f} is "
                f"missing): a database moved or copied without its folder {folder}/; put that "
                f"folder next to {Path(self.path).name}, or run the sweep again into a new "
                "database"
            )
        return f

    def series_records(self, run_key: str, kind: str | None = None) -> Any:
        """A run's series as the report had them (records of scalars and sample lists): of one
        ``kind`` ([] when the run has none), or without ``kind`` every kind it has, as the
        report's ``series`` dict."""
        import pyarrow.parquet as pq

        rows = self.con.execute(
            "SELECT kind, path FROM series WHERE run_key = ?"
            + ("" if kind is None else " AND kind = ?"),
            [run_key] if kind is None else [run_key, kind],
        ).fetchall()
        found = {k: series_records(pq.read_table(self._series_file(p))) for k, p in rows}
        return found if kind is None else found.get(kind, [])

    def report(self, run_key: str) -> dict[str, Any] | None:
        row = self.con.execute("SELECT report FROM runs WHERE run_key = ?", [run_key]).fetchone()
        return json.loads(row[0]) if row and row[0] else None


@dataclass
class RowBatch:
    """One run's rows for one metric table, typed as the store stores them. A sweep's worker
    builds it (:func:`row_batch`), so that the store's thread, which every worker waits on, is
    left with the insert (docs/performance.md, "Sweeps")."""

    #: each column and the SQL type of its first non-null value (DOUBLE if it has none)
    columns: dict[str, str]
    #: the values as one Arrow table with those columns, or None when a column's values do
    #: not fit one Arrow type (then ``rows`` holds them, for an insert of bound parameters)
    arrow: Any
    rows: list[dict[str, Any]] | None


def row_batch(rows: list[dict[str, Any]]) -> RowBatch:
    """Types report rows for the store: the columns in order of appearance, each with the type
    of its first non-null value, and the values as Arrow arrays of those types."""
    import pyarrow as pa

    cols: dict[str, str] = {}
    for r in rows:
        for c, v in r.items():
            if v is not None and cols.get(c) is None:
                cols[c] = _sql_type(v)
            else:
                cols.setdefault(c, None)  # type: ignore[arg-type]
    cols = {c: t or "DOUBLE" for c, t in cols.items()}
    # The SQL types `_sql_type` gives; HUGEINT has no Arrow type (such rows go the slow way).
    types = {"BOOLEAN": pa.bool_(), "BIGINT": pa.int64(), "VARCHAR": pa.string()}
    types["DOUBLE"] = pa.float64()
    try:
        arrays = [pa.array([r.get(c) for r in rows], type=types.get(t)) for c, t in cols.items()]
        arrow = pa.Table.from_arrays(arrays, names=list(cols)) if cols else None
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError):
        return RowBatch(cols, None, rows)
    return RowBatch(cols, arrow, None)


def _sql_type(v: Any) -> str:
    if isinstance(v, bool):
        return "BOOLEAN"
    if isinstance(v, int):
        return "BIGINT" if -(2**63) <= v < 2**63 else "HUGEINT"
    if isinstance(v, str):
        return "VARCHAR"
    return "DOUBLE"  # floats, and null (an undefined number)


def flat_rows(records: list[Mapping[str, Any]], columns: list[str]) -> list[dict[str, Any]]:
    """The report's records as flat rows, like :mod:`bufferlab.results`' frames: documented
    columns first, nested objects left out, a ``tcp`` object as ``tcp_*`` columns."""
    out = []
    for rec in records:
        row: dict[str, Any] = {c: rec.get(c) for c in columns}
        for k, v in rec.items():
            if k == "tcp" and isinstance(v, Mapping):
                for tk, tv in v.items():
                    if not isinstance(tv, Mapping | list):
                        row[f"tcp_{tk}"] = tv
            elif k not in row and not isinstance(v, Mapping | list):
                row[k] = v
        out.append(row)
    return out


def report_rows(report: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The rows a run adds to the metric tables (``flows`` with its ``loss_ratio``,
    ``queues``, ``links``, and ``fct`` when the run had finite transfers)."""
    flows = flat_rows(report.get("flows") or [], FLOW_COLUMNS)
    for f in flows:
        tx, lost = f.get("tx_packets"), f.get("lost_packets")
        f["loss_ratio"] = lost / tx if tx and lost is not None else None
    queues = flat_rows(report.get("queues") or [], QUEUE_COLUMNS)
    for row, q in zip(queues, report.get("queues") or [], strict=True):
        row.update(class_columns(q))
    rows = {
        "flows": flows,
        "queues": queues,
        "links": flat_rows(report.get("links") or [], LINK_COLUMNS),
    }
    buckets = (report.get("fct") or {}).get("buckets")
    if buckets:
        rows["fct"] = flat_rows(buckets, FCT_BUCKET_COLUMNS)
    return rows


def class_columns(queue: Mapping[str, Any]) -> dict[str, Any]:
    """A class-based queue's per-class numbers as columns of its row, ``class_<name>_<field>``
    (DualPI2's ``class_l_sojourn_mean_s``, ``class_c_drops``): the metric
    ``queues[bottleneck].class_l_sojourn_p99_s`` reads one class."""
    out: dict[str, Any] = {}
    for c in queue.get("classes") or []:
        name = re.sub(r"[^A-Za-z0-9_]", "_", str(c.get("name")))
        for k, v in c.items():
            if k != "name" and not isinstance(v, Mapping | list | str | bool):
                out[f"class_{name}_{k}"] = v
    return out


def stage_series(prefix: str, series: Mapping[str, Any]) -> list[tuple[str, str, int]]:
    """Writes each kind of series (``queues``, ``tcp``, ...) of a run as one Parquet file in
    long format under a temporary name ``<prefix>-<kind>.parquet.tmp``; returns (kind, that
    path, rows). The store renames them when it records the run."""
    import pyarrow.parquet as pq

    out = []
    for kind, records in series.items():
        table = series_table(records)
        if table is None or table.num_rows == 0:
            continue
        tmp = f"{prefix}-{kind}.parquet.tmp"
        pq.write_table(table, tmp)
        out.append((kind, tmp, table.num_rows))
    return out


def series_table(records: Any) -> Any:
    """A list of series records as one Arrow table in long format (see
    :func:`bufferlab.results.long_columns`). The schema's metadata keeps each record's rows,
    scalar fields and sample lists (``bufferlab.records``), so :func:`series_records` gives
    the records back exactly."""
    import pyarrow as pa

    longs = long_columns(records)
    parts = [pa.table(cols) for cols in longs]
    if not parts:
        return None
    table = pa.concat_tables(parts, promote_options="permissive")
    shape = [
        {
            "rows": part.num_rows,
            "scalars": {k: v for k, v in rec.items() if not isinstance(v, list | Mapping)},
            "lists": [k for k, v in rec.items() if isinstance(v, list) and k in cols],
        }
        for rec, cols, part in zip(
            [r for r in records if isinstance(r, Mapping)], longs, parts, strict=True
        )
    ]
    return table.replace_schema_metadata({"bufferlab.records": json.dumps(shape)})


def series_records(table: Any) -> list[dict[str, Any]]:
    """The series records a table of :func:`series_table` was made of (scalar fields once,
    samples as lists); lists the long format left out (shorter than their record's longest)
    stay left out. Key order aside, they equal the report's records."""
    meta = (table.schema.metadata or {}).get(b"bufferlab.records")
    if meta is None:
        raise StoreError("series file without its records' shape (written before 0.1.1)")
    cols = table.to_pydict()
    out, at = [], 0
    for shape in json.loads(meta):
        n = shape["rows"]
        rec: dict[str, Any] = dict(shape["scalars"])
        for k in shape["lists"]:
            rec[k] = cols[k][at : at + n]
        out.append(rec)
        at += n
    return out


def _is_write_failure(e: BaseException) -> bool:
    """A full disk or a file-size limit, from DuckDB or from writing a series file."""
    import duckdb

    return isinstance(e, OSError | duckdb.IOException) or "No space left" in str(e)
