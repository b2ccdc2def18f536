"""bufferlab: a packet-level network simulator for router buffer sizing and AQM studies.

Quick start::

    import bufferlab

    res = bufferlab.run("examples/dumbbell_udp.toml", seed=2,
                        overrides={"links.bottleneck.queue.limit": "20p"})
    print(res.flows[["name", "goodput_bps", "delay_p99_s"]])
"""

from __future__ import annotations

try:
    from bufferlab._core import ScenarioError, SimulationPanic, __version__
except ImportError as exc:  # pragma: no cover - only without a built extension
    raise ImportError(
        "the native module bufferlab._core is not built; run `make venv` (or "
        "`maturin develop --release`) in the repository"
    ) from exc


# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.builder import (
        ScenarioBuilder,
        chain,
        custom,
        dumbbell,
        fat_tree,
        leaf_spine,
        parking_lot,
    )
    from bufferlab.extend import CongestionControl, QueueDisc
    from bufferlab.results import Results
    from bufferlab.scenario import Scenario, load
    from bufferlab.simulate import run

# Every name but the compiled core's is imported when first used (PEP 562): `import bufferlab`
# and the `bufferlab` command (an ns-2 script's run above all) need not pay for the API's
# modules. `run` lives in `bufferlab.simulate`, so no submodule shadows the function.
_LAZY = {
    "run": "simulate", "Results": "results", "Scenario": "scenario", "load": "scenario",
    "ScenarioBuilder": "builder", "chain": "builder", "custom": "builder",
    "dumbbell": "builder", "parking_lot": "builder", "leaf_spine": "builder",
    "fat_tree": "builder",
    "CongestionControl": "extend", "QueueDisc": "extend",
}  # fmt: skip

__all__ = [
    "CongestionControl",
    "QueueDisc",
    "Results",
    "Scenario",
    "ScenarioBuilder",
    "ScenarioError",
    "SimulationPanic",
    "__version__",
    "chain",
    "custom",
    "dumbbell",
    "fat_tree",
    "leaf_spine",
    "load",
    "parking_lot",
    "run",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bufferlab' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"bufferlab.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
