"""Parameter sweeps with replications: the sweep file and its expansion into runs.

A sweep file (TOML) names a base scenario, the axes to vary and how many replications to run::

    [sweep]
    name = "buffer-vs-rate"
    base = "../examples/dumbbell_udp.toml"   # relative to this file (or an inline [base] table)
    replications = 5
    root_seed = 1
    metrics = ["flows.goodput_bps", "flows.delay_mean_s"]

    [grid]                                    # cartesian product of the axes
    "links.bottleneck.queue.limit" = ["5KB", "10KB", "20KB"]

    [[zip]]                                   # axes that vary together (one more grid axis)
    "links.bottleneck.rate" = ["1Mbps", "10Mbps"]
    duration = ["20s", "5s"]

Runs are points of the grid times replications. Replication ``r`` of every point uses the seed
``replication_seed(root_seed, r)`` (independent of the grid point, so points are compared under
the same random streams: common random numbers). Results go to a DuckDB store
(:mod:`bufferlab.experiments.store`); each finished run is committed as it finishes, and
running the same sweep again only runs what is missing or failed. See docs/experiments.md.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bufferlab.scenario import Scenario, normalise_overrides

if TYPE_CHECKING:
    pass

MASK64 = (1 << 64) - 1
#: The most runs (grid points x replications) one sweep may plan: checked from the axes'
#: lengths before anything is expanded, stored or run (docs/experiments.md, "Limits").
MAX_RUNS = 100_000


class SweepError(ValueError):
    """A sweep file is wrong; the message names the file and the field."""


# -- seeds ------------------------------------------------------------------------------------


def splitmix64(x: int) -> int:
    """One SplitMix64 step (Steele, Lea and Flood 2014): a 64-bit mixing function."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def replication_seed(root_seed: int, replication: int) -> int:
    """Seed of replication ``replication`` (0-based): ``splitmix64(root ^ splitmix64(r + 1))``.

    64-bit wrapping arithmetic. Depends only on the root seed and the replication index, never
    on the grid point or the order runs are executed in.
    """
    return splitmix64((root_seed & MASK64) ^ splitmix64(replication + 1))


# -- the sweep file ---------------------------------------------------------------------------

_SWEEP_KEYS = {"name", "base", "replications", "root_seed", "metrics", "description", "traces"}
_TRACE_KEYS = {"points", "replications", "dir", "ns2", "pcap", "links", "flows", "events"}
_TOP_KEYS = {"sweep", "base", "grid", "zip"}
DEFAULT_METRICS = ["flows.goodput_bps", "flows.delay_mean_s", "flows.loss_ratio"]


@dataclass(frozen=True)
class Point:
    """One point of the grid: its index and the value of every axis (axis order of the file)."""

    index: int
    params: dict[str, Any]

    def label(self) -> str:
        return ", ".join(f"{_short(k)}={_fmt(v)}" for k, v in self.params.items())


@dataclass(frozen=True)
class RunSpec:
    """One run: a grid point, a replication, its seed and its key in the store.

    ``overrides`` are applied after the point's parameters: a planned run (a study's) whose
    point is a set of labels rather than of the paths they set."""

    point: Point
    replication: int
    seed: int
    key: str
    overrides: tuple[str, ...] = ()


