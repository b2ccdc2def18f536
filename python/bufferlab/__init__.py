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

from bufferlab.builder import ScenarioBuilder, chain, custom, dumbbell, parking_lot
from bufferlab.extend import CongestionControl, QueueDisc
from bufferlab.results import Results
from bufferlab.run import run
from bufferlab.scenario import Scenario, load

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
