"""One value as inline TOML text (``{ a = 1 }``, ``[1, 2]``, ``"text"``): what overrides and
the translated ns-2 scenarios write. Kept apart from ``scenario`` so that writing a scenario's
text imports neither dataclasses nor the scenario API (``bufferlab run script.tcl`` starts with
this alone)."""

from __future__ import annotations

from collections.abc import Mapping

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def toml_inline(value: Any) -> str:
    """``value`` (a mapping, a list or tuple, a bool, a number or else its text) as TOML."""
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k} = {toml_inline(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_inline(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return toml_string(str(value))


# TOML's escapes for a basic string; every other control character (C0 and DEL) as \uXXXX.
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string (TOML 1.0, "String"): quotes, backslashes and control
    characters escaped, everything else as it is (TOML is UTF-8). Not json.dumps: its
    surrogate pairs for characters beyond U+FFFF are not TOML, and json costs a start-up."""
    out = []
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is None and (ch < " " or ch == "\x7f"):
            esc = f"\\u{ord(ch):04x}"
        out.append(esc or ch)
    return '"' + "".join(out) + '"'
