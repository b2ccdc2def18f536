"""Ctrl-C and ``--max-wall`` for an ns-2 script, wherever it is running.

A script spends its time in three places: Tcl (a ``while 1 {}`` runs no Python at all, so
Python's SIGINT handler never runs), the engine (``Session.run_until`` asks Python's signal
handlers every 65536 events and stops at a KeyboardInterrupt; ``max_wall`` stops it through the
engine's own guard) and this package's Python (where KeyboardInterrupt arrives as usual).

For Tcl, a thread waits on the signal wakeup fd (the C-level handler writes the signal's number
there whatever the main thread is doing) and on the ``--max-wall`` deadline, and then cancels
the interpreter's evaluation with ``Tcl_CancelEval(TCL_CANCEL_UNWIND)``: Tcl stops at its next
check (the bytecode engine looks every few instructions; ``after`` and ``vwait`` too) and no
``catch`` in the script can keep it. This costs the script nothing while it runs: nothing is
polled from Tcl, and ctypes is only loaded when a cancel is due.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import time

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TCL_CANCEL_UNWIND = 0x100000  # tcl.h
_QUIT = b"\xff"  # not a signal number: the watcher's own "stop watching"


class Stopper:
    """Watches for Ctrl-C and the deadline while a script runs (a context manager).

    ``reason`` becomes "interrupt" or "max_wall" once the interpreter has been cancelled;
    the interpreter's errors are then this, not the script's.
    """

    def __init__(self, tcl: Any, max_wall: float | None):
        self.tcl = tcl
        self.max_wall = max_wall
        self.started = time.monotonic()
        self.deadline = None if max_wall is None else self.started + max_wall
        self.reason: str | None = None
        self._fds: tuple[int, int] | None = None
        self._old_fd = -1
        self._thread: threading.Thread | None = None

    def remaining(self) -> float | None:
        """Seconds of wall time left (at least a millisecond), or None without a limit."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.monotonic(), 0.001)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def __enter__(self) -> Stopper:
        r, w = os.pipe()
        os.set_blocking(w, False)  # set_wakeup_fd's requirement: the handler never blocks
        self._fds = (r, w)
        watch_signals = threading.current_thread() is threading.main_thread()
        if watch_signals:
            self._old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
            if self._old_fd != -1:  # someone else's (an event loop's): leave it theirs
                signal.set_wakeup_fd(self._old_fd)
                watch_signals = False
        if watch_signals or self.deadline is not None:
            self._thread = threading.Thread(target=self._watch, name="ns2-stopper", daemon=True)
            self._thread.start()
        self._watching_signals = watch_signals
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._fds is not None
        r, w = self._fds
        if self._watching_signals:
            signal.set_wakeup_fd(self._old_fd)
        if self._thread is not None:
            os.set_blocking(w, True)
            os.write(w, _QUIT)
            self._thread.join()
        os.close(r)
        os.close(w)

    def _watch(self) -> None:
        assert self._fds is not None
        r = self._fds[0]
        while True:
            timeout = None if self.deadline is None else self.deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                self._cancel("max_wall")
                return
            ready, _, _ = select.select([r], [], [], timeout)
            if not ready:
                continue  # the deadline: the next turn cancels
            data = os.read(r, 512)
            if _QUIT in data:
                return
            if signal.SIGINT in data:
                self._cancel("interrupt")
                return

    def _cancel(self, reason: str) -> None:
        self.reason = reason
        import _tkinter
        import ctypes

        # _tkinter's own Tcl (dlsym on its handle looks in the libraries it was linked to)
        cancel = ctypes.CDLL(_tkinter.__file__).Tcl_CancelEval
        cancel.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        cancel(self.tcl.interpaddr(), None, None, _TCL_CANCEL_UNWIND)
