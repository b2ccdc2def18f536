"""Executing a sweep's runs: locally on threads or processes, or on a Dask cluster, each run
recorded in the store as it finishes (so an interrupted sweep resumes).

The default local executor, ``"auto"``, runs a sweep of more than a few runs in processes when
there is more than one worker, else in threads: each run's Python part (parsing its report,
building its rows and series) holds the GIL in a thread, so two threads reach about 1.7x one
and two processes about 1.9x (docs/performance.md, "Sweeps"). Whatever the executor and the
number of workers, the store holds the same results.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bufferlab.experiments.spec import RunSpec, Sweep, SweepError, load_sweep

if TYPE_CHECKING:
    from bufferlab.experiments.store import Store


# -- execution --------------------------------------------------------------------------------


def execute_run(
    scenario_text: str,
    source: str,
    overrides: Sequence[str],
    seed: int,
    outputs: Mapping[str, Any] | None = None,
    stage: str | None = None,
) -> dict[str, Any]:
    """Runs one scenario and returns ``{"ok": True, "report": <JSON text>}`` or
    ``{"ok": False, "error": "...", "error_kind": "ScenarioError"}``.

    With ``stage`` (a path prefix in the store's series folder, on a file system the store
    sees) the worker also does the heavy part of recording: it parses the report and writes
    its time series as Parquet files under temporary names, and returns
    ``{"ok": True, "report_head": <the report's top-level numbers and fairness>,
    "report_text": <its JSON without series>, "rows": <a RowBatch per metric table>,
    "series_staged": [...]}``. The
    store's own thread is then left with small inserts, so it does not become the sweep's
    bottleneck (measured in docs/performance.md, "Sweeps").

    A top-level function of plain arguments and results, so it pickles: the same function runs
    in a thread, a process or on a Dask worker.
    """
    from bufferlab import _core

    t0 = time.perf_counter()
    try:
        if outputs and outputs.get("ns2_trace"):
            Path(outputs["ns2_trace"]).parent.mkdir(parents=True, exist_ok=True)
        text = _core.run(
            scenario_text, source=source, seed=seed, overrides=list(overrides), **(outputs or {})
        )
    except Exception as e:  # recorded in the store; the sweep goes on
        return {
            "ok": False,
            "error": " ".join(str(e).split()),
            "error_kind": type(e).__name__,
            "wall_s": time.perf_counter() - t0,
        }
    # A run a limit stopped (memory, a stall) is a failed run, not a short one: `stopped` is
    # the report's last field, so only its tail needs a look.
    if '"stopped":' in text[-4096:]:
        stop = json.loads(text).get("stopped") or {}
        return {
            "ok": False,
            "error": str(stop.get("message", "stopped")),
            "error_kind": f"stopped:{stop.get('kind', '')}",
            "wall_s": time.perf_counter() - t0,
        }
    if '"partial":true' in text:
        # Cut short without a limit: Ctrl-C reached the process that ran it (a Dask worker's,
        # say; local worker processes ignore it). Not a result: failed, so a resume runs it.
        return {
            "ok": False,
            "error": "interrupted (Ctrl-C reached the worker running it); partial results",
            "error_kind": "interrupted",
            "wall_s": time.perf_counter() - t0,
        }
    if stage is None:
        return {"ok": True, "report": text, "wall_s": time.perf_counter() - t0}
    from bufferlab.experiments.store import report_rows, row_batch, stage_series

    report = json.loads(text)
    staged = stage_series(stage, report.pop("series", None) or {})
    return {
        "ok": True,
        # What the runs table takes from the report (its numbers and fairness); the rest
        # travels once, as text and as typed rows.
        "report_head": {
            k: v for k, v in report.items() if k == "fairness" or not isinstance(v, dict | list)
        },
        "report_text": json.dumps(report),
        "rows": {t: row_batch(rows) for t, rows in report_rows(report).items()},
        "series_staged": staged,
        "wall_s": time.perf_counter() - t0,
    }


@dataclass
class SweepOutcome:
    """What :func:`run_sweep` did."""

    sweep: str
    total: int
    #: runs already recorded as ok (a resumed sweep): not run again
    skipped: int
    done: int
    failed: int
    wall_s: float
    #: runs still to do that ``limit`` left for a later call
    left: int = 0
    #: the first failure of this call in grid order: its grid point, replication and error
    first_error: str | None = None

    @property
    def ran(self) -> int:
        return self.done + self.failed


ProgressFn = Callable[[int, int, int], None]


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


EXECUTORS = ("auto", "thread", "process")
#: A sweep of more runs than this (and more than one worker) runs in processes by default.
AUTO_PROCESS_RUNS = 8


def local_executor(executor: str, jobs: int, runs: int) -> str:
    """The local executor of a sweep of ``runs`` runs on ``jobs`` workers: ``"thread"`` or
    ``"process"``. ``"auto"`` (the default) is processes for more than one worker and more
    than :data:`AUTO_PROCESS_RUNS` runs, else threads. Processes: two run a sweep about 1.9x as
    fast as one, where two threads reach about 1.7x (each run's Python part holds the GIL);
    threads for a few runs: starting the processes costs more than that gains (4 runs of 3
    simulated seconds on 2 workers: processes 0.84x of one thread, threads 1.03x; 16 runs:
    equal; docs/performance.md, "Sweeps")."""
    if executor not in EXECUTORS:
        raise ValueError(f"executor: expected one of {', '.join(EXECUTORS)}, got {executor!r}")
    if executor == "auto":
        return "process" if jobs > 1 and runs > AUTO_PROCESS_RUNS else "thread"
    return executor


def run_sweep(
    sweep: Sweep | str | os.PathLike[str],
    db: str | os.PathLike[str] | Store = "results.duckdb",
    jobs: int | None = None,
    cluster: str | Any | None = None,
    executor: str = "auto",
    replications: int | None = None,
    progress: Callable[[str, int, int, int, int], None] | None = None,
    limit: int | None = None,
    run_limits: Mapping[str, Any] | None = None,
) -> SweepOutcome:
    """Runs every run of a sweep that is not yet in the store with status ok.

    ``jobs`` workers (default: all cores) in processes or threads: ``executor`` is ``"auto"``
    (processes for more than one worker and a few runs, else threads; see
    :func:`local_executor`),
    ``"thread"`` (the core releases the GIL) or ``"process"``. ``cluster`` is a Dask scheduler
    address (``"tcp://host:8786"``) or a ``distributed.Client``; the runs then execute on its
    workers.
    Each finished run is written to the store by this (the calling) thread as it finishes.
    ``progress(event, done, failed, total_to_run, skipped)`` is called after each run.
    ``limit`` stops after that many runs were submitted (for tests and quick looks).
    ``run_limits`` (``max_wall`` seconds, ``max_memory`` bytes) bound each run; a run they stop
    is recorded as failed with the reason. ``allow_python=True`` among them lets the runs
    import the Python classes their scenario names.
    """
    from bufferlab.experiments.store import Store

    if executor not in EXECUTORS:
        raise ValueError(f"executor: expected one of {', '.join(EXECUTORS)}, got {executor!r}")
    sw = sweep if isinstance(sweep, Sweep) else load_sweep(sweep)
    store = db if isinstance(db, Store) else Store(db)
    own_store = not isinstance(db, Store)
    t0 = time.perf_counter()
    try:
        sweep_id = store.register_sweep(sw)
        runs = sw.runs(replications)
        ok = store.ok_keys(sweep_id)
        pending = [r for r in runs if r.key not in ok]
        todo = pending if limit is None else pending[:limit]
        skipped = len(runs) - len(pending)
        left = len(pending) - len(todo)
        done = failed = 0
        first_error: str | None = None
        first_order = (0, 0)
        if progress:
            progress("start", 0, 0, len(todo), skipped)

        def record(finished: Sequence[tuple[RunSpec, Mapping[str, Any]]]) -> None:
            """Records runs that finished together, in one transaction."""
            nonlocal done, failed, first_error, first_order
            with _ctrl_c_after():
                store.record_runs(sweep_id, sw, finished)
            for spec, result in finished:
                if result.get("ok"):
                    done += 1
                else:
                    failed += 1
                    # The first failure in grid order (not in completion order, which depends
                    # on the workers): the same message whatever the number of workers.
                    order = (spec.point.index, spec.replication)
                    if first_error is None or order < first_order:
                        first_order = order
                        first_error = (
                            f"point {spec.point.index} ({spec.point.label()}), "
                            f"replication {spec.replication}: "
                            f"{result.get('error')}"
                        )
                if progress:
                    progress("run", done, failed, len(todo), skipped)

        if todo:
            with store.recording():
                if cluster is not None:
                    # Dask workers may not see this file system: they return the report whole.
                    args = [_args_for(sw, spec, run_limits) for spec in todo]
                    _run_dask(cluster, todo, args, record)
                else:
                    args = [
                        (*_args_for(sw, spec, run_limits), store.series_prefix(sweep_id, spec.key))
                        for spec in todo
                    ]
                    # Decided on the sweep's size, not on what is left of it: a resumed sweep
                    # runs on the executor the command announced.
                    kind = local_executor(executor, jobs or default_jobs(), len(runs))
                    n = min(jobs or default_jobs(), len(todo))  # no idle worker to start
                    _run_local(todo, args, record, n, kind, store.write_failed)
        wall = time.perf_counter() - t0
        return SweepOutcome(sw.name, len(runs), skipped, done, failed, wall, left, first_error)
    finally:
        if own_store:
            store.close()


@contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Ctrl-C during the block takes effect at its end: a run being recorded is committed
    whole. (DuckDB turns a Ctrl-C in the middle of a statement into a "Query interrupted"
    error and an aborted transaction, which the command reported as a bug.) Only in the main
    thread with Python's own SIGINT handler; elsewhere the block runs as it is."""
    import signal
    import threading

    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


def _args_for(
    sw: Sweep, spec: RunSpec, run_limits: Mapping[str, Any] | None = None
) -> tuple[str, str, list[str], int, dict | None]:
    sc = sw.scenario_of(spec)
    outputs = {**(sw.trace_outputs(spec) or {}), **(run_limits or {})}
    return (sc.text, sc.source, list(sc.overrides), spec.seed, outputs or None)


def _run_local(
    todo: list[RunSpec],
    args: list[tuple[Any, ...]],
    record: Callable[[Sequence[tuple[RunSpec, Mapping[str, Any]]]], None],
    jobs: int,
    executor: str,
    write_failed: Callable[[BaseException], Exception],
) -> None:
    from concurrent.futures import (
        FIRST_COMPLETED,
        Future,
        ProcessPoolExecutor,
        ThreadPoolExecutor,
        wait,
    )

    if executor not in ("thread", "process"):
        raise ValueError(f"executor: expected 'thread' or 'process', got {executor!r}")
    from concurrent.futures.process import BrokenProcessPool

    if executor == "process":
        _warm_for_workers()

    def pool_cls(max_workers: int) -> ThreadPoolExecutor | ProcessPoolExecutor:
        if executor == "thread":
            return ThreadPoolExecutor(max_workers=max_workers)
        return ProcessPoolExecutor(max_workers=max_workers, initializer=_worker_init)

    # Keep at most 2 x jobs runs in flight, so an interrupted sweep has not started everything.
    window = 2 * jobs
    args_of = {spec.key: a for spec, a in zip(todo, args, strict=True)}
    it = iter(zip(todo, args, strict=True))
    pool = pool_cls(max_workers=jobs)
    pending: dict[Future[dict[str, Any]], RunSpec] = {}
    try:
        for spec, a in itertools.islice(it, window):
            pending[pool.submit(execute_run, *a)] = spec
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            broken: list[RunSpec] = []
            ready: list[tuple[RunSpec, Mapping[str, Any]]] = []
            disk_error: OSError | None = None
            for fut in finished:
                spec = pending.pop(fut)
                try:
                    ready.append((spec, fut.result()))
                except BrokenProcessPool:
                    broken.append(spec)
                    continue
                except OSError as e:  # its series files could not be written (a full disk)
                    disk_error = disk_error or e
                    continue
                nxt = next(it, None)
                if nxt is not None:
                    try:
                        pending[pool.submit(execute_run, *nxt[1])] = nxt[0]
                    except BrokenProcessPool:  # a worker died since: run it with the others
                        broken.append(nxt[0])
            # Every run that finished while the last ones were recorded, in one transaction.
            record(sorted(ready, key=lambda r: (r[0].point.index, r[0].replication)))
            if disk_error is not None:  # after the runs that did finish are kept
                raise write_failed(disk_error) from None
            if broken:
                # A worker process died (killed, e.g. by the out-of-memory killer): the pool is
                # gone with every run in it. Run each of those again alone, so that the one that
                # kills its process is recorded as failed and the others are not lost, then go on
                # in a new pool.
                broken += list(pending.values())
                pending.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                for spec in sorted(broken, key=lambda s: (s.point.index, s.replication)):
                    record([(spec, _run_alone(args_of[spec.key]))])
                pool = pool_cls(max_workers=jobs)
                for spec, a in itertools.islice(it, window):
                    pending[pool.submit(execute_run, *a)] = spec
    except BaseException:
        for fut in pending:
            fut.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _warm_for_workers() -> None:
    """Imports what a worker process needs for its runs (pyarrow, to write the series) here,
    before the pool forks its workers (the start method on Linux up to Python 3.13), so that
    they start with it instead of each importing it (0.1-0.2 s a process, as long as a small
    sweep's runs). The sweep's own process imports pyarrow anyway to record the results."""
    import multiprocessing

    if multiprocessing.get_start_method() != "fork":
        return
    import pyarrow
    import pyarrow.parquet  # noqa: F401


def _worker_init() -> None:
    """A worker process ignores Ctrl-C, as a worker thread does: the sweep's own process
    answers it (stops submitting, waits for the runs under way, exits "interrupted"), and no
    run is cut short nor a worker's traceback printed."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_alone(a: tuple[Any, ...]) -> dict[str, Any]:
    """One run in a process of its own: its result, or a failure if the process dies."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1, initializer=_worker_init) as solo:
        try:
            return solo.submit(execute_run, *a).result()
        except BrokenProcessPool:
            return {
                "ok": False,
                "error": "its worker process died during the run (killed by a signal, e.g. the "
                "out-of-memory killer); run it alone with `bufferlab run` to see why",
                "error_kind": "WorkerDied",
                "wall_s": time.perf_counter() - t0,
            }


def _run_dask(
    cluster: str | Any,
    todo: list[RunSpec],
    args: list[tuple[str, str, list[str], int, dict | None]],
    record: Callable[[Sequence[tuple[RunSpec, Mapping[str, Any]]]], None],
) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError as e:  # pragma: no cover - a regular dependency
        raise SweepError(f"--cluster needs dask.distributed: {e}") from None
    if isinstance(cluster, str):
        try:
            client = Client(cluster, timeout="20s")
        except Exception as e:  # unreachable, wrong protocol, timeout
            msg = " ".join(str(e).split())
            raise SweepError(
                f"--cluster {cluster}: cannot connect to the Dask scheduler: {msg}"
            ) from None
    else:
        client = cluster
    try:
        futures = {}
        for spec, a in zip(todo, args, strict=True):
            fut = client.submit(execute_run, *a, key=f"bufferlab-{spec.key}", pure=False)
            futures[fut] = spec
        for fut in as_completed(futures):
            spec = futures[fut]
            try:
                result = fut.result()
            except Exception as e:  # the worker died or the task could not run
                result = {"ok": False, "error": f"{type(e).__name__}: {e}", "error_kind": "Dask"}
            record([(spec, result)])
    finally:
        if isinstance(cluster, str):
            client.close()
