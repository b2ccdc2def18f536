"""Names from a user's file as file names: a path inside the chosen folder, or a clear refusal.

A scenario or sweep file names its links, nodes, flows and sweeps freely, and some outputs are
named after them. :func:`child_path` is the one way such a name becomes a path: the result is
always ``folder / (name + suffix)``, a direct child of ``folder``. A name that could not be one
is refused (ValueError), never rewritten: a silent rewrite could make two names one file.

Refused: an empty name, ``.`` and ``..``, a name with ``/``, ``\\``, NUL or any other control
character (C0, DEL, C1), and a file name (name and suffix) longer than 255 bytes in UTF-8, the
limit of the common file systems. The same rules hold in the Rust core
(``crates/bufferlab-core/src/monitor/file_name.rs``), which names the pcap files.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

#: Longest file name (name and suffix, UTF-8 bytes) the common file systems accept.
MAX_FILE_NAME_BYTES = 255

_SEPARATORS = ("/", "\\")


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be (part of) a file name, or None when it can. Length is checked on
    the whole file name by :func:`child_path`."""
    if not isinstance(name, str):
        return f"it is a {type(name).__name__}, not text"
    if name == "":
        return "it is empty"
    if name in (".", ".."):
        return f'"{name}" names a folder'
    for sep in _SEPARATORS:
        if sep in name:
            return f'it contains "{sep}"'
    for ch in name:
        if unicodedata.category(ch) == "Cc":
            return f"it contains the control character U+{ord(ch):04X}"
    return None


def _shown(name: object) -> str:
    """A refused name in a message: quoted, control characters written as escapes, cut after
    120 characters (a name refused for its length can be thousands)."""
    from bufferlab.display import printable

    s = str(name)
    return '"' + printable(s[:120]) + ('..."' if len(s) > 120 else '"')


def child_path(folder: Path, name: str, suffix: str = "") -> Path:
    """``folder / (name + suffix)``, a direct child of ``folder``; ValueError when ``name``
    (or the suffix) cannot be a file name, with what is wrong and the fix."""
    for part, what in ((name, "name"), (suffix, "suffix")):
        if what == "suffix" and part == "":
            continue
        why = name_problem(part)
        if why is not None:
            raise ValueError(
                f"{what} {_shown(part)} cannot be a file name ({why}); rename it without "
                '"/", "\\", control characters or a lone "." or ".."'
            )
    file_name = name + suffix
    size = len(file_name.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_NAME_BYTES:
        raise ValueError(
            f"name {_shown(name)} makes a file name of {size} bytes, longer than the "
            f"{MAX_FILE_NAME_BYTES} a file system allows; shorten it"
        )
    path = Path(folder) / file_name
    # The rules above make this hold; checked so that no later change to them can break it.
    if path.parent != Path(folder) or path.name != file_name:
        raise ValueError(f"name {_shown(name)} cannot be a file name in {folder}")
    return path
