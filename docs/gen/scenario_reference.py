#!/usr/bin/env python3
"""The scenario reference page, docs/reference/scenario.md, written from the JSON Schema.

``bufferlab schema`` prints the schema the core derives from its configuration types (the doc
comment of each field is its description); this script turns it into one page: every table and
every kind of a tagged table (``kind = "..."``), each field with its type, default and
description, the choices of every enumeration and the forms of every value type.

    python3 docs/gen/scenario_reference.py          # rewrite docs/reference/scenario.md
    python3 docs/gen/scenario_reference.py --check  # exit 1 if the committed page is stale
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "scenario.md"

Schema = dict[str, Any]


def load_schema() -> Schema:
    """The schema as ``bufferlab schema`` prints it."""
    out = subprocess.run(
        [sys.executable, "-m", "bufferlab", "schema"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


# -- text helpers --------------------------------------------------------------------------------


def ref_name(schema: Schema) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if ref else None


def anchor(name: str) -> str:
    """The anchor of a definition's heading (the heading is the bare name)."""
    return name.lower()


def prose(text: str | None) -> str:
    """A description on one line, safe inside a table cell: ``|`` escaped, and ``<``/``>`` outside
    code spans written as entities so that Markdown does not read them as HTML."""
    if not text:
        return ""
    parts = " ".join(text.split()).split("`")
    for i in range(0, len(parts), 2):  # the even parts are outside code spans
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(parts).replace("|", "\\|")


