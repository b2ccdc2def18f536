"""ns-2 scripts on bufferlab's engine (issue #20): ``bufferlab run script.tcl`` and
``bufferlab import-ns2``.

The script runs in a real Tcl 8.6 interpreter (tkinter's ``_tkinter``) with an OTcl-like layer of
the ns-2 API that buffer and AQM studies use (``interp``); what it builds is a network
(``model``) that becomes a bufferlab scenario; ``$ns run`` runs it on the engine, taking turns
with the script's ``$ns at`` events (``runner``). See docs/ns2-scripts.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from bufferlab.ns2.errors import Ns2Error, ScriptExit
from bufferlab.ns2.interp import Interp

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Ns2Error", "import_script", "run_script"]


def run_script(
    script: str | os.PathLike[str],
    args: list[str] | None = None,
    *,
    seed: int | None = None,
    session_factory: Callable[..., Any] | None = None,
    warn: Callable[[str], None] | None = None,
    max_wall: float | None = None,
) -> int:
    """Runs an ns-2 script and returns its exit code (0 when it ends without ``exit``).

    Raises Ns2Error for what the script uses that bufferlab does not model, and when
    ``max_wall`` seconds of wall time (Tcl's and the engine's) pass before it ends; Ctrl-C
    raises KeyboardInterrupt wherever the script is (a Tcl loop too).
    ``session_factory`` replaces ``bufferlab._core.Session`` (tests).
    """
    path = os.fspath(script)  # not pathlib: a tenth of the command's imports
    if not os.path.isfile(path):
        raise FileNotFoundError(2, "no such file", path)
    interp = Interp(
        path, args or [], seed=seed, session_factory=session_factory, warn=warn, max_wall=max_wall
    )
    try:
        interp.source()
    except ScriptExit as e:
        return e.code
    return 0


def import_script(
    script: str | os.PathLike[str],
    args: list[str] | None = None,
    *,
    warn: Callable[[str], None] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Runs an ns-2 script up to ``$ns run`` and returns the scenario it describes and the
    dynamic parts left out of it (``$ns at`` events other than application starts and stops).
    """
    path = os.fspath(script)  # not pathlib: a tenth of the command's imports
    if not os.path.isfile(path):
        raise FileNotFoundError(2, "no such file", path)
    interp = Interp(path, args or [], import_only=True, warn=warn)
    try:
        interp.source()
    except ScriptExit as e:  # ImportStop at $ns run, or the script's own exit before it
        if interp.scenario is None:
            raise Ns2Error(f"the script called exit {e.code} before $ns run") from None
    if interp.scenario is None:
        raise Ns2Error("the script never calls $ns run")
    assert interp.runner is not None
    if not interp.scenario.get("flows"):
        raise Ns2Error(
            "no flow starts before $ns run: the script starts its applications and writes its "
            "transfers from procs during the run, which import-ns2 leaves out; run the script "
            "itself (bufferlab run)"
        )
    left_out = [f'$ns at {t:g} "{s}"' for t, _, s in sorted(interp.runner.heap)]
    # what the engine learns at $ns run, not the scenario (delayer.py)
    for link in interp.net.links.values():
        ends = f"{link.src.id} {link.dst.id}"
        if link.delayer is not None:
            left_out.append(f"$ns insert-delayer {ends} (a Delayer)")
        if link.avoid_reordering:
            left_out.append(f"DelayLink avoidReordering_ true on link {ends}")
    return interp.scenario, left_out
