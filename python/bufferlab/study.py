"""Studies: the seed papers reproduced and compared with their published numbers.

A study is a folder ``studies/NAME/`` with

* ``study.toml`` - what to run and how to tabulate it (format below);
* the scenario file(s) it names (``scenario.toml`` ...);
* ``published.json`` - the paper's tables as data (table and figure ids, units in the keys);
* ``peers.json`` (optional) - the same tables as the ns-2 / ns-3 peers recorded them;
* ``README.md`` - the assumptions: what the paper leaves open and what was chosen;
* ``discussion.md`` (optional) - hand-written discussion appended to docs/studies/NAME.md.

``bufferlab study run NAME|all [--quick|--tiny] [--out DIR]`` runs every experiment of the study
(grid points x replications, threads: the core releases the GIL), prints the paper's tables with
the published numbers side by side, draws the figures into ``DIR`` and writes
``docs/studies/NAME.md`` (tables, figures, the checks of each of the paper's conclusions).

study.toml::

    [study]
    title = "..."; paper = "000_....txt"; summary = "..."
    tolerance = 0.10          # relative spread accepted before a cell is flagged (see docs)

    [[experiment]]
    name = "main"
    scenario = "scenario.toml"
    replications = 5
    set = { "links.bottleneck.delay" = "20ms" }             # fixed overrides
    [experiment.params]                                      # the grid (cartesian product)
    loss = { values = [0.01, 0.05], set = "links.bottleneck.loss.rate" }
    buffer_kb = { values = [5, 10], set = { "links.bottleneck.queue.limit" = "{}KB" } }
    bw = [ { label = "0.05MB", "links.bottleneck.rate" = "0.4Mbps" }, ... ]
    [experiment.quick]                                       # --quick (and [experiment.tiny])
    replications = 2
    duration = "30s"
    params = { buffer_kb = [5, 10] }                         # a subset of the labels

    [metrics]                                                # per run, Python expressions
    tcp_thr_kbps = "mean(flows('tcp*', 'throughput_bps')) / 1e3"
    sent = { expr = "flow(F, 'tx_packets')", each = { S1 = "tcp0", S2 = "tcp1" }, dim = "source" }

    [[table]]   id = "Table 3"; experiment = "main"; where = { loss = 0.01 }
                rows = ["bw", "buffer_kb"]; columns = ["tcp_thr_kbps"]; published = "table3"
    [[figure]]  id = "Figure 3"; kind = "line" | "bars" | "queue" | "cwnd"; ...
    [[claim]]   text = "..."; check = "m('tcp_thr_kbps', buffer_kb=10) > m(...)"; evidence = "..."

Metric expressions see: ``flows(pattern, field)`` (list over flows whose name matches the glob),
``flow(name, field)``, ``queue(link, field)``, ``link(link, field)``, ``fairness(field)``,
``P`` (the point's parameter labels), ``R`` (the raw report), ``F`` (for ``each`` metrics), and
``sum mean std jain min max len sqrt nan``. Fields may be dotted (``tcp.response_time_mean_s``).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import itertools
import json
import math
import os
import shutil
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

MODES = ("full", "quick", "tiny")
TINY_ENV = "BUFFERLAB_STUDY_TINY"
STUDIES_ENV = "BUFFERLAB_STUDIES"


class StudyError(ValueError):
    """A study file is wrong or a study does not exist; the message names the file and field."""


# -- locating studies --------------------------------------------------------------------------


def studies_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The ``studies/`` folder: ``explicit``, $BUFFERLAB_STUDIES, the nearest ``studies/``
    above the working directory, or the one of the source checkout this package is in."""
    if explicit:
        return Path(explicit)
    env = os.environ.get(STUDIES_ENV)
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        cand = d / "studies"
        if cand.is_dir() and any(cand.glob("*/study.toml")):
            return cand
    return Path(__file__).resolve().parents[2] / "studies"


def repo_root(sdir: Path) -> Path:
    return sdir.resolve().parent


# -- the study file ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamValue:
    label: Any
    overrides: dict[str, Any]
    #: Named values other parameters' expressions may use (``"$bdp" = 433`` in a table entry).
    vars: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Deferred:
    """An override computed per point: ``"= expression"`` in a ``set`` template, evaluated with
    ``v`` (this parameter's value), every parameter's label by name and the points' ``$vars``."""

    expr: str
    value: Any


@dataclass
class Param:
    name: str
    values: list[ParamValue]

    def labels(self) -> list[Any]:
        return [v.label for v in self.values]


@dataclass
class Experiment:
    name: str
    scenario: Path
    params: list[Param]
    set: dict[str, Any] = field(default_factory=dict)
    replications: int = 1
    root_seed: int = 1
    modes: dict[str, dict[str, Any]] = field(default_factory=dict)
    description: str = ""
    #: Overrides that change with the replication: path -> values, replication r takes the
    #: value r modulo the list's length (e.g. flow start times, to vary the phase).
    per_replication: dict[str, list[Any]] = field(default_factory=dict)

    def mode(self, mode: str) -> dict[str, Any]:
        return self.modes.get(mode, {})


@dataclass
class Metric:
    name: str
    expr: str
    each: dict[str, str] | None = None
    dim: str = "source"
    unit: str = ""
    label: str = ""
    #: The key of this quantity in published.json / peers.json (default: the metric's name).
    paper: str = ""


@dataclass
class Study:
    name: str
    dir: Path
    title: str
    paper: str
    summary: str
    experiments: list[Experiment]
    metrics: dict[str, Metric]
    tables: list[dict[str, Any]]
    figures: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    published: dict[str, Any]
    peers: dict[str, Any]
    tolerance: float = 0.10
    order: int = 100

    def experiment(self, name: str) -> Experiment:
        for e in self.experiments:
            if e.name == name:
                return e
        raise StudyError(f"{self.dir / 'study.toml'}: no experiment named {name!r}")

    def n_runs(self, mode: str) -> int:
        return sum(
            len(points(e, mode)) * replications(e, mode)
            for e in self.experiments
            if not e.mode(mode).get("skip")
        )


def _err(path: Path, where: str, msg: str) -> StudyError:
    return StudyError(f"{path}: {where}: {msg}")


