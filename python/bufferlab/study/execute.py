"""Executing a study's runs through the sweep machinery into the results store, and gathering
their values (``Outcome``)."""

import contextlib
import datetime as dt
import functools
import hashlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bufferlab.study.metrics import run_metrics
from bufferlab.study.plan import RunItem, label_matches, normalise_label, plan
from bufferlab.study.spec import MODES, Study, StudyError


def execute(
    items: list[RunItem],
    jobs: int,
    keep_series: Callable[[RunItem], bool],
    progress: Callable[[int, int], None] | None = None,
    measure: Callable[[dict[str, Any]], dict[str, float]] | None = None,
    db: str | os.PathLike[str] | None = None,
    study_name: str = "study",
    cluster: Any = None,
) -> list[dict[str, Any]]:
    """Runs the items as planned sweeps (one per experiment) into the results store ``db``
    and returns one record per run (report dict or error), in the items' order.

    Runs already recorded as ok in ``db`` are not run again (a study resumes like a sweep);
    without ``db`` the store is a temporary one. ``cluster`` (a Dask scheduler address or
    client) runs them on its workers. Each record's report comes back from the store: its
    series only where ``keep_series`` asks (the figures' runs), read from the Parquet files."""
    import tempfile

    from bufferlab.experiments.execute import run_sweep
    from bufferlab.experiments.spec import planned_sweep
    from bufferlab.experiments.store import Store
    from bufferlab.scenario import load

    with contextlib.ExitStack() as stack:
        if db is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="bufferlab-study-"))
            db = os.path.join(tmp, "study.duckdb")
        store = stack.enter_context(Store(db))
        by_exp: dict[str, list[int]] = {}
        for i, it in enumerate(items):
            by_exp.setdefault(it.exp.name, []).append(i)
        keys: list[str] = [""] * len(items)
        done_before = 0
        for exp, idx in by_exp.items():
            e = items[idx[0]].exp
            sweep = planned_sweep(
                f"study:{study_name}:{exp}",
                load(e.scenario),
                [
                    (items[i].labels, items[i].replication, items[i].seed, items[i].overrides)
                    for i in idx
                ],
                description=f"study {study_name}, experiment {exp}",
                file=str(e.scenario),
                salt=engine_fingerprint(),
            )
            for i, spec in zip(idx, sweep.runs(), strict=True):
                keys[i] = spec.key

            def on_progress(
                event: str, done: int, failed: int, total: int, skipped: int, base=done_before
            ) -> None:
                if progress:
                    progress(base + skipped + done + failed, len(items))

            run_sweep(sweep, db=store, jobs=jobs, cluster=cluster, progress=on_progress)
            done_before += len(idx)
        return [
            _record(store, it, key, keep_series(it), measure)
            for it, key in zip(items, keys, strict=True)
        ]


@functools.cache
def engine_fingerprint() -> str:
    """A hash of the compiled core: a study reuses a recorded run only if the same engine made
    it, so a model change never leaves stale numbers in a study page (an interrupted study
    still resumes)."""
    from bufferlab import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def forget_study(db: str | os.PathLike[str], prefix: str) -> int:
    """Deletes from ``db`` the runs of the sweeps whose names start with ``prefix`` (a study's
    mode: ``study:NAME:MODE:``), so that they run again; returns how many."""
    from bufferlab.experiments.store import Store

    if not os.path.exists(db):
        return 0
    with Store(db) as store:
        ids = [
            i
            for (i,) in store.con.execute(
                "SELECT id FROM sweeps WHERE starts_with(name, ?)", [prefix]
            ).fetchall()
        ]
        n = 0
        for i in ids:
            n += store.forget_sweep_runs(i)
        return n


def _record(
    store: Any,
    it: RunItem,
    key: str,
    with_series: bool,
    measure: Callable[[dict[str, Any]], dict[str, float]] | None,
) -> dict[str, Any]:
    """One run's record from the store: its report (series only if asked) and metrics."""
    row = store.con.execute(
        "SELECT status, error, wall_s FROM runs WHERE run_key = ?", [key]
    ).fetchone()
    rec: dict[str, Any] = {
        "experiment": it.exp.name,
        "labels": it.labels,
        "replication": it.replication,
        "seed": it.seed,
        "ok": bool(row and row[0] == "ok"),
        "wall_s": row[2] if row else None,
    }
    if not rec["ok"]:
        rec["error"] = row[1] if row else "not run"
        return rec
    rep = store.report(key) or {}
    # Metrics see the whole report, series included (a metric may average a series); the
    # record keeps the series only where a figure needs them.
    rep["series"] = store.series_records(key)
    rec["report"] = rep
    if measure is not None:
        rec["metrics"] = measure(rec)
    if not with_series:
        rep.pop("series", None)
    return rec


