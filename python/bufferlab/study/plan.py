"""Planning: the grid points and replications of each experiment, as runs with overrides."""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bufferlab.study.expr import ExprError, evaluate
from bufferlab.study.metrics import MATH
from bufferlab.study.spec import Deferred, Experiment, ParamValue, Study, StudyError, as_list

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


def normalise_label(x: Any) -> Any:
    """Labels compare as numbers when they are numbers, otherwise as strings."""
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int | float):
        return float(x)
    try:
        return float(str(x))
    except ValueError:
        return str(x)


def label_matches(value: Any, want: Any) -> bool:
    """A label matches a wanted value, or one of a list of wanted values."""
    if isinstance(want, list | tuple):
        return any(normalise_label(value) == normalise_label(w) for w in want)
    return normalise_label(value) == normalise_label(want)


def points(e: Experiment, mode: str) -> list[dict[str, ParamValue]]:
    subset = e.mode(mode).get("params") or {}
    factors = []
    for p in e.params:
        vals = p.values
        if p.name in subset:
            want = [normalise_label(x) for x in as_list(subset[p.name])]
            vals = [v for v in vals if normalise_label(v.label) in want]
        factors.append([(p.name, v) for v in vals])
    return [dict(c) for c in itertools.product(*factors)]


def n_runs(study: Study, mode: str) -> int:
    """How many runs ``mode`` of the study makes."""
    return sum(
        len(points(e, mode)) * replications(e, mode)
        for e in study.experiments
        if not e.mode(mode).get("skip")
    )


@dataclass
class RunItem:
    exp: Experiment
    labels: dict[str, Any]
    overrides: list[str]
    replication: int
    seed: int


def plan(study: Study, mode: str, only: Sequence[str] | None = None) -> list[RunItem]:
    from bufferlab import ScenarioError
    from bufferlab.experiments.spec import replication_seed
    from bufferlab.scenario import normalise_overrides

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
                    try:
                        final[k] = evaluate(v.expr, {**MATH, **ctx, "v": v.value})
                    except ExprError as err:
                        raise StudyError(
                            f"{study.dir / 'study.toml'}: {v.where or f'{e.name}.{k}'}: {err}"
                        ) from None
            for r in range(replications(e, mode)):
                per = {k: v[r % len(v)] for k, v in e.per_replication.items() if v}
                try:
                    overrides = normalise_overrides({**final, **per})
                except ScenarioError as err:
                    raise StudyError(
                        f"{study.dir / 'study.toml'}: experiment {e.name!r}, point {labels}: {err}"
                    ) from None
                items.append(RunItem(e, labels, overrides, r, replication_seed(e.root_seed, r)))
    return items