def literal(value: Any) -> str:
    """A default value as it would be written in TOML, as code."""

    def toml(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        if isinstance(v, list):
            return "[" + ", ".join(toml(x) for x in v) + "]"
        if isinstance(v, dict):
            items = [f"{k} = {toml(x)}" for k, x in v.items() if x is not None]
            return "{ " + ", ".join(items) + " }" if items else "{}"
        return json.dumps(v)

    return f"`{toml(value)}`"


# -- the schema's shapes -------------------------------------------------------------------------


def non_null(options: list[Schema]) -> list[Schema]:
    return [o for o in options if o.get("type") != "null"]


def type_text(schema: Schema) -> str:
    """A field's type in words, with links to the definitions it names."""
    name = ref_name(schema)
    if name:
        return f"[{name}](#{anchor(name)})"
    if "const" in schema:
        return literal(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(type_text(o) for o in non_null(schema[key]))
    if "enum" in schema:
        return " or ".join(literal(v) for v in schema["enum"])
    types = schema.get("type", "any")
    types = [t for t in types if t != "null"] if isinstance(types, list) else [types]
    words = []
    for t in types:
        if t == "array":
            items = type_text(schema.get("items", {}))
            lo, hi = schema.get("minItems"), schema.get("maxItems")
            count = f"{lo} " if lo is not None and lo == hi else ""
            words.append(f"array of {count}{items}")
        elif t == "object":
            extra = schema.get("additionalProperties")
            if isinstance(extra, dict):
                words.append(f"table of {type_text(extra)} by name")
            else:
                words.append("table (any keys)")
        elif t == "integer":
            lo, hi = schema.get("minimum"), schema.get("maximum")
            if lo is not None and hi is not None:
                words.append(f"integer {lo} to {hi}")
            elif lo is not None:
                words.append(f"integer ≥ {lo}")
            else:
                words.append("integer")
        else:
            words.append({"number": "number", "string": "string", "boolean": "boolean"}.get(t, t))
    return " or ".join(words)


def default_text(schema: Schema, required: bool) -> str:
    if required:
        return "**required**"
    if "default" in schema and schema["default"] is not None:
        return literal(schema["default"])
    return "—"


def field_description(schema: Schema, defs: Schema) -> str:
    """A field's description, or else the one of the table or type it names."""
    if schema.get("description"):
        return prose(schema["description"])
    names = refs_in(schema)
    if len(names) == 1:
        return prose(defs[names[0]].get("description"))
    return ""


def field_table(obj: Schema, defs: Schema, skip: tuple[str, ...] = ()) -> list[str]:
    props = obj.get("properties", {})
    required = set(obj.get("required", []))
    names = [n for n in props if n not in skip]
    # Required fields first, then the others in the schema's (alphabetical) order.
    names.sort(key=lambda n: n not in required)
    if not names:
        return ["No other fields.", ""]
    lines = ["| field | type | default | description |", "|---|---|---|---|"]
    for n in names:
        p = props[n]
        lines.append(
            f"| `{n}` | {type_text(p)} | {default_text(p, n in required)} | "
            f"{field_description(p, defs)} |"
        )
    return [*lines, ""]


def kind_of(variant: Schema) -> str | None:
    kind = variant.get("properties", {}).get("kind", {})
    return kind.get("const")


def is_tagged_union(d: Schema) -> bool:
    options = d.get("oneOf", [])
    return bool(options) and all(kind_of(o) is not None for o in options)


def is_choice(d: Schema) -> bool:
    """An enumeration: string constants (``oneOf`` with descriptions, or ``enum``)."""
    if "enum" in d:
        return True
    options = d.get("oneOf", [])
    return bool(options) and all("const" in o for o in options)


def refs_in(schema: Any) -> list[str]:
    """The definitions a schema names, in the order met."""
    out: list[str] = []
    if isinstance(schema, dict):
        if "$ref" in schema:
            out.append(ref_name(schema))
        for k, v in schema.items():
            if k != "$ref":
                out += refs_in(v)
    elif isinstance(schema, list):
        for v in schema:
            out += refs_in(v)
    return out


def places(root: Schema) -> dict[str, list[str]]:
    """Where each definition is written in a scenario file (dotted paths), breadth first."""
    defs = root["$defs"]
    where: dict[str, list[str]] = {}
    queue: deque[tuple[Schema, str]] = deque([(root, "")])
    seen_paths: set[tuple[str, str]] = set()

    def visit(schema: Schema, path: str) -> None:
        for name in refs_in(schema):
            if (name, path) in seen_paths:
                continue
            seen_paths.add((name, path))
            if path and path not in where.setdefault(name, []):
                where[name].append(path)
            if len(where.get(name, [])) <= 2:  # a recursive table (classes) is followed twice
                queue.append((defs[name], path))

    while queue:
        schema, base = queue.popleft()
        variants = schema.get("oneOf", []) + schema.get("anyOf", []) + [schema]
        for v in variants:
            if "$ref" in v:  # a value of several forms, one of them a table (StartTime)
                visit(v, base)
            for field, sub in v.get("properties", {}).items():
                path = f"{base}.{field}" if base else field
                if sub.get("type") == "array" or "array" in (sub.get("type") or []):
                    path += "[]"
                extra = sub.get("additionalProperties")
                if isinstance(extra, dict):
                    visit(extra, f"{path}.<name>")
                visit({k: x for k, x in sub.items() if k != "additionalProperties"}, path)
    return where


# The top-level fields in the order a scenario file is read; a field not listed comes after them.
READING_ORDER = ["topology", "links", "flows", "monitor", "fairness"]


def order(root: Schema) -> list[str]:
    """The definitions, breadth first from the top-level fields in reading order, then any not
    reached."""
    props = root["properties"]
    fields = [f for f in READING_ORDER if f in props] + [f for f in props if f not in READING_ORDER]
    seen: list[str] = []
    queue = deque(refs_in([props[f] for f in fields]))
    while queue:
        name = queue.popleft()
        if name in seen:
            continue
        seen.append(name)
        queue.extend(refs_in(root["$defs"][name]))
    return seen + [n for n in root["$defs"] if n not in seen]


# -- the page ------------------------------------------------------------------------------------


def render(root: Schema) -> str:
    defs = root["$defs"]
    names = order(root)
    where = places(root)
    tables = [n for n in names if "properties" in defs[n] or is_tagged_union(defs[n])]
    choices = [n for n in names if n not in tables and is_choice(defs[n])]
    values = [n for n in names if n not in tables and n not in choices]

    out = [
        "# Scenario reference",
        "",
        "<!-- Written by docs/gen/scenario_reference.py from `bufferlab schema`; do not edit. -->",
        "",
        "Every table and field of a scenario file, generated from the JSON Schema that "
        "`bufferlab schema` prints (the core's configuration types and their doc comments), so "
        "it always matches the code. [Scenario files](../scenario.md) explains the format with "
        "examples; this page lists everything in it.",
        "",
        "* **required**: the field must be given. `—`: optional; when it is left out, the "
        "description says what applies (a preset's value, a template's, or nothing).",
        "* Unknown keys are errors: every table below rejects a field it does not list.",
        "* A table with a `kind` (a queue, an application, a topology, ...) has one set of fields "
        "per kind; the kind's own section lists them.",
        "",
        "Contents: [the scenario](#scenario), "
        + ", ".join(f"[{n}](#{anchor(n)})" for n in tables)
        + "; [choices](#choices); [value types](#value-types).",
        "",
        "## Scenario",
        "",
        prose(root.get("description")),
        "",
        *field_table(root, defs),
    ]
    for n in tables:
        d = defs[n]
        out += [f"## {n}", ""]
        if d.get("description"):
            out += [prose(d["description"]), ""]
        if where.get(n):
            out += ["Written at: " + ", ".join(f"`{p}`" for p in where[n]) + ".", ""]
        if "properties" in d:
            out += field_table(d, defs)
            continue
        kinds = [kind_of(v) for v in d["oneOf"]]
        out += ["Kinds: " + ", ".join(f"[`{k}`](#{anchor(n)}-{k})" for k in kinds) + ".", ""]
        for v in d["oneOf"]:
            k = kind_of(v)
            out += [f"### {n} {k}", ""]
            desc = prose(v.get("description"))
            out += [f"`kind = {literal(k).strip('`')}`" + (f": {desc}" if desc else "."), ""]
            out += field_table(v, defs, skip=("kind",))
    out += ["## Choices", "", "The values a field of these types takes, as strings.", ""]
    for n in choices:
        d = defs[n]
        out += [f"### {n}", ""]
        if d.get("description"):
            out += [prose(d["description"]), ""]
        if "enum" in d:
            out += ["Values: " + ", ".join(literal(v) for v in d["enum"]) + ".", ""]
        else:
            out += ["| value | meaning |", "|---|---|"]
            for o in d["oneOf"]:
                out.append(f"| {literal(o['const'])} | {prose(o.get('description'))} |")
            out += [""]
    out += ["## Value types", "", "Quantities with units, and other values of several forms.", ""]
    for n in values:
        d = defs[n]
        out += [f"### {n}", ""]
        if d.get("description"):
            out += [prose(d["description"]), ""]
        forms = d.get("anyOf") or d.get("oneOf") or [d]
        for f in forms:
            line = f"* {type_text(f)}"
            if "pattern" in f:
                line += f" matching `{f['pattern']}`"
            if f.get("minimum") is not None and f.get("type") == "number":
                line += f" ≥ {f['minimum']}"
            out.append(line)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if the committed page is stale")
    args = ap.parse_args()
    text = render(load_schema())
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(
                f"{PAGE.relative_to(ROOT)} is stale: run python3 docs/gen/scenario_reference.py",
                file=sys.stderr,
            )
            return 1
        return 0
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
