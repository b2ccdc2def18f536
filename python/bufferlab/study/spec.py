"""The study file: locating studies, parsing and validating ``study.toml``."""

import json
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bufferlab.study.expr import ExprError, check

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
    #: The study file's field it comes from (for error messages).
    where: str = ""


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
                k: Deferred(v[1:].strip(), item["label"], f"{where}[{i}].{k}")
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
                        ov[k] = Deferred(tmpl[1:].strip(), v, f"{where}.set.{k}")
                    elif tmpl == "{}":
                        ov[k] = v
                    else:
                        ov[k] = _fill(path, f"{where}.set.{k}", tmpl, v)
            else:
                raise _err(path, f"{where}.set", "a dotted path or a table {path = template}")
            vals.append(ParamValue(v, ov))
        return Param(name, vals)
    raise _err(path, where, "expected {values = [...], set = ...} or a list of {label = ..., ...}")


def _table(path: Path, where: str, x: Any) -> Any:
    if not isinstance(x, Mapping):
        raise _err(path, where, f"expected a table, not {type(x).__name__}")
    return x


def _tables(path: Path, where: str, x: Any) -> list[dict[str, Any]]:
    """An array of tables (``[[table]]``, ``[[figure]]`` ...), or a StudyError naming it."""
    if not isinstance(x, list):
        raise _err(
            path, where, f"expected an array of tables ([[{where}]]), not {type(x).__name__}"
        )
    for i, t in enumerate(x):
        _table(path, f"{where}[{i}]", t)
    return list(x)


def _fill(path: Path, where: str, tmpl: Any, value: Any) -> Any:
    """A ``set`` template with its ``{}`` replaced by the value (``"{}KB"``): only ``{}``, so
    that a template cannot reach the value's attributes or ask for a huge width as
    ``str.format`` would."""
    if not isinstance(tmpl, str):
        return tmpl
    if "{" not in tmpl and "}" not in tmpl:
        return tmpl
    if tmpl.replace("{}", "").count("{") or tmpl.replace("{}", "").count("}"):
        raise _err(path, where, f"{tmpl!r}: a template holds only `{{}}`, replaced by the value")
    return tmpl.replace("{}", str(value))


# -- names and files ---------------------------------------------------------------------------

#: A study's name (its folder): it names the files its runs write (NAME.json, NAME.md, NAME/).
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
_UNSAFE_FILE_CHARS = re.compile(r"[^a-z0-9_-]")
_SAFE_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,240}")


def check_study_name(name: str, where: str = "the study's folder name") -> str:
    if not isinstance(name, str) or not SAFE_NAME.fullmatch(name):
        raise StudyError(
            f"{where} {name!r}: a study is named by letters, digits, '_', '-' and '.' "
            "(at most 100, starting with a letter or digit); rename its folder"
        )
    return name


def child_file(folder: Path, name: str, suffix: str = "") -> Path:
    """The file ``name + suffix`` inside ``folder``, or a :class:`StudyError` if the name would
    leave it (``..``, ``/``, a NUL or control character). Uses :mod:`bufferlab.safe_path`
    where it exists."""
    try:
        from bufferlab.safe_path import child_path
    except ImportError:
        pass
    else:
        try:
            return Path(child_path(folder, name, suffix))
        except ValueError as e:
            raise StudyError(f"{folder}: {e}") from None
    if not _SAFE_FILE.fullmatch(name) or not _safe_suffix(suffix):
        raise StudyError(f"{folder}: {name + suffix!r} is not a plain file name inside it")
    return folder / (name + suffix)


def _safe_suffix(suffix: str) -> bool:
    return suffix == "" or bool(re.fullmatch(r"\.[A-Za-z0-9]{1,10}", suffix))


def figure_stem(study: str, spec: Mapping[str, Any]) -> str:
    """The file name (without ``.png``) of a figure: the study's name and the figure's id in
    lower case, spaces as ``_``, ``/`` as ``-`` and any other character but letters, digits,
    ``_`` and ``-`` as ``_`` (``queues_004_figures_9-12``): a plain name in the output folder,
    whatever the id."""
    fid = str(spec.get("id", "figure")).lower().replace(" ", "_").replace("/", "-")
    fid = _UNSAFE_FILE_CHARS.sub("_", fid)[:100]
    return f"{study}_{fid}"


