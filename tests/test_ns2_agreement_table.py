"""docs/validation.md's table of ns-2 scripts run unchanged is what
bench/validation/ns2_scripts.py gives on the current code (the comparison columns; the wall
times are the machine's)."""

from __future__ import annotations

from conftest import ROOT, needs_ns, needs_ns2_peers, run_module


def _rows(text: str) -> list[list[str]]:
    """The table's rows, without the two time columns."""
    start = text.index("| script | output | same lines / lines |")
    rows = []
    for line in text[start:].splitlines():
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append(cells[:4])
    return rows[2:]  # the header and its rule


@needs_ns
@needs_ns2_peers
def test_the_ns2_scripts_table_is_current() -> None:
    out = run_module("bench.validation.ns2_scripts")
    doc = (ROOT / "docs" / "validation.md").read_text()
    assert _rows(out) == _rows(doc)