@dataclass
class Outcome:
    """Everything a study run produced: per-run values and their aggregates."""

    study: Study
    mode: str
    records: list[dict[str, Any]]
    values: list[dict[str, Any]]  # experiment, labels..., replication, metric values
    errors: dict[str, str]
    wall_s: float
    started: str
    agg: dict[tuple[str, tuple], dict[str, dict[str, float]]] = field(default_factory=dict)

    def point_key(self, exp: str, labels: Mapping[str, Any]) -> tuple[str, tuple]:
        e = self.study.experiment(exp)
        return exp, tuple(normalise_label(labels.get(p.name)) for p in e.params)

    def aggregate(self) -> None:
        from bufferlab.experiments.stats import summarize

        groups: dict[tuple[str, tuple], list[dict[str, Any]]] = {}
        for v in self.values:
            groups.setdefault(self.point_key(v["experiment"], v["labels"]), []).append(v)
        self.agg = {}
        for key, rows in groups.items():
            names = {k for r in rows for k in r["metrics"]}
            self.agg[key] = {n: summarize([r["metrics"].get(n) for r in rows]) for n in names}

    def stat(self, exp: str, labels: Mapping[str, Any], metric: str) -> dict[str, float] | None:
        return self.agg.get(self.point_key(exp, labels), {}).get(metric)

    def matching(
        self, exp: str, where: Mapping[str, Any], sort_by: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        """Labels of the points of ``exp`` that ran and match ``where``, in the order of the
        parameters' values (``sort_by`` first, then the experiment's parameter order)."""
        e = self.study.experiment(exp)
        seen, out = set(), []
        for v in self.values:
            if v["experiment"] != exp:
                continue
            lab = v["labels"]
            if all(label_matches(lab.get(k), w) for k, w in where.items() if k in lab):
                key = self.point_key(exp, lab)
                if key not in seen:
                    seen.add(key)
                    out.append(lab)
        order = {p.name: [normalise_label(x) for x in p.labels()] for p in e.params}
        keys = [k for k in sort_by if k in order] + [k for k in order if k not in sort_by]

        def sort_key(lab: Mapping[str, Any]) -> tuple:
            return tuple(
                order[p].index(normalise_label(lab[p]))
                if normalise_label(lab[p]) in order[p]
                else 0
                for p in keys
            )

        return sorted(out, key=sort_key)


def run_study(
    study: Study,
    mode: str = "full",
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    db: str | os.PathLike[str] | None = None,
    cluster: Any = None,
) -> Outcome:
    """Runs every run of the study's ``mode`` into the results store ``db`` (one planned
    sweep per experiment, named ``study:NAME:EXPERIMENT`` with the mode's runs; runs already
    recorded there are not run again) and gathers their values. Without ``db``, a temporary
    store."""
    if mode not in MODES:
        raise StudyError(f"mode: expected one of {', '.join(MODES)}, got {mode!r}")
    items = plan(study, mode)
    series_exps = {
        f.get("experiment")
        for f in study.figures
        if f.get("kind") in ("queue", "cwnd", "flow_series")
    }

    def keep(it: RunItem) -> bool:
        return it.replication == 0 and it.exp.name in series_exps

    started = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    jobs = jobs or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)
    errors: dict[str, str] = {}
    records = execute(
        items,
        jobs,
        keep,
        progress,
        lambda rec: run_metrics(study, rec, errors),
        db=db,
        study_name=f"{study.name}:{mode}",
        cluster=cluster,
    )
    values = []
    for rec in records:
        if not rec.get("ok"):
            errors.setdefault(f"run {rec['experiment']} {rec['labels']}", str(rec.get("error")))
            continue
        values.append(
            {
                "experiment": rec["experiment"],
                "labels": rec["labels"],
                "replication": rec["replication"],
                "seed": rec["seed"],
                "wall_s": rec.get("wall_s"),
                "metrics": rec.get("metrics") or run_metrics(study, rec, errors),
            }
        )
    out = Outcome(study, mode, records, values, errors, time.perf_counter() - t0, started)
    out.aggregate()
    return out


def rerun_sample(study: Study, sample: Sequence[Mapping[str, Any]], jobs: int = 1) -> list[Any]:
    """Runs again the full-mode runs a recorded sample names (experiment, labels,
    replication) and returns each one's metric values, in the sample's order (None for a run
    the current plan no longer has)."""
    items = plan(study, "full")

    def key(exp: str, labels: Mapping[str, Any], rep: int) -> tuple:
        return exp, tuple(sorted((k, normalise_label(v)) for k, v in labels.items())), rep

    by_key = {key(it.exp.name, it.labels, it.replication): it for it in items}
    chosen = [by_key.get(key(r["experiment"], r["labels"], r["replication"])) for r in sample]
    errors: dict[str, str] = {}
    records = execute(
        [it for it in chosen if it is not None],
        jobs,
        lambda it: False,
        measure=lambda rec: run_metrics(study, rec, errors),
        study_name=f"{study.name}:full",
    )
    got = iter(records)
    return [None if it is None else next(got).get("metrics") for it in chosen]