def _parse_param(path: Path, name: str, spec: Any) -> Param:
    where = f"experiment.params.{name}"
    if isinstance(spec, list):
        vals = []
        for i, item in enumerate(spec):
            if not isinstance(item, Mapping) or "label" not in item:
                raise _err(path, f"{where}[{i}]", "each entry needs a `label` and overrides")
            ov = {
                k: Deferred(v[1:].strip(), item["label"])
                if isinstance(v, str) and v.startswith("=")
                else v
                for k, v in item.items()
                if k != "label" and not k.startswith("$")
            }
            var = {k[1:]: v for k, v in item.items() if k.startswith("$")}
            vals.append(ParamValue(item["label"], ov, var))
        return Param(name, vals)
    if isinstance(spec, Mapping) and "values" in spec:
        target = spec.get("set", {})
        vals = []
        for v in spec["values"]:
            if isinstance(target, str):
                ov = {target: v}
            elif isinstance(target, Mapping):
                ov = {}
                for k, tmpl in target.items():
                    if isinstance(tmpl, str) and tmpl.startswith("="):
                        ov[k] = Deferred(tmpl[1:].strip(), v)
                    elif tmpl == "{}":
                        ov[k] = v
                    else:
                        ov[k] = tmpl.format(v) if isinstance(tmpl, str) else tmpl
            else:
                raise _err(path, f"{where}.set", "a dotted path or a table {path = template}")
            vals.append(ParamValue(v, ov))
        return Param(name, vals)
    raise _err(path, where, "expected {values = [...], set = ...} or a list of {label = ..., ...}")


def load_study(sdir: Path) -> Study:
    """Reads ``sdir/study.toml`` and the published/peer data next to it."""
    path = sdir / "study.toml"
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StudyError(f"{path}: no such study file") from None
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{path}: {e}") from None
    head = doc.get("study", {})
    exps = []
    for i, e in enumerate(doc.get("experiment", [])):
        if "name" not in e or "scenario" not in e:
            raise _err(path, f"experiment[{i}]", "needs `name` and `scenario`")
        sc = sdir / e["scenario"]
        if not sc.exists():
            raise _err(path, f"experiment[{i}].scenario", f"{sc} does not exist")
        params = [_parse_param(path, k, v) for k, v in (e.get("params") or {}).items()]
        modes = {m: dict(e.get(m) or {}) for m in ("quick", "tiny", "full")}
        exps.append(
            Experiment(
                name=e["name"],
                scenario=sc,
                params=params,
                set=dict(e.get("set") or {}),
                replications=int(e.get("replications", 1)),
                root_seed=int(e.get("root_seed", 1)),
                modes=modes,
                description=e.get("description", ""),
                per_replication={
                    k: _as_list(v) for k, v in (e.get("per_replication") or {}).items()
                },
            )
        )
    metrics = {}
    for k, v in (doc.get("metrics") or {}).items():
        if isinstance(v, str):
            metrics[k] = Metric(k, v)
        elif isinstance(v, Mapping) and "expr" in v:
            metrics[k] = Metric(
                k,
                v["expr"],
                v.get("each"),
                v.get("dim", "source"),
                v.get("unit", ""),
                v.get("label", ""),
                v.get("paper", ""),
            )
        else:
            raise _err(path, f"metrics.{k}", "an expression or {expr = ..., each = ...}")

    def _json(name: str) -> dict[str, Any]:
        p = sdir / name
        if not p.exists():
            return {}
        try:
            return json.loads(p.read_text(encoding="utf-8"))
        except json.JSONDecodeError as e:
            raise StudyError(f"{p}: {e}") from None

    st = Study(
        name=sdir.name,
        dir=sdir,
        title=head.get("title", sdir.name),
        paper=head.get("paper", ""),
        summary=head.get("summary", ""),
        experiments=exps,
        metrics=metrics,
        tables=list(doc.get("table", [])),
        figures=list(doc.get("figure", [])),
        claims=list(doc.get("claim", [])),
        published=_json(head.get("published", "published.json")),
        peers=_json(head.get("peers", "peers.json")),
        tolerance=float(head.get("tolerance", 0.10)),
        order=int(head.get("order", 100)),
    )
    for t in st.tables + st.figures:
        if t.get("experiment"):
            st.experiment(t["experiment"])
        for m in _as_list(t.get("columns")) + _as_list(t.get("y")):
            if m not in metrics:
                raise _err(path, f"{t.get('id')}", f"unknown metric {m!r}")
    return st


def list_studies(sdir: Path) -> list[Study]:
    out = [load_study(p.parent) for p in sorted(sdir.glob("*/study.toml"))]
    return sorted(out, key=lambda s: (s.order, s.name))


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


# -- runs --------------------------------------------------------------------------------------


def replications(e: Experiment, mode: str) -> int:
    m = e.mode(mode)
    if "replications" in m:
        return int(m["replications"])
    if mode == "tiny":
        return 1
    if mode == "quick":
        return min(2, e.replications)
    return e.replications


def _norm(x: Any) -> Any:
    """Labels compare as numbers when they are numbers, otherwise as strings."""
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int | float):
        return float(x)
    try:
        return float(str(x))
    except ValueError:
        return str(x)


def _match(value: Any, want: Any) -> bool:
    """A label matches a wanted value, or one of a list of wanted values."""
    if isinstance(want, list | tuple):
        return any(_norm(value) == _norm(w) for w in want)
    return _norm(value) == _norm(want)


def points(e: Experiment, mode: str) -> list[dict[str, ParamValue]]:
    subset = e.mode(mode).get("params") or {}
    factors = []
    for p in e.params:
        vals = p.values
        if p.name in subset:
            want = [_norm(x) for x in _as_list(subset[p.name])]
            vals = [v for v in vals if _norm(v.label) in want]
        factors.append([(p.name, v) for v in vals])
    return [dict(c) for c in itertools.product(*factors)]


@dataclass
class RunItem:
    exp: Experiment
    labels: dict[str, Any]
    overrides: list[str]
    replication: int
    seed: int


