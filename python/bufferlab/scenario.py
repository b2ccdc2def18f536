"""Scenarios: the TOML text of a scenario file, where it came from, and pending overrides."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from bufferlab import _core
from bufferlab._core import ScenarioError
from bufferlab.toml_value import toml_inline

if TYPE_CHECKING:
    from bufferlab.results import Results

#: What `overrides=` accepts: a mapping ``{"dotted.path": value}``, a list of
#: ``"dotted.path=value"`` strings, or one such string.
Overrides = Mapping[str, Any] | Iterable[str] | str | None


class RunOptions(TypedDict, total=False):
    """The keyword options of a run (:func:`bufferlab.run` documents each)."""

    ns2_trace: str | os.PathLike[str] | None
    trace_links: list[str] | None
    trace_flows: list[str] | None
    trace_events: str | None
    pcap_dir: str | os.PathLike[str] | None
    pcap_links: list[str] | None
    progress: Callable[[float, float, int, float], bool | None] | None
    max_wall: float | None
    max_memory: int | None
    allow_python: bool


def _path(p: str | os.PathLike[str] | None) -> str | None:
    return None if p is None else os.fspath(p)


def _format_value(value: Any) -> str:
    """Writes a Python value the way the core reads an override value (TOML, or a bare string)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping | list | tuple):
        # Inline tables and arrays: JSON is close enough to TOML for scalars, strings and lists;
        # inline tables need `key = value`.
        return toml_inline(value)
    return str(value)


def normalise_overrides(overrides: Overrides) -> list[str]:
    """Turns any accepted form of overrides into ``["dotted.path=value", ...]``.

    Raises ScenarioError for a string that is not of the form ``dotted.path=value``.
    """
    if overrides is None:
        return []
    if isinstance(overrides, str):
        overrides = [overrides]
    out: list[str] = []
    if isinstance(overrides, Mapping):
        for key, value in overrides.items():
            key = str(key).strip()
            if not key:
                raise ScenarioError("override with an empty path: write it as dotted.path=value")
            out.append(f"{key}={_format_value(value)}")
        return out
    for spec in overrides:
        if not isinstance(spec, str):
            raise ScenarioError(
                f"override {spec!r}: write it as a string dotted.path=value, "
                "e.g. links.bottleneck.queue.limit=10KB"
            )
        path, sep, _ = spec.partition("=")
        if not sep or not path.strip():
            raise ScenarioError(
                f'override "{spec}": write it as dotted.path=value, '
                "e.g. links.bottleneck.queue.limit=10KB"
            )
        out.append(spec)
    return out


@dataclass(frozen=True)
class Scenario:
    """A scenario: TOML text, the source it came from (for error messages) and overrides.

    Immutable: :meth:`with_overrides` returns a new scenario.
    """

    text: str
    source: str = "<string>"
    overrides: tuple[str, ...] = field(default=())

    @classmethod
    def from_text(cls, text: str, source: str = "<string>") -> Scenario:
        return cls(text=text, source=source)

    @classmethod
    def from_dict(cls, scenario: Mapping[str, Any], source: str = "<dict>") -> Scenario:
        """A scenario built in Python: the dict is written as TOML text and read by the core,
        so it is checked by the same code, with the same messages, as a scenario file.

        ``Scenario.from_dict({"name": "x", "duration": "10s", "topology": {"kind":
        "dumbbell", "pairs": 1}, "links": {...}, "flows": [{...}]})``
        """
        import tomli_w

        _check_nesting(scenario, source)
        try:
            text = tomli_w.dumps(dict(scenario))
        except (TypeError, ValueError) as e:
            raise ScenarioError(
                f"{source}: {e}; give TOML values (strings, numbers, booleans, lists and "
                "dicts; leave out a key rather than setting it to None)"
            ) from None
        return cls(text=text, source=source)

    @property
    def path(self) -> Path | None:
        """The file the scenario was read from, if any."""
        return None if self.source.startswith("<") else Path(self.source)

    @property
    def name(self) -> str | None:
        """The scenario's ``name`` as written in the file (None if absent or unreadable)."""
        import tomllib  # here, not at the top: `import bufferlab` need not load a TOML parser

        try:
            name = tomllib.loads(self.text).get("name")
        except tomllib.TOMLDecodeError:
            return None
        return name if isinstance(name, str) else None

    def with_overrides(self, overrides: Overrides = None, /, **more: Any) -> Scenario:
        """Returns a copy with more overrides (applied after the existing ones).

        ``overrides`` is a mapping ``{"links.bottleneck.queue.limit": "10KB"}``, a list of
        ``"dotted.path=value"`` strings or one such string; keyword arguments add top-level
        fields (``duration="5s"``).
        """
        extra = normalise_overrides(overrides) + normalise_overrides(more)
        return replace(self, overrides=self.overrides + tuple(extra))

    def validate(self, *, allow_python: bool = False) -> dict[str, Any]:
        """Checks the scenario (with its overrides) and returns it normalised, as a dict.

        Raises ScenarioError naming the field and the fix. A Python class the scenario names
        is imported (its code run) only with ``allow_python``; without it, it is refused.
        """
        return json.loads(
            _core.validate(
                self.text,
                source=self.source,
                overrides=list(self.overrides),
                allow_python=allow_python,
            )
        )

    def resolve(self, seed: int | None = None, *, allow_python: bool = False) -> dict[str, Any]:
        """The network as the core builds it, every default filled in: each link direction's
        rate, delay and queue settings (the thresholds a RED preset resolves to), each flow's
        routed ``path``, ``rtt_propagation_s``, ``packet_size``, start and stop, and its
        resolved ``tcp`` settings; plus ``warnings``. Raises ScenarioError like validate().
        """
        both = json.loads(
            _core.resolve(
                self.text,
                source=self.source,
                seed=seed,
                overrides=list(self.overrides),
                allow_python=allow_python,
            )
        )
        resolved: dict[str, Any] = both["resolved"]
        return resolved

    def run(
        self, seed: int | None = None, overrides: Overrides = None, **options: Unpack[RunOptions]
    ) -> Results:
        """Runs the scenario; see :func:`bufferlab.run` for the arguments."""
        from bufferlab.results import Results

        sc = self
        _check_options(options)
        if seed is not None and (
            not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64
        ):
            raise _core.ScenarioError(f"seed: expected an integer in 0..2^64, got {seed!r}")
        specs = list(sc.overrides) + normalise_overrides(overrides)
        try:
            text = _run_core(sc, seed, specs, options)
        except (ScenarioError, _core.SimulationPanic):
            raise
        except Exception as e:
            if options.get("allow_python"):  # only then can a class of the user's have run
                from bufferlab.extend import blame

                blame(e, sc.text + "\n".join(specs))
            raise
        return Results.from_json(text)


