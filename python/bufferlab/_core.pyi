"""Typed stub of the native module ``bufferlab._core`` (built from crates/bufferlab-py).

Checked against the compiled module by ``mypy.stubtest`` in ``make lint`` (and so in CI).
"""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import final

__all__ = [
    "Ack",
    "Packet",
    "QueueContext",
    "ScenarioError",
    "Session",
    "SimulationPanic",
    "Window",
    "__version__",
    "quantity",
    "resolve",
    "run",
    "schema",
    "validate",
]

__version__: str

class ScenarioError(ValueError):
    """The scenario (file, overrides or values) is invalid; the message names the field."""

class SimulationPanic(RuntimeError):
    """A bug inside the simulator core (a caught panic). Please report it."""

def run(
    text: str,
    source: str = "<string>",
    seed: int | None = None,
    overrides: list[str] | None = None,
    *,
    ns2_trace: str | PathLike[str] | None = None,
    trace_links: list[str] | None = None,
    trace_flows: list[str] | None = None,
    trace_events: str | None = None,
    pcap_dir: str | PathLike[str] | None = None,
    pcap_links: list[str] | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
    max_wall: float | None = None,
    max_memory: int | None = None,
    allow_python: bool = False,
) -> str:
    """Run a scenario (TOML text) and return the report as a JSON string.

    ``ns2_trace`` writes an ns-2 trace file (filtered by ``trace_links``, ``trace_flows``,
    ``trace_events``); ``pcap_dir`` writes one pcap file per direction of ``pcap_links`` (all
    when empty). ``progress(sim_time_s, end_s, events, wall_s)`` is called after each
    thousandth of the simulated time; returning False stops the run (so does Ctrl-C), and the
    partial report is returned with ``"partial": true``. The simulation runs with the GIL
    released. Raises ScenarioError for an invalid scenario and SimulationPanic for a bug in
    the core. A Python class the scenario names is imported only with ``allow_python``.
    """

def validate(
    text: str,
    source: str = "<string>",
    overrides: list[str] | None = None,
    *,
    allow_python: bool = False,
) -> str:
    """Validate a scenario (TOML text, with overrides) and return it normalised, as JSON."""

def resolve(
    text: str,
    source: str = "<string>",
    seed: int | None = None,
    overrides: list[str] | None = None,
    *,
    allow_python: bool = False,
) -> str:
    """Validate a scenario and return ``{"scenario": normalised, "resolved": as built}`` as
    JSON: routed paths, propagation RTTs, resolved TCP and queue settings, warnings."""

def quantity(text: str) -> tuple[float, str] | None:
    """A value with a unit in base units and its kind ("packets", "bytes", "s", "bit/s", or
    "" for a bare number); None when it is not a quantity of the scenario grammar."""

def schema() -> str:
    """Return the JSON Schema of the scenario file format, as a JSON string."""