@dataclass
class Sweep:
    """A parsed sweep file."""

    name: str
    base: Scenario
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zips: list[dict[str, list[Any]]] = field(default_factory=list)
    replications: int = 1
    root_seed: int = 1
    metrics: list[str] = field(default_factory=lambda: list(DEFAULT_METRICS))
    file: str = "<string>"
    description: str = ""
    #: ``[sweep.traces]``: which runs write ns-2 traces / pcap files, and where.
    traces: dict[str, Any] | None = None
    #: Planned runs instead of a grid (:func:`planned_sweep`): their points are labels.
    planned: list[RunSpec] | None = None

    @property
    def axes(self) -> list[str]:
        """Every varied path: the grid axes, then the zipped ones, in file order (a planned
        sweep: its labels' names, in order)."""
        if self.planned is not None:
            return list(dict.fromkeys(k for r in self.planned for k in r.point.params))
        out = list(self.grid)
        for z in self.zips:
            out.extend(z)
        return out

    def grid_json(self) -> dict[str, Any]:
        return {"grid": self.grid, "zip": self.zips}

    def points(self) -> list[Point]:
        """The grid points: the cartesian product of the grid axes and the zip groups."""
        if self.planned is not None:
            return list({r.point.index: r.point for r in self.planned}.values())
        factors: list[list[dict[str, Any]]] = []
        for path, values in self.grid.items():
            factors.append([{path: v} for v in values])
        for group in self.zips:
            n = len(next(iter(group.values())))
            factors.append([{p: vals[i] for p, vals in group.items()} for i in range(n)])
        out = []
        for i, combo in enumerate(itertools.product(*factors)):
            params: dict[str, Any] = {}
            for part in combo:
                params.update(part)
            out.append(Point(i, params))
        return out

    def n_points(self) -> int:
        """How many points the grid has, without making them."""
        if self.planned is not None:
            return len({r.point.index for r in self.planned})
        return math.prod([len(v) for v in self.grid.values()] +
                         [len(next(iter(z.values()))) for z in self.zips])  # fmt: skip

    def runs(self, replications: int | None = None) -> list[RunSpec]:
        """Every run, point-major: all replications of point 0, then point 1, ..."""
        if self.planned is not None:
            return list(self.planned)
        reps = self.replications if replications is None else replications
        check_size(self.file, self.n_points(), reps, "replications")
        # each point's key text and each replication's seed made once (run_key's bytes)
        seeds = [replication_seed(self.root_seed, r) for r in range(reps)]
        out = []
        for p in self.points():
            head = _key_head(self.name, p.params)
            out.extend(RunSpec(p, r, seeds[r], _key(head, r)) for r in range(reps))
        return out

    def scenario_for(self, point: Point) -> Scenario:
        return self.base.with_overrides(point.params)

    def scenario_of(self, spec: RunSpec) -> Scenario:
        """The scenario one run runs: the base, the point's parameters, the run's overrides."""
        if self.planned is not None:
            return self.base.with_overrides(list(spec.overrides))
        sc = self.scenario_for(spec.point)
        return sc.with_overrides(list(spec.overrides)) if spec.overrides else sc

    def trace_outputs(self, spec: RunSpec) -> dict[str, Any] | None:
        """Trace arguments of `bufferlab.run` for a run chosen by ``[sweep.traces]``, else None.

        Files are named by the run key: ``<dir>/<key>.tr`` and ``<dir>/<key>.pcap/``.
        """
        t = self.traces
        if not t:
            return None
        if "points" in t and spec.point.index not in t["points"]:
            return None
        if spec.replication not in t.get("replications", [0]):
            return None
        d = Path(t.get("dir", "traces"))
        out: dict[str, Any] = {}
        if t.get("ns2", True):
            out["ns2_trace"] = str(d / f"{spec.key}.tr")
            out["trace_links"] = t.get("links")
            out["trace_flows"] = t.get("flows")
            out["trace_events"] = t.get("events")
        if t.get("pcap", False):
            out["pcap_dir"] = str(d / f"{spec.key}.pcap")
            out["pcap_links"] = t.get("links")
        return out


def planned_sweep(
    name: str,
    base: Scenario,
    runs: Sequence[tuple[Mapping[str, Any], int, int, Sequence[str]]],
    description: str = "",
    file: str = "<plan>",
    salt: str = "",
) -> Sweep:
    """A sweep of planned runs, each ``(labels, replication, seed, overrides)``: the labels
    name its point (one point per distinct labels, in order of appearance), the overrides say
    what it changes in ``base``. Studies run this way (:mod:`bufferlab.study.execute`), so their
    runs go to the results store like any sweep's (resume, query, Dask). ``salt`` joins every
    run's key: a run recorded under another salt is not reused."""
    index: dict[str, int] = {}
    specs = []
    for labels, rep, seed, overrides in runs:
        params = dict(labels)
        pk = json.dumps(sorted(params.items()), sort_keys=True, default=str)
        point = Point(index.setdefault(pk, len(index)), params)
        key = run_key(name, {**params, "$overrides": list(overrides), "$salt": salt}, rep)
        specs.append(RunSpec(point, rep, seed, key, tuple(overrides)))
    reps = max((r.replication for r in specs), default=0) + 1
    return Sweep(
        name=name,
        base=base,
        replications=reps,
        root_seed=0,
        file=file,
        description=description,
        planned=specs,
    )


