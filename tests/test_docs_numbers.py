"""Every run number a doc page quotes is regenerated from the current code
(docs/gen/quoted_numbers.py): this fails when a committed number, or the committed example report,
no longer matches what the code gives."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_quoted_numbers_are_current():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "gen" / "quoted_numbers.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