def plan(study: Study, mode: str, only: Sequence[str] | None = None) -> list[RunItem]:
    from bufferlab.scenario import normalise_overrides
    from bufferlab.sweep import replication_seed

    items = []
    for e in study.experiments:
        m = e.mode(mode)
        if m.get("skip") or (only and e.name not in only):
            continue
        # Precedence: the experiment's `set` < the point's parameters < the mode's settings
        # (its `set`, `duration`, `warmup`; --tiny defaults to 3 s without warm-up).
        mode_set: dict[str, Any] = {}
        if mode == "tiny":
            mode_set.update(duration="3s", warmup="0s")
        mode_set.update(m.get("set") or {})
        for key in ("duration", "warmup"):
            if m.get(key):
                mode_set[key] = m[key]
        for pt in points(e, mode):
            ov: dict[str, Any] = {}
            for pv in pt.values():
                ov.update(pv.overrides)
            final = {**e.set, **ov, **mode_set}
            labels = {k: v.label for k, v in pt.items()}
            ctx: dict[str, Any] = dict(labels)
            for pv in pt.values():
                ctx.update(pv.vars)
            for k, v in list(final.items()):
                if isinstance(v, Deferred):
                    final[k] = _eval(v.expr, {**_MATH, **ctx, "v": v.value})
            for r in range(replications(e, mode)):
                per = {k: v[r % len(v)] for k, v in e.per_replication.items() if v}
                items.append(
                    RunItem(
                        e,
                        labels,
                        normalise_overrides({**final, **per}),
                        r,
                        replication_seed(e.root_seed, r),
                    )
                )
    return items


