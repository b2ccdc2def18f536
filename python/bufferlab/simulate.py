"""Running one scenario."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Unpack

from bufferlab.results import Results
from bufferlab.scenario import Overrides, RunOptions, Scenario, load


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
    **options: Unpack[RunOptions],
) -> Results:
    """Runs a scenario to its end and returns its :class:`Results`.

    ``scenario`` is a :class:`Scenario`, a path to a TOML file or TOML text. ``seed`` replaces
    the scenario's seed. ``overrides`` (a dict ``{"dotted.path": value}`` or a list of
    ``"dotted.path=value"`` strings) are applied after the scenario's own overrides.

    Keyword options (:class:`bufferlab.scenario.RunOptions`): ``ns2_trace`` writes an ns-2
    wired trace file, limited to ``trace_links``, ``trace_flows`` and ``trace_events`` (a string
    of ``+-rd``) when given. ``pcap_dir`` writes one pcap file per direction of ``pcap_links``
    (all links when None). ``progress(sim_time_s, end_s, events, wall_s)`` is called after each
    thousandth of the simulated time; returning False stops the run. Ctrl-C stops it too.
    ``max_wall`` (seconds) stops the run after that much wall time; ``max_memory`` (bytes)
    stops it when the process holds more memory (default: 80 % of the machine's; 0: no limit);
    a run whose simulated time stops advancing is always stopped. A stopped run returns
    partial results: ``results.partial`` is True and ``results.stopped`` says why.
    ``allow_python=True`` lets the scenario name Python classes (a queue discipline or a
    congestion controller, docs/extending.md): importing them runs their code, so a scenario
    that names one is refused without it (a scenario file is data).

    The simulation runs with the GIL released, so threads run scenarios in parallel.
    Raises ScenarioError for an invalid scenario, SimulationPanic for a bug in the core.
    """
    return as_scenario(scenario).run(seed, overrides, **options)
