"""The ns-2 runner's scratch file (the engine's own trace): written through its path, read back
the same way, gone once removed; on Linux a memory file, elsewhere a temporary folder."""

from __future__ import annotations

import os

import pytest

from bufferlab.ns2.private_file import PrivateFile


def _round_trip(f: PrivateFile) -> None:
    with open(f.path, "w") as w:  # the engine opens it by path, as a file to create
        w.write("r 0.1 0 1 tcp 1040 ------- 1 0.0 1.0 1 2\n")
    with open(f.path, "rb") as r:  # the runner reads it by path too
        assert r.read().endswith(b"1 2\n")


@pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="no memfd_create on this system")
def test_a_memory_file_where_the_system_has_one():
    f = PrivateFile("links.tr")
    assert f.path.startswith("/proc/self/fd/")  # no file in any folder
    _round_trip(f)
    fd = int(f.path.rsplit("/", 1)[1])
    f.remove()
    with pytest.raises(OSError):
        os.fstat(fd)  # closed: the memory is freed


def test_a_temporary_folder_elsewhere(monkeypatch):
    monkeypatch.delattr(os, "memfd_create", raising=False)
    f = PrivateFile("links.tr")
    assert not f.path.startswith("/proc/")
    _round_trip(f)
    folder = os.path.dirname(f.path)
    f.remove()
    assert not os.path.exists(folder)
    f.remove()  # twice is harmless