def execute(
    items: list[RunItem],
    jobs: int,
    keep_series: Callable[[RunItem], bool],
    progress: Callable[[int, int], None] | None = None,
    measure: Callable[[dict[str, Any]], dict[str, float]] | None = None,
) -> list[dict[str, Any]]:
    """Runs the items on ``jobs`` threads; returns one record per run (report dict or error)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from bufferlab.scenario import load
    from bufferlab.sweep import execute_run

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


# -- metrics -----------------------------------------------------------------------------------


def _get(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if isinstance(obj, Mapping):
            obj = obj.get(part)
        else:
            return None
    return obj


def _num(x: Any) -> float:
    if x is None:
        return math.nan
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _mean(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    return math.fsum(v) / len(v) if v else math.nan


def _std(xs: Iterable[Any]) -> float:
    """Population standard deviation (as the papers' fairness tables use)."""
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    if not v:
        return math.nan
    m = math.fsum(v) / len(v)
    return math.sqrt(math.fsum((x - m) ** 2 for x in v) / len(v))


def _sample_std(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    if len(v) < 2:
        return math.nan
    m = math.fsum(v) / len(v)
    return math.sqrt(math.fsum((x - m) ** 2 for x in v) / (len(v) - 1))


def _jain(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    v = [x for x in v if not math.isnan(x)]
    s2 = math.fsum(x * x for x in v)
    return (math.fsum(v) ** 2) / (len(v) * s2) if v and s2 > 0 else math.nan


def _sum(xs: Iterable[Any]) -> float:
    v = [_num(x) for x in xs]
    return math.fsum(x for x in v if not math.isnan(x))


def metric_namespace(report: Mapping[str, Any], labels: Mapping[str, Any]) -> dict[str, Any]:
    flows_ = report.get("flows") or []

    def flows(pattern: str = "*", fld: str = "goodput_bps", proto: str | None = None) -> list:
        return [
            _get(f, fld)
            for f in flows_
            if fnmatch.fnmatchcase(str(f.get("name")), pattern)
            and (proto is None or f.get("protocol") == proto)
        ]

    def flow(name: str, fld: str) -> Any:
        """A flow's field; NaN when the scenario has no such flow (e.g. no UDP flow)."""
        for f in flows_:
            if f.get("name") == name:
                v = _get(f, fld)
                return math.nan if v is None else v
        return math.nan

    def queue(lnk: str, fld: str, frm: str | None = None) -> Any:
        for q in report.get("queues") or []:
            if q.get("link") == lnk and (frm is None or q.get("from") == frm):
                return _get(q, fld)
        return None

    def link(lnk: str, fld: str, frm: str | None = None) -> Any:
        for q in report.get("links") or []:
            if q.get("link") == lnk and (frm is None or q.get("from") == frm):
                return _get(q, fld)
        return None

    def fairness(fld: str) -> Any:
        return (report.get("fairness") or {}).get(fld)

    return {
        "flows": flows,
        "flow": flow,
        "queue": queue,
        "link": link,
        "fairness": fairness,
        "P": dict(labels),
        "R": report,
        "sum": _sum,
        "mean": _mean,
        "std": _std,
        "sstd": _sample_std,
        "jain": _jain,
        "min": min,
        "max": max,
        "len": len,
        "abs": abs,
        "sqrt": math.sqrt,
        "nan": math.nan,
        "num": _num,
        "float": float,
        "int": int,
        "round": round,
        "zip": zip,
    }


_MATH = {
    "sqrt": math.sqrt,
    "round": round,
    "max": max,
    "min": min,
    "int": int,
    "str": str,
    "float": float,
    "ceil": math.ceil,
    "floor": math.floor,
    "format": format,
    "range": range,
    "len": len,
}


def _eval(expr: str, ns: Mapping[str, Any]) -> Any:
    # The names go in as globals, so comprehensions inside the expression see them too.
    return eval(
        expr, {"__builtins__": {}, **ns}
    )  # study files are trusted (they are part of the repository)


def run_metrics(study: Study, rec: Mapping[str, Any], errors: dict[str, str]) -> dict[str, float]:
    out: dict[str, float] = {}
    rep = rec.get("report")
    if rep is None:
        return out
    ns = metric_namespace(rep, rec["labels"])
    for m in study.metrics.values():
        keys = (
            [(m.name, None)] if not m.each else [(f"{m.name}[{k}]", v) for k, v in m.each.items()]
        )
        for key, fl in keys:
            try:
                v = _num(_eval(m.expr, {**ns, "F": fl}))
            except Exception as e:  # a metric a scenario cannot give (e.g. no TCP flow)
                errors.setdefault(m.name, f"{type(e).__name__}: {e}")
                v = math.nan
            out[key] = v
    return out


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
        return exp, tuple(_norm(labels.get(p.name)) for p in e.params)

    def aggregate(self) -> None:
        from bufferlab.stats import summarize

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
            if all(_match(lab.get(k), w) for k, w in where.items() if k in lab):
                key = self.point_key(exp, lab)
                if key not in seen:
                    seen.add(key)
                    out.append(lab)
        order = {p.name: [_norm(x) for x in p.labels()] for p in e.params}
        keys = [k for k in sort_by if k in order] + [k for k in order if k not in sort_by]

        def sort_key(lab: Mapping[str, Any]) -> tuple:
            return tuple(
                order[p].index(_norm(lab[p])) if _norm(lab[p]) in order[p] else 0 for p in keys
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
    series_exps = {f.get("experiment") for f in study.figures if f.get("kind") in ("queue", "cwnd")}

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


# -- tables ------------------------------------------------------------------------------------


def _published_rows(data: Mapping[str, Any], key: str | None) -> list[dict[str, Any]]:
    if not key:
        return []
    t = data.get("tables", {}).get(key) if "tables" in data else data.get(key)
    if isinstance(t, Mapping):
        return list(t.get("rows", []))
    return list(t or [])


def _lookup(rows: list[dict[str, Any]], labels: Mapping[str, Any], metric: str) -> Any:
    for r in rows:
        if metric in r and all(_match(r.get(k), v) for k, v in labels.items() if k in r):
            return r[metric]
    return None


def _fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    x = float(x)
    if math.isnan(x):
        return "-"
    if x.is_integer() and abs(x) < 1e15:
        return f"{int(x):,}".replace(",", " ")
    a = abs(x)
    if a >= 1000 or (a == int(a) and a >= 10):
        return f"{x:,.0f}".replace(",", " ")
    if a >= 100:
        return f"{x:.1f}"
    if a >= 10:
        return f"{x:.2f}"
    if a >= 0.01 or a == 0:
        return f"{x:.{digits}f}"
    return f"{x:.2g}"


@dataclass
class TableOut:
    spec: dict[str, Any]
    header: list[str]
    rows: list[list[str]]
    flags: int
    cells: list[dict[str, Any]]  # machine-readable: labels, metric, bufferlab, paper, peers


def build_table(out: Outcome, spec: Mapping[str, Any]) -> TableOut:
    st = out.study
    exp = spec["experiment"]
    where = dict(spec.get("where") or {})
    row_keys = _as_list(spec.get("rows"))
    cols = _as_list(spec.get("columns"))
    pub = _published_rows(st.published, spec.get("published"))
    peer_names = _as_list(spec.get("peers"))
    peer_rows = {
        p: _published_rows(st.peers.get(p, {}), spec.get("peer_table", spec.get("published")))
        for p in peer_names
    }
    tol = float(spec.get("tolerance", st.tolerance))
    labels_list = out.matching(exp, where, row_keys)
    # Row dimensions that are not parameters come from `each` metrics (e.g. source S1..S4).
    params = {p.name for p in st.experiment(exp).params}
    each_dims = [k for k in row_keys if k not in params]
    each_vals: list[dict[str, str]] = [{}]
    if each_dims:
        dim = each_dims[0]
        m0 = next(
            (st.metrics[c] for c in cols if st.metrics[c].each and st.metrics[c].dim == dim), None
        )
        each_vals = [{dim: k} for k in (m0.each or {})] if m0 else [{}]
    header = [str(k) for k in row_keys]
    for c in cols:
        lab = st.metrics[c].label or c
        header += [f"{lab} bufferlab"] + ([f"{lab} paper"] if pub or spec.get("published") else [])
        header += [f"{lab} {p}" for p in peer_names]
        if spec.get("published"):
            header += ["Δ"]
    rows, cells, flags = [], [], 0
    for lab in labels_list:
        for ev in each_vals:
            full = {**lab, **ev}
            row = [str(full.get(k, "")) for k in row_keys]
            for c in cols:
                mkey = f"{c}[{ev[st.metrics[c].dim]}]" if st.metrics[c].each and ev else c
                s = out.stat(exp, lab, mkey) or {}
                mean, half, n = s.get("mean", math.nan), s.get("ci_half", math.nan), s.get("n", 0)
                cell = _fmt(mean)
                if n and n > 1 and not math.isnan(half):
                    cell += f" ±{_fmt(half)}" if half > 0 else " ±0"
                row.append(cell)
                p = (
                    _lookup(pub, {**where, **full}, st.metrics[c].paper or c)
                    if spec.get("published")
                    else None
                )
                if spec.get("published"):
                    row.append(_fmt(p))
                pv = {}
                for pn in peer_names:
                    pv[pn] = _lookup(peer_rows[pn], {**where, **full}, st.metrics[c].paper or c)
                    row.append(_fmt(pv[pn]))
                delta = None
                if spec.get("published"):
                    if isinstance(p, int | float) and p != 0 and not math.isnan(mean):
                        delta = (mean - p) / abs(p)
                        outside_ci = math.isnan(half) or abs(mean - p) > half
                        flag = abs(delta) > tol and outside_ci
                        flags += flag
                        row.append(f"{delta * 100:+.0f}%" + (" †" if flag else ""))
                    else:
                        row.append("-")
                cells.append(
                    {
                        "labels": full,
                        "metric": c,
                        "bufferlab": mean,
                        "ci_half": half,
                        "n": n,
                        "paper": p,
                        "peers": pv,
                        "delta": delta,
                    }
                )
            rows.append(row)
    return TableOut(dict(spec), header, rows, flags, cells)


def print_table(t: TableOut, console: Any) -> None:
    from rich import box
    from rich.table import Table

    title = f"{t.spec.get('id', '')}: {t.spec.get('title', '')}".strip(": ")
    tab = Table(title=title, box=box.SIMPLE_HEAVY, title_justify="left", pad_edge=False)
    for i, h in enumerate(t.header):
        style = (
            "cyan" if h.endswith("paper") else ("magenta" if h.endswith(("ns-2", "ns-3")) else None)
        )
        tab.add_column(
            h, justify="left" if i < len(_as_list(t.spec.get("rows"))) else "right", style=style
        )
    for r in t.rows:
        tab.add_row(*r)
    console.print(tab)


def markdown_table(t: TableOut) -> str:
    lines = ["| " + " | ".join(t.header) + " |", "|" + "---|" * len(t.header)]
    lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in t.rows]
    return "\n".join(lines)


# -- figures -----------------------------------------------------------------------------------


def _label_value(x: Any) -> float | None:
    n = _norm(x)
    return n if isinstance(n, float) else None


def draw_figure(out: Outcome, spec: Mapping[str, Any], out_dir: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = spec.get("kind", "line")
    fn = {"line": _fig_line, "bars": _fig_bars, "queue": _fig_queue, "cwnd": _fig_cwnd}.get(kind)
    if fn is None:
        raise StudyError(
            f"{out.study.dir / 'study.toml'}: {spec.get('id')}: unknown figure kind {kind!r}"
        )
    fig = fn(out, spec, plt)
    if fig is None:
        return None
    fid = str(spec.get("id", "figure")).lower().replace(" ", "_").replace("/", "-")
    path = out_dir / f"{out.study.name}_{fid}.png"
    out_dir.mkdir(parents=True, exist_ok=True)
    # Smoke tests (--tiny) only check that figures are drawn: draw them cheaply.
    fig.savefig(path, dpi=50 if out.mode == "tiny" else 110, bbox_inches="tight")
    plt.close(fig)
    return path


def _panels(out: Outcome, spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    exp = out.study.experiment(spec["experiment"])
    where = dict(spec.get("where") or {})
    pname = spec.get("panels")
    if not pname:
        return [where]
    present = {_norm(lab.get(pname)) for lab in out.matching(exp.name, where)}
    p = next(p for p in exp.params if p.name == pname)
    return [{**where, pname: lab} for lab in p.labels() if _norm(lab) in present]


def _grid(plt: Any, n: int, spec: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    cols = int(spec.get("cols", min(n, 3)))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    flat = [a for r in axes for a in r]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n]


def _fig_line(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    st = out.study
    exp = spec["experiment"]
    xs_name = spec["x"]
    ys = _as_list(spec["y"])
    series = spec.get("series")
    pub = _published_rows(st.published, spec.get("published"))
    panels = _panels(out, spec)
    fig, axes = _grid(plt, len(panels) * len(ys) if spec.get("split_y") else len(panels), spec)
    ai = 0
    for pw in panels:
        for yi, y in enumerate(ys):
            if spec.get("split_y") or yi == 0:
                ax = axes[ai]
                ai += 1
            labs = out.matching(exp, pw)
            groups: dict[Any, list[dict[str, Any]]] = {}
            for lab in labs:
                groups.setdefault(lab.get(series) if series else "", []).append(lab)
            for gi, (g, gl) in enumerate(groups.items()):
                color = f"C{(gi + yi * len(groups)) % 10}"
                xv, yv, ev = [], [], []
                for lab in gl:
                    s = out.stat(exp, lab, y) or {}
                    x = _label_value(lab[xs_name])
                    if x is None:
                        continue
                    xv.append(x)
                    yv.append(s.get("mean", math.nan))
                    ev.append(s.get("ci_half", math.nan))
                name = st.metrics[y].label or y
                lbl = (f"{series}={g}" if series else "") + (f" {name}" if len(ys) > 1 else "")
                ev = [0 if math.isnan(e) else e for e in ev]
                ax.errorbar(
                    xv,
                    yv,
                    yerr=ev,
                    marker="o",
                    ms=4,
                    color=color,
                    capsize=2,
                    label=f"bufferlab {lbl}".strip(),
                )
                if pub:
                    pp = []
                    for lab in gl:
                        v = _lookup(pub, {**pw, **lab}, st.metrics[y].paper or y)
                        x = _label_value(lab[xs_name])
                        if v is not None and x is not None:
                            pp.append((x, float(v)))
                    if pp:
                        ax.plot(
                            *zip(*pp, strict=True),
                            ls="--",
                            marker="x",
                            color=color,
                            alpha=0.7,
                            label=f"paper {lbl}".strip(),
                        )
            if spec.get("model") and yi == 0:
                xsorted = sorted({_label_value(lab[xs_name]) for lab in labs} - {None})
                if xsorted:
                    grid = [xsorted[0] + (xsorted[-1] - xsorted[0]) * i / 200 for i in range(201)]
                    ns = {
                        "P": pw,
                        "sqrt": math.sqrt,
                        "erf": math.erf,
                        "min": min,
                        "max": max,
                        "pi": math.pi,
                    }
                    try:
                        mv = [_eval(spec["model"], {**ns, "x": x}) for x in grid]
                        ax.plot(grid, mv, ls=":", color="k", label=spec.get("model_label", "model"))
                    except Exception:  # a model is an optional overlay
                        pass
            for vl in _as_list(spec.get("vlines")):
                try:
                    xv = _eval(str(vl["at"]), {"P": pw, "sqrt": math.sqrt})
                except Exception:
                    continue
                ax.axvline(xv, ls="-.", color="grey", lw=1)
                ax.annotate(
                    vl.get("label", ""),
                    (xv, 0.02),
                    xycoords=("data", "axes fraction"),
                    rotation=90,
                    fontsize=8,
                    color="grey",
                )
            if spec.get("logx"):
                ax.set_xscale("log")
            if spec.get("ylim"):
                ax.set_ylim(*spec["ylim"])
            ax.set_xlabel(spec.get("xlabel", xs_name))
            ax.set_ylabel(spec.get("ylabel", st.metrics[y].label or y))
            if spec.get("panels"):
                ax.set_title(f"{spec['panels']} = {pw[spec['panels']]}", fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle(f"{spec.get('id', '')}: {spec.get('title', '')}", fontsize=11)
    fig.tight_layout()
    return fig


def _fig_bars(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    st = out.study
    exp = spec["experiment"]
    y = _as_list(spec["y"])[0]
    m = st.metrics[y]
    panels = _panels(out, spec)
    pub = _published_rows(st.published, spec.get("published"))
    fig, axes = _grid(plt, len(panels), spec)
    for ax, pw in zip(axes, panels, strict=True):
        labs = out.matching(exp, pw)
        xname = spec["x"]
        groups = list(m.each) if m.each else [None]
        width = 0.8 / max(1, len(groups))
        for gi, g in enumerate(groups):
            key = f"{y}[{g}]" if g else y
            vals = [(out.stat(exp, lab, key) or {}).get("mean", math.nan) for lab in labs]
            xs = [i + gi * width for i in range(len(labs))]
            ax.bar(xs, vals, width=width, color=f"C{gi}", label=f"{g or y}")
            if pub:
                pv = [
                    _lookup(pub, {**pw, **lab, **({m.dim: g} if g else {})}, m.paper or y)
                    for lab in labs
                ]
                pts = [(x, float(v)) for x, v in zip(xs, pv, strict=True) if v is not None]
                if pts:
                    ax.plot(
                        *zip(*pts, strict=True),
                        ls="none",
                        marker="_",
                        ms=14,
                        mew=2,
                        color="k",
                        label="paper" if gi == 0 else None,
                    )
        ax.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(labs))])
        ax.set_xticklabels([str(lab[xname]) for lab in labs], fontsize=8)
        ax.set_ylabel(spec.get("ylabel", m.label or y))
        if spec.get("panels"):
            ax.set_title(f"{spec['panels']} = {pw[spec['panels']]}", fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    fig.suptitle(f"{spec.get('id', '')}: {spec.get('title', '')}", fontsize=11)
    fig.tight_layout()
    return fig


def _series_of(
    out: Outcome, exp: str, labels: Mapping[str, Any], kind: str
) -> list[dict[str, Any]]:
    key = out.point_key(exp, labels)
    for rec in out.records:
        if (
            rec.get("ok")
            and rec["replication"] == 0
            and out.point_key(rec["experiment"], rec["labels"]) == key
        ):
            return ((rec.get("report") or {}).get("series") or {}).get(kind) or []
    return []


def _fig_queue(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    exp = spec["experiment"]
    lnk = spec.get("link", "bottleneck")
    panels = _panels(out, spec)
    what = _as_list(spec.get("show", ["packets", "average"]))
    fig, axes = _grid(plt, len(panels) * len(what), {**spec, "cols": len(what)})
    i = 0
    for pw in panels:
        labs = out.matching(exp, pw)
        for w in what:
            ax = axes[i]
            i += 1
            for gi, lab in enumerate(labs):
                ser = [s for s in _series_of(out, exp, lab, "queues") if s.get("link") == lnk]
                if not ser:
                    continue
                s = ser[0]
                t = s.get("t_s") or []
                v = s.get(w) or []
                if w == "average" and spec.get("average_unit") == "packets" and v:
                    div = float(spec.get("mean_pktsize", 1))
                    v = [x / div if x is not None else None for x in v]
                v = [math.nan if x is None else x for x in v]
                name = spec.get("series")
                ax.plot(
                    t[: len(v)],
                    v,
                    lw=0.8,
                    color=f"C{gi}",
                    label=f"{lab.get(name)}" if name else None,
                )
            ax.set_xlabel("time (s)")
            ax.set_ylabel(
                {
                    "packets": "queue (packets)",
                    "bytes": "queue (bytes)",
                    "average": spec.get("average_label", "average queue"),
                }.get(w, w)
            )
            if spec.get("panels"):
                ax.set_title(f"{spec['panels']} = {pw[spec['panels']]}", fontsize=10)
            ax.grid(alpha=0.3)
            if spec.get("series"):
                ax.legend(fontsize=7)
    fig.suptitle(f"{spec.get('id', '')}: {spec.get('title', '')}", fontsize=11)
    fig.tight_layout()
    return fig


def _fig_cwnd(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    exp = spec["experiment"]
    panels = _panels(out, spec)
    fig, axes = _grid(plt, len(panels), spec)
    tmax = spec.get("tmax")
    for ax, pw in zip(axes, panels, strict=True):
        labs = out.matching(exp, pw)
        if not labs:
            continue
        ser = _series_of(out, exp, labs[0], "tcp")
        for gi, s in enumerate(ser):
            t = s.get("t_s") or []
            mss = float(spec.get("mss", 1000))
            c = [math.nan if x is None else x / mss for x in (s.get("cwnd_bytes") or [])]
            if tmax:
                n = sum(1 for x in t if x <= tmax)
                t, c = t[:n], c[:n]
            ax.plot(t[: len(c)], c, lw=0.8, color=f"C{gi}", label=str(s.get("flow")))
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        if spec.get("panels"):
            ax.set_title(" ".join(f"{k}={v}" for k, v in pw.items()), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{spec.get('id', '')}: {spec.get('title', '')}", fontsize=11)
    fig.tight_layout()
    return fig


# -- claims ------------------------------------------------------------------------------------


def claim_namespace(out: Outcome) -> dict[str, Any]:
    st = out.study
    default_exp = st.experiments[0].name if st.experiments else ""

    def vals(metric: str, exp: str | None = None, **where: Any) -> list[float]:
        e = exp or default_exp
        return [
            (out.stat(e, lab, metric) or {}).get("mean", math.nan) for lab in out.matching(e, where)
        ]

    def m(metric: str, exp: str | None = None, **where: Any) -> float:
        return _mean(vals(metric, exp, **where))

    def series(metric: str, x: str, exp: str | None = None, **where: Any) -> list[float]:
        e = exp or default_exp
        p = next(p for p in st.experiment(e).params if p.name == x)
        return [
            m(metric, e, **{**where, x: lab})
            for lab in p.labels()
            if out.matching(e, {**where, x: lab})
        ]

    def pub(table: str, metric: str, **where: Any) -> float:
        rows = _published_rows(st.published, table)
        return _mean(
            r.get(metric)
            for r in rows
            if all(_norm(r.get(k)) == _norm(v) for k, v in where.items())
        )

    def labels(param: str, exp: str | None = None) -> list[Any]:
        e = exp or default_exp
        return [
            lab
            for lab in next(p for p in st.experiment(e).params if p.name == param).labels()
            if out.matching(e, {param: lab})
        ]

    def increasing(xs: Sequence[float], tol: float = 0.0) -> bool:
        return all(b >= a * (1 - tol) for a, b in itertools.pairwise(xs))

    def decreasing(xs: Sequence[float], tol: float = 0.0) -> bool:
        return all(b <= a * (1 + tol) for a, b in itertools.pairwise(xs))

    def flat(xs: Sequence[float], rel: float = 0.1) -> bool:
        v = [x for x in xs if not math.isnan(x)]
        return bool(v) and (max(v) - min(v)) <= rel * abs(_mean(v))

    def rel(a: float, b: float) -> float:
        return (a - b) / abs(b) if b else math.nan

    def order(d: Mapping[str, float], reverse: bool = False) -> list[str]:
        return [k for k, _ in sorted(d.items(), key=lambda kv: kv[1], reverse=reverse)]

    return {
        "m": m,
        "vals": vals,
        "series": series,
        "pub": pub,
        "labels": labels,
        "increasing": increasing,
        "decreasing": decreasing,
        "flat": flat,
        "rel": rel,
        "order": order,
        "mean": _mean,
        "std": _std,
        "jain": _jain,
        "min": min,
        "max": max,
        "abs": abs,
        "all": all,
        "any": any,
        "len": len,
        "sqrt": math.sqrt,
        "round": round,
        "sorted": sorted,
        "dict": dict,
        "list": list,
        "zip": zip,
        "isnan": math.isnan,
        "sum": _sum,
        "nan": math.nan,
        "format": format,
        "str": str,
        "range": range,
        "float": float,
        "int": int,
    }


def check_claims(out: Outcome) -> list[dict[str, Any]]:
    ns = claim_namespace(out)
    res = []
    for c in out.study.claims:
        verdict, evidence = "not checked", ""
        try:
            if c.get("check"):
                ok = _eval(c["check"], ns)
                verdict = "holds" if ok else "does not hold"
            if c.get("evidence"):
                evidence = _eval("f" + json.dumps(c["evidence"]), ns)
            if verdict == "does not hold" and "nan" in evidence.split():
                # A point the check needs did not run (e.g. --tiny or --quick subsets).
                verdict = "not checked"
                evidence += " (points missing in this mode)"
        except Exception as e:  # reported, not fatal (e.g. a tiny run lacks a point)
            verdict, evidence = "not checked", f"({type(e).__name__}: {e})"
        res.append(
            {
                "claim": c.get("text", ""),
                "source": c.get("source", ""),
                "verdict": verdict,
                "evidence": evidence,
                "note": c.get("note", ""),
            }
        )
    return res


# -- the report page ---------------------------------------------------------------------------


def write_markdown(
    out: Outcome,
    tables: list[TableOut],
    figs: list[tuple[dict, Path]],
    claims: list[dict[str, Any]],
    doc_path: Path,
    command: str,
) -> Path:
    from bufferlab import __version__

    st = out.study
    img_dir = doc_path.parent / st.name
    img_dir.mkdir(parents=True, exist_ok=True)
    lines = [f"# {st.title}", ""]
    lines += [f"Study `{st.name}` (source paper `seeds/{st.paper}`). {st.summary}".strip(), ""]
    runs_ok = sum(1 for r in out.records if r.get("ok"))
    lines += [
        "This page is written by `bufferlab study run`; the assumptions behind every scenario "
        "are in",
        f"[studies/{st.name}/README.md](../../studies/{st.name}/README.md).",
        "",
        f"* command: `{command}`",
        f"* date: {out.started}; bufferlab {__version__}; mode `{out.mode}`; "
        f"{runs_ok} runs ({len(out.records) - runs_ok} failed), {out.wall_s:.1f} s wall",
        "* cells: bufferlab mean ± 95 % Student-t half-width over replications (no ± with one "
        "replication); Δ = (bufferlab - paper) / paper; † marks |Δ| above the tolerance "
        f"({st.tolerance:.0%}, see README) with the paper's value outside the bufferlab interval.",
        "",
    ]
    if out.errors:
        lines += ["Problems met:", ""] + [f"* {k}: {v}" for k, v in out.errors.items()] + [""]
    lines += ["## Tables", ""]
    for t in tables:
        lines += [f"### {t.spec.get('id', '')}: {t.spec.get('title', '')}", ""]
        if t.spec.get("note"):
            lines += [t.spec["note"], ""]
        lines += [markdown_table(t), ""]
    if figs:
        lines += ["## Figures", ""]
        for spec, p in figs:
            dst = img_dir / p.name
            if p.resolve() != dst.resolve():
                shutil.copyfile(p, dst)
            lines += [f"### {spec.get('id', '')}: {spec.get('title', '')}", ""]
            if spec.get("note"):
                lines += [spec["note"], ""]
            lines += [f"![{spec.get('id', '')}]({st.name}/{p.name})", ""]
    lines += ["## The paper's conclusions, checked", ""]
    lines += ["| # | claim | verdict | evidence |", "|---|---|---|---|"]
    for i, c in enumerate(claims, 1):
        ev = (c["evidence"] + (f" {c['note']}" if c["note"] else "")).replace("|", "/")
        src = f" ({c['source']})" if c["source"] else ""
        lines.append(f"| {i} | {c['claim']}{src} | **{c['verdict']}** | {ev} |")
    lines.append("")
    disc = st.dir / "discussion.md"
    if disc.exists():
        lines += [disc.read_text(encoding="utf-8").rstrip(), ""]
    doc_path.parent.mkdir(parents=True, exist_ok=True)
    doc_path.write_text("\n".join(lines), encoding="utf-8")
    return doc_path


def save_outcome(
    out: Outcome, tables: list[TableOut], claims: list[dict[str, Any]], d: Path
) -> Path:
    """``DIR/NAME.json``: per-run metric values, the tables' cells and the claims."""
    d.mkdir(parents=True, exist_ok=True)
    p = d / f"{out.study.name}.json"

    def clean(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, Mapping):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [clean(v) for v in x]
        return x

    p.write_text(
        json.dumps(
            clean(
                {
                    "study": out.study.name,
                    "mode": out.mode,
                    "started": out.started,
                    "wall_s": out.wall_s,
                    "errors": out.errors,
                    "runs": out.values,
                    "tables": [{"id": t.spec.get("id"), "cells": t.cells} for t in tables],
                    "claims": claims,
                }
            ),
            indent=1,
        ),
        encoding="utf-8",
    )
    return p


# -- the command line --------------------------------------------------------------------------

study_app = typer.Typer(
    help="Reproduce the seed papers (studies/NAME) and compare with their published numbers.",
    no_args_is_help=True,
)

StudiesOpt = Annotated[
    Path | None,
    typer.Option(
        "--studies",
        help="The studies folder (default: ./studies or $BUFFERLAB_STUDIES).",
        show_default=False,
    ),
]


def _fail(msg: str) -> typer.Exit:
    sys.stdout.flush()
    print(f"error: {' '.join(str(msg).split())}", file=sys.stderr)
    return typer.Exit(2)


@study_app.command("list")
def list_cmd(studies: StudiesOpt = None) -> None:
    """List the studies with their paper and the number of runs per mode."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    try:
        sts = list_studies(studies_dir(studies))
    except StudyError as e:
        raise _fail(str(e)) from None
    tab = Table(box=box.SIMPLE_HEAVY, pad_edge=False)
    for c in (
        "study",
        "paper",
        "title",
        "runs full",
        "quick",
        "tiny",
        "tables",
        "figures",
        "claims",
    ):
        tab.add_column(c, justify="right" if c in ("runs full", "quick", "tiny") else "left")
    for s in sts:
        tab.add_row(
            s.name,
            s.paper,
            s.title,
            str(s.n_runs("full")),
            str(s.n_runs("quick")),
            str(s.n_runs("tiny")),
            str(len(s.tables)),
            str(len(s.figures)),
            str(len(s.claims)),
        )
    (Console() if sys.stdout.isatty() else Console(width=200)).print(tab)
    if not sts:
        print(f"no studies in {studies_dir(studies)}")


@study_app.command("run")
def run_cmd(
    name: Annotated[
        str, typer.Argument(help="A study name (see `bufferlab study list`) or `all`.")
    ],
    quick: Annotated[
        bool, typer.Option("--quick", help="Fewer replications, shorter runs.")
    ] = False,
    tiny: Annotated[
        bool,
        typer.Option(
            "--tiny",
            help=f"Smoke test: a few simulated seconds, 1 replication (also ${TINY_ENV}=1).",
        ),
    ] = False,
    out: Annotated[Path, typer.Option("--out", help="Where figures and per-run data go.")] = Path(
        "study-out"
    ),
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="Parallel runs (default: all cores).", show_default=False
        ),
    ] = None,
    docs: Annotated[
        bool | None,
        typer.Option(
            "--docs/--no-docs",
            help="Write docs/studies/NAME.md (default: yes except with --tiny).",
            show_default=False,
        ),
    ] = None,
    docs_dir: Annotated[
        Path | None,
        typer.Option(
            "--docs-dir",
            help="Folder of the study pages (default: docs/studies next to studies/).",
            show_default=False,
        ),
    ] = None,
    studies: StudiesOpt = None,
) -> None:
    """Run a study (or all): its tables beside the paper's, its figures and its page."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    tiny = tiny or os.environ.get(TINY_ENV, "") not in ("", "0")
    mode = "tiny" if tiny else ("quick" if quick else "full")
    sdir = studies_dir(studies)
    try:
        all_studies = list_studies(sdir)
    except StudyError as e:
        raise _fail(str(e)) from None
    if name == "all":
        chosen = all_studies
    else:
        chosen = [s for s in all_studies if s.name == name]
        if not chosen:
            names = ", ".join(s.name for s in all_studies) or "none"
            raise _fail(f"no study named {name!r} in {sdir} (studies: {names}, or `all`)")
    write_docs = (mode != "tiny") if docs is None else docs
    ddir = docs_dir or (repo_root(sdir) / "docs" / "studies")
    # Wide tables: do not wrap them at 80 columns when the output is not a terminal.
    console = Console() if sys.stdout.isatty() else Console(width=240)
    command = (
        "bufferlab study run " + name + {"full": "", "quick": " --quick", "tiny": " --tiny"}[mode]
    )
    failed = 0
    for st in chosen:
        console.rule(f"[bold]{st.name}[/]: {st.title}")
        n = st.n_runs(mode)
        with Progress(
            "{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        ) as prog:
            task = prog.add_task(f"{st.name} ({mode})", total=n)
            try:
                res = run_study(
                    st, mode, jobs, lambda d, t, task=task: prog.update(task, completed=d)
                )
            except StudyError as e:
                raise _fail(str(e)) from None
        ok = sum(1 for r in res.records if r.get("ok"))
        console.print(f"{ok}/{len(res.records)} runs ok in {res.wall_s:.1f} s ({mode})")
        for k, v in res.errors.items():
            console.print(f"[yellow]warning[/]: {k}: {v}")
        failed += len(res.records) - ok
        tabs = []
        for spec in st.tables:
            t = build_table(res, spec)
            tabs.append(t)
            print_table(t, console)
        figs = []
        for spec in st.figures:
            try:
                p = draw_figure(res, spec, out)
            except StudyError as e:
                raise _fail(str(e)) from None
            if p is not None:
                figs.append((spec, p))
                console.print(f"figure {spec.get('id')}: {p}")
        claims = check_claims(res)
        for i, c in enumerate(claims, 1):
            colour = {"holds": "green", "does not hold": "red"}.get(c["verdict"], "yellow")
            console.print(f"{i}. {c['claim']} -> [{colour}]{c['verdict']}[/] {c['evidence']}")
        save_outcome(res, tabs, claims, out)
        if write_docs:
            p = write_markdown(res, tabs, figs, claims, ddir / f"{st.name}.md", command)
            console.print(f"page: {p}")
    if failed:
        console.print(f"[yellow]{failed} runs failed[/] (see the warnings above)")