@final
class Packet:
    """A read-only view of a packet in a Python queue discipline."""

    @property
    def uid(self) -> int: ...
    @property
    def flow(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def protocol(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def ecn(self) -> str: ...
    @property
    def ecn_capable(self) -> bool: ...
    @property
    def class_(self) -> int: ...
    @property
    def created(self) -> float: ...
    @property
    def arrival(self) -> float: ...

@final
class QueueContext:
    """What a Python queue discipline may use during one enqueue or dequeue call."""

    @property
    def now(self) -> float: ...
    @property
    def now_ps(self) -> int: ...
    @property
    def link_rate_bps(self) -> int: ...
    @property
    def link_busy(self) -> bool: ...
    @property
    def len_packets(self) -> int: ...
    @property
    def len_bytes(self) -> int: ...
    def random(self) -> float: ...
    def drop(self, pkt: Packet, reason: str = "custom") -> None: ...

@final
class Window:
    """The window variables a Python congestion controller reads and changes (bytes)."""

    cwnd: float
    ssthresh: float
    @property
    def mss(self) -> float: ...
    @property
    def in_slow_start(self) -> bool: ...

@final
class Ack:
    """What the sender knows when an ACK acknowledges new data."""

    @property
    def now(self) -> float: ...
    @property
    def bytes_acked(self) -> int: ...
    @property
    def flight_before(self) -> int: ...
    @property
    def snd_una(self) -> int: ...
    @property
    def snd_nxt(self) -> int: ...
    @property
    def rtt_s(self) -> float | None: ...

@final
class Session:
    """A simulation driven step by step (the ns-2 script runner): run to a time, read ns-2
    variables of a flow, go on; `finish` runs to the end and returns the report JSON."""

    def __new__(
        cls,
        scenario_text: str,
        source: str | None = None,
        seed: int | None = None,
        ns2_trace: str | None = None,
        ns2_error_drops: list[tuple[str, str]] | None = None,
        max_wall: float | None = None,
        ns2_show_tcphdr: bool = False,
        ns2_unmonitored_losses: list[tuple[str, str]] | None = None,
        ns2_trace_directions: list[tuple[str, str]] | None = None,
    ) -> Session: ...
    def now(self) -> float: ...
    def end(self) -> float: ...
    def run_until(self, t_s: float) -> None: ...
    def probe(self, flow: str, var: str) -> float | None: ...
    def probe_queue(self, link: str, from_node: str, to_node: str, var: str) -> float | None: ...
    def add_queue_integrators(self, link: str, from_node: str, to_node: str) -> int | None: ...
    def keep_queue_summary(self, link: str, from_node: str, to_node: str) -> bool: ...
    def queue_summary(
        self, link: str, from_node: str, to_node: str
    ) -> tuple[float, float, float] | None: ...
    def add_flow_monitor(
        self, link: str, from_node: str, to_node: str, early_drops: bool
    ) -> tuple[int, int] | None: ...
    def flow_monitor(
        self, id: tuple[int, int]
    ) -> tuple[list[int], list[tuple[int, int, int, str, str, list[int]]]]: ...
    def reset_flow_monitor(self, id: tuple[int, int], fid: int | None) -> None: ...
    def detach(self, flow: str, receiver: bool) -> None: ...
    def set_link(
        self, link: str, from_node: str, to_node: str, what: str, value: float
    ) -> None: ...
    def add_delayer(
        self,
        link: str,
        from_node: str,
        to_node: str,
        alloc: tuple[tuple[str, float, float], tuple[str, float, float]] | None = None,
        spike: tuple[tuple[str, float, float], tuple[str, float, float], float] | None = None,
    ) -> None: ...
    def delayer_block(self, link: str, from_node: str, to_node: str, block: bool) -> None: ...
    def queue_integrator(self, id: int, which: str) -> tuple[float, float, float]: ...
    def set_queue_integrator(
        self, id: int, which: str, lastx: float, lasty: float, sum: float
    ) -> None: ...
    def record_ns2_events(self, flow: str) -> bool: ...
    def watch(self, flow: str, var: str) -> tuple[int, float] | None: ...
    def watch_queue(
        self, link: str, from_node: str, to_node: str, var: str
    ) -> tuple[int, float] | None: ...
    def take_changes(self) -> list[tuple[float, int, float]]: ...
    def retime(self, flow: str, start: float | None = None, stop: float | None = None) -> None: ...
    def set_data(self, flow: str, segments: int) -> None: ...
    def set_cbr_rate(self, flow: str, rate: float, size: int) -> None: ...
    def set_telnet_interval(self, flow: str, interval: float) -> None: ...
    def start_due(self, flow: str) -> None: ...
    def reset(self, flow: str, receiver: bool = False, phase: float | None = None) -> None: ...
    def watch_ack(self, flow: str, ack: float) -> None: ...
    def take_acked(self) -> list[tuple[float, str]]: ...
    def ns2_rng_state(self) -> list[int] | None: ...
    def set_ns2_rng_state(self, state: Sequence[int]) -> None: ...
    def stopped(self) -> str | None: ...
    def finish(self) -> str: ...
