"""ns-2.35's congestion window validation knobs of Agent/TCP and its Reno, Newreno and Sack1
agents (the core's tcp/ns2_agent/cwv.rs and tcp/sender/ns2_cwv.rs, after tcp/tcp.cc
`process_qoption_after_send`, `rtt_counting`, `process_qoption_after_ack`,
`recv_newack_helper`/`network_limited` and the agents' `recv`): ns-2 variable -> (field of
the `ns2_agent` table, converter, the classes whose C++ reads it). Vegas and Linux have their
own recv and window rules, where these stay refused.
"""

from __future__ import annotations

from bufferlab.ns2.classes import AIMD_AGENTS
from bufferlab.ns2.units import boolean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


CWV_FIELDS: dict[str, tuple[str, Callable[[str], Any], tuple[str, ...]]] = {
    "QOption_": ("qoption", boolean, AIMD_AGENTS),
    "EnblRTTCtr_": ("rtt_counter", boolean, AIMD_AGENTS),
    "control_increase_": ("control_increase", boolean, AIMD_AGENTS),
    "aggressive_maxburst_": ("aggressive_maxburst", boolean, AIMD_AGENTS),
}
