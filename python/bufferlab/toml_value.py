"""One value as inline TOML text (``{ a = 1 }``, ``[1, 2]``, ``"text"``): what overrides and
the translated ns-2 scenarios write. Kept apart from ``scenario`` so that writing a scenario's
text imports neither dataclasses nor the scenario API (``bufferlab run script.tcl`` starts with
this alone)."""

from __future__ import annotations

import json
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
    return json.dumps(str(value))
