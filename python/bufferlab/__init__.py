"""bufferlab: a packet-level network simulator for router buffer sizing and AQM studies.

Quick start::

    import bufferlab

    res = bufferlab.run("examples/dumbbell_udp.toml", seed=2,
                        overrides={"links.bottleneck.queue.limit": "20p"})
    print(res.flows[["name", "goodput_bps", "delay_p99_s"]])
"""

try:
    from bufferlab._core import ScenarioError, SimulationPanic, __version__
except ImportError as exc:  # pragma: no cover - only without a built extension
    raise ImportError(
        "the native module bufferlab._core is not built; run `make venv` (or "
        "`maturin develop --release`) in the repository"
    ) from exc

from typing import TYPE_CHECKING, Any

# `run` is imported here, not on first use: `bufferlab.run` is also a submodule, and importing
# it later (as the command does) would bind the name to the module. It brings `Results`,
# `Scenario` and `load` with it. The builder and the extension API are imported when first
# used (PEP 562), which `import bufferlab` and the `bufferlab` command need not pay for.
from bufferlab.results import Results
from bufferlab.run import run
from bufferlab.scenario import Scenario, load

if TYPE_CHECKING:
    from bufferlab.builder import ScenarioBuilder, chain, custom, dumbbell, parking_lot
    from bufferlab.extend import CongestionControl, QueueDisc

_LAZY = {
    "ScenarioBuilder": "builder", "chain": "builder", "custom": "builder",
    "dumbbell": "builder", "parking_lot": "builder",
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
