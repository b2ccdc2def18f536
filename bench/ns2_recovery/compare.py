#!/usr/bin/env python3
"""Moved to bench/validation/recovery.py (`python3 -m bench.validation.recovery`); this thin
wrapper keeps the old command working."""

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
runpy.run_module("bench.validation.recovery", run_name="__main__")