def _run_core(sc: Scenario, seed: int | None, specs: list[str], options: RunOptions) -> str:
    return _core.run(  # type: ignore[no-any-return]
        sc.text,
        source=sc.source,
        seed=seed,
        overrides=specs,
        ns2_trace=_path(options.get("ns2_trace")),
        trace_links=options.get("trace_links"),
        trace_flows=options.get("trace_flows"),
        trace_events=options.get("trace_events"),
        pcap_dir=_path(options.get("pcap_dir")),
        pcap_links=options.get("pcap_links"),
        progress=options.get("progress"),
        max_wall=options.get("max_wall"),
        max_memory=options.get("max_memory"),
        allow_python=bool(options.get("allow_python", False)),
    )


# Nesting deeper than this is no scenario (a scenario file is a few tables deep): a dict that
# refers to itself, or a generated one gone wrong.
MAX_NESTING = 64


def _check_nesting(scenario: Any, source: str) -> None:
    """Refuses a dict that contains itself or nests deeper than MAX_NESTING (TOML writing
    would recurse until Python's limit), naming where."""
    stack: list[tuple[Any, str, int, frozenset[int]]] = [(scenario, "", 0, frozenset())]
    while stack:
        value, path, depth, above = stack.pop()
        if not isinstance(value, Mapping | list | tuple):
            continue
        where = path or "the top level"
        if id(value) in above:
            raise ScenarioError(
                f"{source}: {where}: the dict contains itself; give a tree of values (copy the "
                "part you mean to repeat)"
            )
        if depth >= MAX_NESTING:
            raise ScenarioError(
                f"{source}: {where}: nested more than {MAX_NESTING} levels deep; a scenario is "
                "a few tables deep (docs/scenario-reference.md)"
            )
        inner = above | {id(value)}
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        for k, v in items:
            if isinstance(v, Mapping | list | tuple):
                sub = f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}" if path else str(k)
                stack.append((v, sub, depth + 1, inner))


def _check_options(options: Mapping[str, Any]) -> None:
    """Refuses an option run() does not know (a misspelt `max_wal=3` would drop the limit)
    and a negative max_memory (Rust's u64 would raise OverflowError)."""
    known = sorted(RunOptions.__optional_keys__ | RunOptions.__required_keys__)
    for name in options:
        if name not in known:
            import difflib

            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise TypeError(
                f"run() got an unexpected keyword argument {name!r}; {hint}"
                f"the options are seed, overrides, {', '.join(known)}"
            )
    memory = options.get("max_memory")
    if memory is not None and (
        not isinstance(memory, int) or isinstance(memory, bool) or not 0 <= memory < 2**64
    ):
        raise ValueError(
            f"max_memory: expected a number of bytes, 0 or more (0: no limit), got {memory!r}"
        )


def load(path: str | os.PathLike[str]) -> Scenario:
    """Reads a scenario file. Raises FileNotFoundError (an OSError) if it cannot be read."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    return Scenario(text=text, source=str(path))