def _inside(path: Path, sdir: Path, where: str, rel: Any) -> Path:
    """A file a study file names: inside the study's folder, or a StudyError."""
    if not isinstance(rel, str) or not rel or "\x00" in rel:
        raise _err(path, where, f"{rel!r}: expected a file name in the study's folder")
    p = sdir / rel
    try:
        inside = p.resolve().is_relative_to(sdir.resolve())
    except (OSError, ValueError):
        inside = False
    if not inside:
        raise _err(path, where, f"{rel!r} is outside the study's folder; copy the file into it")
    return p


# -- the expressions ---------------------------------------------------------------------------

#: The names each kind of expression reads (the namespaces are built by metrics.py, plan.py,
#: claims.py and figures.py; tests/test_hostile_study.py checks that they are these).
METRIC_NAMES = frozenset(
    ["flows", "flow", "queue", "link", "fairness", "transfers", "pct", "P", "R", "F", "sum",
     "mean", "std", "sstd", "jain", "min", "max", "len", "abs", "sqrt", "nan", "num", "float",
     "int", "round", "zip"]
)  # fmt: skip
PLAN_NAMES = frozenset(
    ["sqrt", "round", "max", "min", "int", "str", "float", "ceil", "floor", "format", "range",
     "len", "v"]
)  # fmt: skip
CLAIM_NAMES = frozenset(
    ["m", "vals", "series", "pub", "labels", "increasing", "decreasing", "flat", "rel", "order",
     "mean", "std", "jain", "min", "max", "abs", "all", "any", "len", "sqrt", "round", "sorted",
     "dict", "list", "zip", "isnan", "sum", "nan", "format", "str", "range", "float", "int"]
)  # fmt: skip
MODEL_NAMES = frozenset(["P", "sqrt", "erf", "min", "max", "pi", "x"])
VLINE_NAMES = frozenset(["P", "sqrt"])
#: The names above that are values, not functions (a function is only called, never read).
VALUE_NAMES = frozenset(["P", "R", "F", "nan", "pi", "x", "v"])


def evidence_expr(text: str) -> str:
    """A claim's ``evidence`` as the f-string expression it is evaluated as."""
    return "f" + json.dumps(text)


def _check_expr(
    path: Path, where: str, text: Any, names: Iterable[str], values: Iterable[str] = VALUE_NAMES
) -> None:
    """Checks one expression; of ``names``, all but ``values`` are functions."""
    names = frozenset(names)
    try:
        check(text, names, names - frozenset(values))
    except ExprError as e:
        raise _err(path, where, str(e)) from None


def check_expressions(st: "Study") -> None:
    """Checks every expression of the study before anything runs: a construct the language
    does not have, an unknown name or a bound passed is a StudyError naming its field."""
    path = st.dir / "study.toml"
    for m in st.metrics.values():
        _check_expr(path, f"metrics.{m.name}", m.expr, METRIC_NAMES)
    for e in st.experiments:
        # The point's labels and $vars are values (a parameter named `round` is its label).
        data = {p.name for p in e.params} | {k for p in e.params for v in p.values for k in v.vars}
        names = PLAN_NAMES | data
        for p in e.params:
            for v in p.values:
                for k, d in v.overrides.items():
                    if isinstance(d, Deferred):
                        where = d.where or f"experiment.params.{p.name}.{k}"
                        _check_expr(path, where, d.expr, names, VALUE_NAMES | data)
    for i, c in enumerate(st.claims):
        if not isinstance(c, Mapping):
            raise _err(path, f"claim[{i}]", "expected a table (text, check, evidence ...)")
        if c.get("check"):
            _check_expr(path, f"claim[{i}].check", c["check"], CLAIM_NAMES)
        if c.get("evidence"):
            if not isinstance(c["evidence"], str):
                raise _err(path, f"claim[{i}].evidence", "expected text")
            _check_expr(path, f"claim[{i}].evidence", evidence_expr(c["evidence"]), CLAIM_NAMES)
    for i, f in enumerate(st.figures):
        if f.get("model"):
            _check_expr(path, f"figure[{i}].model", f["model"], MODEL_NAMES)
        for j, vl in enumerate(as_list(f.get("vlines"))):
            if not isinstance(vl, Mapping) or "at" not in vl:
                raise _err(path, f"figure[{i}].vlines[{j}]", 'expected { at = "...", label = ... }')
            _check_expr(path, f"figure[{i}].vlines[{j}].at", str(vl["at"]), VLINE_NAMES)


