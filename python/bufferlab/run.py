"""Running one scenario."""

from __future__ import annotations

import os
from pathlib import Path

from bufferlab import _core
from bufferlab.results import Results
from bufferlab.scenario import Overrides, Scenario, load, normalise_overrides


def as_scenario(scenario: Scenario | str | os.PathLike[str]) -> Scenario:
    """Accepts a Scenario, a path to a scenario file, or the TOML text of a scenario.

    A string is taken as TOML text when it spans several lines or contains ``=``, otherwise as
    a path.
    """
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, os.PathLike):
        return load(scenario)
    if isinstance(scenario, str):
        if "\n" in scenario or "=" in scenario:
            return Scenario.from_text(scenario)
        return load(Path(scenario))
    raise TypeError(f"expected a Scenario, a path or TOML text, not {type(scenario).__name__}")


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    overrides: Overrides = None,
) -> Results:
    """Runs a scenario to its end and returns its :class:`Results`.

    ``scenario`` is a :class:`Scenario`, a path to a TOML file or TOML text. ``seed`` replaces
    the scenario's seed. ``overrides`` (a dict ``{"dotted.path": value}`` or a list of
    ``"dotted.path=value"`` strings) are applied after the scenario's own overrides.

    The simulation runs with the GIL released, so threads run scenarios in parallel.
    Raises ScenarioError for an invalid scenario, SimulationPanic for a bug in the core.
    """
    sc = as_scenario(scenario)
    if seed is not None and (
        not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64
    ):
        raise _core.ScenarioError(f"seed: expected an integer in 0..2^64, got {seed!r}")
    specs = list(sc.overrides) + normalise_overrides(overrides)
    text = _core.run(sc.text, source=sc.source, seed=seed, overrides=specs)
    return Results.from_json(text)
