"""docs/ns2-scripts.md's table of the ns-2 peer scripts is what
bench/validation/ns2_peer_table.py prints on the current code (ns-2.35 and bufferlab side by
side on each script)."""

from __future__ import annotations

import pytest

from conftest import ROOT, needs_ns, run_module

PEERS = ROOT.parent / "shared" / "peers" / "ns2"


def _rows(text: str) -> list[str]:
    start = text.index("| run | TCP thr. sum kbps |")
    rows = []
    for line in text[start:].splitlines():
        if not line.startswith("|"):
            break
        rows.append(line.strip())
    return rows


@needs_ns
@pytest.mark.skipif(not PEERS.is_dir(), reason="../shared/peers/ns2 is not beside the repository")
def test_the_peer_scripts_table_is_current() -> None:
    out = run_module("bench.validation.ns2_peer_table")
    doc = (ROOT / "docs" / "ns2-scripts.md").read_text()
    assert len(_rows(out)) == 11
    assert _rows(out) == _rows(doc)
