"""Executing a study's runs and gathering their values (``Outcome``)."""

import datetime as dt
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
) -> list[dict[str, Any]]:
    """Runs the items on ``jobs`` threads; returns one record per run (report dict or error)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from bufferlab.experiments.execute import execute_run
    from bufferlab.scenario import load

    scen = {}
    for it in items:
        if it.exp.name not in scen:
            scen[it.exp.name] = load(it.exp.scenario)
    out: list[dict[str, Any] | None] = [None] * len(items)

    def one(i: int) -> tuple[int, dict[str, Any]]:
        it = items[i]
        sc = scen[it.exp.name]
        res = execute_run(sc.text, sc.source, list(sc.overrides) + it.overrides, it.seed)
        rec: dict[str, Any] = {
            "experiment": it.exp.name,
            "labels": it.labels,
            "replication": it.replication,
            "seed": it.seed,
            "ok": res.get("ok", False),
            "wall_s": res.get("wall_s"),
        }
        if res.get("ok"):
            rep = json.loads(res["report"])
            rec["report"] = rep
            if measure is not None:
                # Metrics see the whole report (series included) before it is slimmed.
                rec["metrics"] = measure(rec)
            if not keep_series(it):
                rep.pop("series", None)
            rec["report"] = rep
        else:
            rec["error"] = res.get("error")
        return i, rec

    done = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futs = [pool.submit(one, i) for i in range(len(items))]
        for f in as_completed(futs):
            i, rec = f.result()
            out[i] = rec
            done += 1
            if progress:
                progress(done, len(items))
    return [r for r in out if r is not None]


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
) -> Outcome:
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
    records = execute(items, jobs, keep, progress, lambda rec: run_metrics(study, rec, errors))
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
    )
    got = iter(records)
    return [None if it is None else next(got).get("metrics") for it in chosen]
