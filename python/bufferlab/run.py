"""Running one scenario."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from bufferlab.results import Results
from bufferlab.scenario import Overrides, Scenario, load


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
    *,
    ns2_trace: str | os.PathLike[str] | None = None,
    trace_links: list[str] | None = None,
    trace_flows: list[str] | None = None,
    trace_events: str | None = None,
    pcap_dir: str | os.PathLike[str] | None = None,
    pcap_links: list[str] | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
) -> Results:
    """Runs a scenario to its end and returns its :class:`Results`.

    ``scenario`` is a :class:`Scenario`, a path to a TOML file or TOML text. ``seed`` replaces
    the scenario's seed. ``overrides`` (a dict ``{"dotted.path": value}`` or a list of
    ``"dotted.path=value"`` strings) are applied after the scenario's own overrides.

    ``ns2_trace`` writes an ns-2 wired trace file, limited to ``trace_links``, ``trace_flows``
    and ``trace_events`` (a string of ``+-rd``) when given. ``pcap_dir`` writes one pcap file per
    direction of ``pcap_links`` (all links when None). ``progress(sim_time_s, end_s, events,
    wall_s)`` is called after each thousandth of the simulated time; returning False stops the
    run. Ctrl-C stops it too. A stopped run returns partial results: ``results.partial`` is True.

    The simulation runs with the GIL released, so threads run scenarios in parallel.
    Raises ScenarioError for an invalid scenario, SimulationPanic for a bug in the core.
    """
    return as_scenario(scenario).run(
        seed,
        overrides,
        ns2_trace=ns2_trace,
        trace_links=trace_links,
        trace_flows=trace_flows,
        trace_events=trace_events,
        pcap_dir=pcap_dir,
        pcap_links=pcap_links,
        progress=progress,
    )
