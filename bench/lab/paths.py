"""Where the bench keeps its scenarios, peers and results, and its log line."""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
PEERS = BENCH / ".peers"
SCEN = BENCH / "scenarios"
RESULTS = BENCH / "results"
PEER_LIMIT_S = 300.0  # a peer run estimated to take longer is skipped, one that does is stopped
SIMS = ("bufferlab", "ns-2", "ns-3")


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)
