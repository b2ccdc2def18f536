"""The study file: locating studies, parsing and validating ``study.toml``."""

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
                    k: as_list(v) for k, v in (e.get("per_replication") or {}).items()
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
        for m in as_list(t.get("columns")) + as_list(t.get("y")):
            if m not in metrics:
                raise _err(path, f"{t.get('id')}", f"unknown metric {m!r}")
    return st


def list_studies(sdir: Path) -> list[Study]:
    out = [load_study(p.parent) for p in sorted(sdir.glob("*/study.toml"))]
    return sorted(out, key=lambda s: (s.order, s.name))


def as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]
