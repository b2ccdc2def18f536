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

While the script runs, SIGINT's Python handler also notes the signal before it raises
KeyboardInterrupt: when that exception starts in Python that Tcl called but outside the
dispatcher's own ``try`` (in _tkinter's call into it), _tkinter keeps the exception and Tcl
sees only an error with no message, and that error can reach the interpreter before the
watching thread has had its turn; ``interrupted`` says it was Ctrl-C all the same.
"""

from __future__ import annotations

import _signal  # signal's own module: `signal` builds its enums, 4 ms of a script's start-up
import _thread  # not threading (1.6 ms to import); select is not needed either
import os
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
        self.started = time.monotonic()
        self.deadline = None if max_wall is None else self.started + max_wall
        self.reason: str | None = None
        self._sigint_seen = False  # SIGINT's Python handler ran while the script did
        self._old_handler: Any = None
        self._fds: tuple[int, int] | None = None
        self._done: list[Any] = []  # a lock per watching thread, released when it ends
        self._over = _thread.allocate_lock()  # held while the script runs

    @property
    def interrupted(self) -> bool:
        """Ctrl-C stopped the script: the watcher cancelled Tcl for it, or Python's handler
        saw it first."""
        return self.reason == "interrupt" or self._sigint_seen

    def remaining(self) -> float | None:
        """Seconds of wall time left (at least a millisecond), or None without a limit."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.monotonic(), 0.001)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def __enter__(self) -> Stopper:
        self._over.acquire()
        r, w = os.pipe()
        os.set_blocking(w, False)  # set_wakeup_fd's requirement: the handler never blocks
        try:
            old = _signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except ValueError:  # not the main thread: signals are not this thread's to see
            old = None
        if old == -1:
            self._fds = (r, w)
            self._start(self._watch_signals)
            if callable(_signal.getsignal(_signal.SIGINT)):  # not ignored: note, then raise
                self._old_handler = _signal.signal(_signal.SIGINT, self._on_sigint)
        else:
            if old is not None:  # someone else's (an event loop's): leave it theirs
                _signal.set_wakeup_fd(old)
            os.close(r)
            os.close(w)
        if self.deadline is not None:
            self._start(self._watch_deadline)
        return self

    def __exit__(self, *exc: object) -> None:
        self._over.release()  # the deadline's watcher ends
        if self._fds is not None:
            w = self._fds[1]
            if self._old_handler is not None:
                _signal.signal(_signal.SIGINT, self._old_handler)
            _signal.set_wakeup_fd(-1)
            os.set_blocking(w, True)
            os.write(w, _QUIT)  # the signals' watcher ends
        for done in self._done:
            done.acquire()
        if self._fds is not None:
            os.close(self._fds[0])
            os.close(self._fds[1])

    def _on_sigint(self, signum: int, frame: Any) -> None:
        self._sigint_seen = True
        self._old_handler(signum, frame)  # Python's default raises KeyboardInterrupt

    def _start(self, watch: Any) -> None:
        done = _thread.allocate_lock()
        done.acquire()
        self._done.append(done)

        def run() -> None:
            try:
                watch()
            finally:
                done.release()

        _thread.start_new_thread(run, ())

    def _watch_signals(self) -> None:
        assert self._fds is not None
        while True:
            data = os.read(self._fds[0], 512)
            if _QUIT in data:
                return
            if _signal.SIGINT in data:
                self._cancel("interrupt")
                return

    def _watch_deadline(self) -> None:
        assert self.deadline is not None
        if not self._over.acquire(timeout=max(self.deadline - time.monotonic(), 0.0)):
            self._cancel("max_wall")
        else:
            self._over.release()

    def _cancel(self, reason: str) -> None:
        if self.reason is not None:
            return
        self.reason = reason
        import _tkinter
        import ctypes

        # _tkinter's own Tcl (dlsym on its handle looks in the libraries it was linked to)
        cancel = ctypes.CDLL(_tkinter.__file__).Tcl_CancelEval
        cancel.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        cancel(self.tcl.interpaddr(), None, None, _TCL_CANCEL_UNWIND)