def run_key(sweep_name: str, params: Mapping[str, Any], replication: int) -> str:
    """Key of a run: a hash of (sweep name, the point's parameters, replication)."""
    blob = json.dumps([sweep_name, sorted(params.items()), replication], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def _key_head(sweep_name: str, params: Mapping[str, Any]) -> str:
    """run_key's JSON text up to the replication (the same for all of a point's runs)."""
    return json.dumps([sweep_name, sorted(params.items())], sort_keys=True)[:-1] + ", "


def _key(head: str, replication: int) -> str:
    return hashlib.sha256(f"{head}{replication}]".encode()).hexdigest()[:20]


def _short(path: str) -> str:
    parts = path.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else path


def _fmt(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def check_size(source: str, points: int, replications: int, field_: str) -> None:
    """Refuses a sweep of more than MAX_RUNS runs before it is expanded."""
    if points * replications <= MAX_RUNS:
        return
    raise _err(
        source,
        field_,
        f"{points} grid point{'s' if points != 1 else ''} x {replications} replications = "
        f"{points * replications} runs, more than the {MAX_RUNS} one sweep may plan; split it "
        "into sweeps of fewer runs (each its own name and a part of the grid's values, in "
        "the same results database), or run fewer replications",
    )


def _err(source: str, field_: str, message: str) -> SweepError:
    return SweepError(f"{source}: {field_}: {message}")


def _check_values(source: str, where: str, values: Any) -> list[Any]:
    if not isinstance(values, list) or not values:
        raise _err(source, where, 'expected a non-empty list of values, e.g. ["5KB", "10KB"]')
    return values


def _flatten_axes(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Axes may be written quoted (``"a.b.c" = [...]``) or as TOML dotted keys (``a.b.c = [...]``,
    which TOML turns into nested tables): both give the path ``a.b.c``."""
    out: dict[str, Any] = {}
    for k, v in table.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten_axes(v, path + "."))
        else:
            out[path] = v
    return out


def parse_sweep(text: str, source: str = "<string>", base_dir: Path | None = None) -> Sweep:
    """Parses the text of a sweep file. Raises SweepError naming the field that is wrong."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{source}: not valid TOML: {e}") from None
    for k in doc:
        if k not in _TOP_KEYS:
            raise _err(
                source, k, "unknown table; a sweep file has [sweep], [base], [grid], [[zip]]"
            )
    sw = doc.get("sweep")
    if not isinstance(sw, dict):
        raise _err(source, "sweep", "missing [sweep] table (with name, base, replications)")
    for k in sw:
        if k not in _SWEEP_KEYS:
            raise _err(source, f"sweep.{k}", f"unknown key; expected one of {sorted(_SWEEP_KEYS)}")
    name = sw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _err(source, "sweep.name", "required: a non-empty string naming the sweep")

    # The base scenario: a file relative to the sweep file, or an inline [base] table.
    base_ref = sw.get("base")
    inline = doc.get("base")
    if base_ref is not None and inline is not None:
        raise _err(source, "sweep.base", 'give either sweep.base = "file" or a [base] table')
    if isinstance(base_ref, str):
        p = Path(base_ref)
        if not p.is_absolute() and base_dir is not None:
            p = base_dir / p
        if p.resolve() == Path(source).resolve():
            raise _err(
                source,
                "sweep.base",
                "names the sweep file itself; give the scenario file it varies",
            )
        try:
            base = Scenario(text=p.read_text(encoding="utf-8"), source=str(p))
        except OSError:
            raise _err(source, "sweep.base", f"cannot read the base scenario {str(p)!r}") from None
    elif base_ref is not None:
        raise _err(source, "sweep.base", "expected the path of a scenario file (a string)")
    elif isinstance(inline, dict):
        base = Scenario(text=_dump_toml(inline), source=f"{source} [base]")
    else:
        raise _err(source, "sweep.base", "required: a scenario file or an inline [base] table")

    reps = sw.get("replications", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or reps < 1:
        raise _err(source, "sweep.replications", f"expected an integer >= 1, got {reps!r}")
    root = sw.get("root_seed", 1)
    if not isinstance(root, int) or isinstance(root, bool) or not 0 <= root < 2**64:
        raise _err(source, "sweep.root_seed", f"expected an integer in 0..2^64, got {root!r}")
    metrics = sw.get("metrics", list(DEFAULT_METRICS))
    if not isinstance(metrics, list) or not all(isinstance(m, str) for m in metrics):
        raise _err(source, "sweep.metrics", 'expected a list of strings like "flows.goodput_bps"')
    from bufferlab.experiments.metrics import MetricError, parse_metric

    for i, m in enumerate(metrics):
        try:
            parse_metric(m)
        except MetricError as e:
            raise _err(source, f"sweep.metrics[{i}]", str(e)) from None

    grid_t = doc.get("grid", {})
    if not isinstance(grid_t, dict):
        raise _err(source, "grid", 'expected a table of "dotted.path" = [values]')
    grid = {p: _check_values(source, f"grid.{p}", v) for p, v in _flatten_axes(grid_t).items()}
    zips_t = doc.get("zip", [])
    if not isinstance(zips_t, list):
        raise _err(source, "zip", 'expected [[zip]] tables of "dotted.path" = [values]')
    zips: list[dict[str, list[Any]]] = []
    seen = set(grid)
    for i, z in enumerate(zips_t):
        group = {p: _check_values(source, f"zip[{i}].{p}", v) for p, v in _flatten_axes(z).items()}
        if not group:
            raise _err(source, f"zip[{i}]", "empty group; give at least one axis")
        lengths = {p: len(v) for p, v in group.items()}
        if len(set(lengths.values())) > 1:
            raise _err(
                source,
                f"zip[{i}]",
                f"axes that vary together need lists of the same length, got {lengths}",
            )
        zips.append(group)
    for z_i, group in enumerate(zips):
        for p in group:
            if p in seen:
                raise _err(source, f"zip[{z_i}].{p}", "axis given twice (in [grid] or another zip)")
            seen.add(p)
    sweep = Sweep(
        name=name.strip(),
        base=base,
        grid=grid,
        zips=zips,
        replications=reps,
        root_seed=root,
        metrics=metrics,
        file=source,
        description=str(sw.get("description", "")),
        traces=_parse_traces(source, sw.get("traces"), base_dir),
    )
    size_field = "sweep.replications" if reps > MAX_RUNS else "grid"
    check_size(source, sweep.n_points(), reps, size_field)
    for path in sweep.axes:
        try:
            normalise_overrides({path: 0})
        except Exception as e:
            raise _err(source, f"grid.{path}", str(e)) from None
    return sweep


def _parse_traces(source: str, t: Any, base_dir: Path | None) -> dict[str, Any] | None:
    """``[sweep.traces]``: points (grid point indices, default all), replications (default
    [0]), dir (relative to the sweep file), ns2 (default true), pcap (default false), links,
    flows, events (filters)."""
    if t is None:
        return None
    if not isinstance(t, dict):
        raise _err(source, "sweep.traces", "expected a table, e.g. traces = { points = [0] }")
    for k in t:
        if k not in _TRACE_KEYS:
            raise _err(
                source, f"sweep.traces.{k}", f"unknown key; expected one of {sorted(_TRACE_KEYS)}"
            )
    for k in ("points", "replications"):
        if k in t and not (isinstance(t[k], list) and all(isinstance(i, int) for i in t[k])):
            raise _err(source, f"sweep.traces.{k}", "expected a list of integers, e.g. [0, 2]")
    out = dict(t)
    d = Path(str(t.get("dir", "traces")))
    if not d.is_absolute() and base_dir is not None:
        d = base_dir / d
    out["dir"] = str(d)
    return out


def load_sweep(path: str | os.PathLike[str]) -> Sweep:
    """Reads a sweep file. Raises SweepError (bad content) or OSError (unreadable file)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    return parse_sweep(text, source=str(path), base_dir=p.parent)


def _dump_toml(table: Mapping[str, Any]) -> str:
    """Writes a parsed TOML table back as TOML text (for an inline [base] scenario)."""
    import tomli_w

    return tomli_w.dumps(table)
