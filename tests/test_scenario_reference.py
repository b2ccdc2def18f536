"""docs/reference/scenario.md is written from the JSON Schema by docs/gen/scenario_reference.py:
this fails when the committed page no longer matches what the current schema gives (a field, a
default or a doc comment changed), and says how to rewrite it."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT

GENERATOR = ROOT / "docs" / "gen" / "scenario_reference.py"


def test_scenario_reference_is_current():
    proc = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_scenario_reference_names_every_field():
    """Every field of every table of the schema appears in the page, as a table row."""
    cmd = [sys.executable, "-m", "bufferlab", "schema"]
    schema = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    page = (ROOT / "docs" / "reference" / "scenario.md").read_text()
    tables = [schema, *schema["$defs"].values()]
    tables += [v for d in schema["$defs"].values() for v in d.get("oneOf", [])]
    fields = {f for t in tables for f in t.get("properties", {}) if f != "kind"}
    missing = sorted(f for f in fields if f"| `{f}` |" not in page)
    assert missing == []
