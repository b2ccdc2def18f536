#!/usr/bin/env python3
"""Moved to bench/validation/cases.py (`python3 -m bench.validation.cases CASE`); this thin
wrapper keeps the old command working."""

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
runpy.run_module("bench.validation.cases", run_name="__main__")
