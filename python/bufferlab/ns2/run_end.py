"""When a script's run ends: at the first event scheduled before ``$ns run`` that stops the
simulation (a proc that calls ``exit`` or ``$ns halt``, directly or through the procs and
methods it names, as ``$ns at 10.0 "finish"``). That time is the scenario's duration.
"""

from __future__ import annotations

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.scan import calls_word, identifiers, without_braced

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STOPS = ("exit", "halt")


def terminates(
    ip: Any, script: str, depth: int = 0, seen: set[str] | None = None, sure: bool = False
) -> bool:
    """Whether the script calls exit or halt, directly or through the procs it names;
    `sure`: outside any braced word (an `if` branch, a loop body), so whenever it runs."""
    if sure:
        script = without_braced(script)  # what runs whatever its conditions say
    if calls_word(script, _STOPS):
        return True
    seen = set() if seen is None else seen
    for word in identifiers(script) - seen:
        seen.add(word)
        if depth >= 5:
            continue
        bodies = ip.classes.bodies(word)  # `$obj word`: a method of that name
        if ip.tcl.call("info", "procs", word):
            bodies.append(str(ip.tcl.call("info", "body", word)))
        if any(terminates(ip, b, depth + 1, seen, sure) for b in bodies):
            return True
    return False


def end_time(ip: Any, heap: list[tuple[float, int, str]]) -> float:
    """The time of the first scheduled event that ends the run."""
    ends = [t for t, _, s in heap if terminates(ip, s)]
    if ends and min(ends) <= 0:
        # events at 0 whose exit is only on a branch (the red suite's dumpflows: `exit 1`
        # for an unknown setting) need not end the run: the next event that may end it
        later = [t for t, _, s in heap if t > 0 and terminates(ip, s)]
        if later and not any(t <= 0 and terminates(ip, s, sure=True) for t, _, s in heap):
            ends = later
    if not ends:
        raise Ns2Error(
            "the script never ends the simulation: schedule a proc that calls exit, as "
            '$ns at 10.0 "finish", or $ns at 10.0 "$ns halt", before $ns run'
        )
    return min(ends)