def load_study(sdir: Path) -> Study:
    """Reads ``sdir/study.toml`` and the published/peer data next to it, and checks its names
    and expressions: a study folder is data, refused with one line naming the field if it
    asks for anything else."""
    path = sdir / "study.toml"
    try:
        return _load_study(sdir, path)
    except StudyError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
        # A field of the wrong type somewhere the checks above do not look.
        raise StudyError(f"{path}: {type(e).__name__}: {e}") from None


def _load_study(sdir: Path, path: Path) -> Study:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StudyError(f"{path}: no such study file") from None
    except tomllib.TOMLDecodeError as err:
        raise StudyError(f"{path}: {err}") from None
    except (UnicodeDecodeError, OSError) as err:
        raise StudyError(f"{path}: {err}") from None
    check_study_name(sdir.name, f"{path}: the study's folder name")
    head = _table(path, "study", doc.get("study", {}))
    exps = []
    for i, e in enumerate(_tables(path, "experiment", doc.get("experiment", []))):
        if "name" not in e or "scenario" not in e:
            raise _err(path, f"experiment[{i}]", "needs `name` and `scenario`")
        sc = _inside(path, sdir, f"experiment[{i}].scenario", e["scenario"])
        if not sc.exists():
            raise _err(path, f"experiment[{i}].scenario", f"{sc} does not exist")
        where = f"experiment[{i}]"
        for key in ("params", "set", "per_replication", "quick", "tiny", "full"):
            _table(path, f"{where}.{key}", e.get(key) or {})
        for m in ("quick", "tiny", "full"):
            for key in ("params", "set"):
                _table(path, f"{where}.{m}.{key}", (e.get(m) or {}).get(key) or {})
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
    for k, v in _table(path, "metrics", doc.get("metrics") or {}).items():
        if isinstance(v, Mapping) and v.get("each") is not None:
            each = v["each"]
            if not isinstance(each, Mapping) or not all(isinstance(x, str) for x in each.values()):
                raise _err(path, f"metrics.{k}.each", 'a table of names: { S1 = "tcp0", ... }')
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

    def _json(name: str, key: str) -> dict[str, Any]:
        p = _inside(path, sdir, f"study.{key}", name)
        if not p.exists():
            return {}
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
            raise StudyError(f"{p}: {type(e).__name__}: {e}") from None
        if not isinstance(data, dict):
            raise StudyError(f"{p}: expected a JSON object")
        return data

    st = Study(
        name=sdir.name,
        dir=sdir,
        title=head.get("title", sdir.name),
        paper=head.get("paper", ""),
        summary=head.get("summary", ""),
        experiments=exps,
        metrics=metrics,
        tables=_tables(path, "table", doc.get("table", [])),
        figures=_tables(path, "figure", doc.get("figure", [])),
        claims=_tables(path, "claim", doc.get("claim", [])),
        published=_json(head.get("published", "published.json"), "published"),
        peers=_json(head.get("peers", "peers.json"), "peers"),
        tolerance=float(head.get("tolerance", 0.10)),
        order=int(head.get("order", 100)),
    )
    for t in st.tables + st.figures:
        if t.get("experiment"):
            st.experiment(t["experiment"])
        for m in as_list(t.get("columns")) + as_list(t.get("y")):
            if m not in metrics:
                raise _err(path, f"{t.get('id')}", f"unknown metric {m!r}")
    stems: dict[str, int] = {}
    for i, f in enumerate(st.figures):
        stem = figure_stem(st.name, f)
        if stem in stems:
            raise _err(
                path,
                f"figure[{i}].id",
                f"{f.get('id')!r} writes the same file as figure[{stems[stem]}] ({stem}.png); "
                "give it another id",
            )
        stems[stem] = i
    check_expressions(st)
    return st


def list_studies(sdir: Path) -> list[Study]:
    out = [load_study(p.parent) for p in sorted(sdir.glob("*/study.toml"))]
    return sorted(out, key=lambda s: (s.order, s.name))


def as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]
