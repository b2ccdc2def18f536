"""bench/run.py's docs writer: a run of some cases never erases the others' results.

Uses the stored results (bench/results/summary.json) and writes into a copy of the docs, so no
simulator runs here.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from lab import docs


def _section(text: str) -> str:
    start = text.index("## Side by side with ns-2 and ns-3")
    return text[start : text.index("<!-- end of Side by side", start)]


def test_a_partial_run_keeps_every_other_case_and_says_where_each_came_from(tmp_path):
    stored = json.loads((ROOT / "bench" / "results" / "summary.json").read_text())
    (tmp_path / "docs").mkdir()
    for page in ("performance.md", "validation.md"):
        shutil.copy(ROOT / "docs" / page, tmp_path / "docs" / page)
    cases = stored["cases"]
    docs.write_docs(cases, stored["meta"], root=tmp_path)
    before = _section((tmp_path / "docs" / "performance.md").read_text())

    # A later `bench/run.py --cases e` measures the e cases again; the others stay as stored.
    later = copy.deepcopy(cases)
    for cid, case in later.items():
        if cid.startswith("e_"):
            case["run"] = {
                "date": "2030-01-01 00:00 UTC",
                "argv": " --cases e",
                "commit": "abc1234",
            }
    meta = dict(stored["meta"], argv=" --cases e", date="2030-01-01 00:00 UTC")
    docs.write_docs(later, meta, root=tmp_path)
    after = _section((tmp_path / "docs" / "performance.md").read_text())

    for cid in cases:
        assert f"| {cid} | bufferlab |" in after, cid
    assert "on 2030-01-01 00:00 UTC (commit abc1234)" in after
    # the cases not rerun keep the invocation that measured them
    for cid, case in cases.items():
        if not cid.startswith("e_") and case.get("run"):
            assert (
                f"by `python3 bench/run.py{case['run']['argv']}` on {case['run']['date']}" in after
            )
    rows = [line for line in before.splitlines() if line.startswith("| a_red |")]
    assert rows and all(r in after for r in rows)
