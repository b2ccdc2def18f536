"""The translated scenario as TOML text a person can read: one line per link field and per
flow field (inline tables for queues, applications and TCP settings)."""

from __future__ import annotations

from collections.abc import Mapping

from bufferlab.toml_value import toml_inline

# typing is imported for type checkers only (TYPE_CHECKING = False is their constant too):
# it is 2-4 ms of the command's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else toml_inline(k)


def scenario_text(scenario: Mapping[str, Any], header: list[str] | None = None) -> str:
    # a header entry may hold several lines (a multi-line `$ns at` script): each a comment
    out = [f"# {line}".rstrip() for entry in header or [] for line in entry.splitlines()]
    tables = []
    for k, v in scenario.items():
        if isinstance(v, Mapping) or (isinstance(v, list) and v and isinstance(v[0], Mapping)):
            tables.append((k, v))
        else:
            out.append(f"{_key(k)} = {toml_inline(v)}")
    for k, v in tables:
        if isinstance(v, list):
            for item in v:
                out += ["", f"[[{_key(k)}]]"]
                out += [f"{_key(ik)} = {toml_inline(iv)}" for ik, iv in item.items()]
        elif v and all(isinstance(x, Mapping) for x in v.values()):
            for sub, table in v.items():
                out += ["", f"[{_key(k)}.{_key(sub)}]"]
                out += [f"{_key(ik)} = {toml_inline(iv)}" for ik, iv in table.items()]
        else:
            out += ["", f"[{_key(k)}]"]
            out += [f"{_key(ik)} = {toml_inline(iv)}" for ik, iv in v.items()]
    return "\n".join(out) + "\n"
