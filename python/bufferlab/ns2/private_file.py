"""A scratch file of the ns-2 runner's: the engine's own trace when the script's trace files
are routed from it (linktrace.py)."""

from __future__ import annotations

import os


class PrivateFile:
    """A file only this process uses (the engine writes it, the runner reads it back), gone
    when removed or when the process ends.

    On Linux an anonymous memory file (memfd) opened by its /proc path: no directory to make
    or clean, and no `tempfile` import (with shutil and random, 5 ms of a small script's
    start-up). Elsewhere, or without /proc, a file in a new temporary directory.
    """

    def __init__(self, name: str) -> None:
        self._fd: int | None = None
        self._dir: str | None = None
        memfd_create = getattr(os, "memfd_create", None)
        if memfd_create is not None:
            fd = memfd_create(f"bufferlab-ns2-{name}")
            path = f"/proc/self/fd/{fd}"
            if os.path.exists(path):
                self._fd, self.path = fd, path
                return
            os.close(fd)
        import tempfile

        self._dir = tempfile.mkdtemp(prefix="bufferlab-ns2-")
        self.path = os.path.join(self._dir, name)

    def remove(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._dir is not None:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
