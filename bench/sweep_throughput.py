"""Sweep throughput: runs per second with 1 and 2 workers, threads against processes.

    .venv/bin/python bench/sweep_throughput.py [--runs 24] [--durations 5s,60s] [--repeat 3]
        [--scenario FILE]

Runs a sweep of the example dumbbell (examples/dumbbell_udp.toml, 3 UDP flows over a 10 Mbit/s
bottleneck, its duration set to each of --durations: short runs show the cost of recording
results, long ones the parallel simulation) over buffer sizes and replications, into a fresh DuckDB
file each time (so the rate includes writing the results), and prints the median runs/s of
each configuration as a Markdown table for docs/performance.md ("Sweeps"). The executor the
default (``executor="auto"``) picks for that number of workers is marked "(default)"; "vs 1
worker" compares with the same executor on one worker, "vs default 1" with the default on one
worker (a thread).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bufferlab.experiments.execute import local_executor, run_sweep
from bufferlab.experiments.spec import Sweep
from bufferlab.scenario import load

ROOT = Path(__file__).resolve().parents[1]


def make_sweep(runs: int, duration: str, scenario: Path) -> Sweep:
    base = load(scenario).with_overrides({"duration": duration})
    sizes = ["10p", "25p", "50p", "100p"]
    reps = max(1, runs // len(sizes))
    return Sweep(
        name="bench",
        base=base,
        grid={"links.bottleneck.queue.limit": sizes},
        replications=reps,
        root_seed=1,
    )


def measure(sweep: Sweep, jobs: int, executor: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as d:
        t0 = time.perf_counter()
        out = run_sweep(sweep, db=Path(d) / "b.duckdb", jobs=jobs, executor=executor)
        wall = time.perf_counter() - t0
    assert out.failed == 0 and out.done == len(sweep.runs())
    return out.done / wall, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=24)
    ap.add_argument("--durations", default="5s,60s")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--scenario",
        type=Path,
        default=ROOT / "examples" / "dumbbell_udp.toml",
        help="base scenario (its bottleneck queue limit is the swept axis)",
    )
    args = ap.parse_args()
    configs = [("thread", 1), ("thread", 2), ("process", 1), ("process", 2)]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{cores} cores, load average {load:.1f} at start, median of {args.repeat}\n")
    print(
        "| simulated | runs | executor | workers | runs/s (median) | all repeats | vs 1 worker "
        "| vs default 1 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for duration in args.durations.split(","):
        sweep = make_sweep(args.runs, duration, args.scenario)
        n = len(sweep.runs())
        measure(sweep, 1, "thread")  # warm-up: imports, page cache
        results: dict[tuple[str, int], list[float]] = {c: [] for c in configs}
        for _ in range(args.repeat):  # interleaved, so background load hits every config alike
            for ex, jobs in configs:
                results[(ex, jobs)].append(measure(sweep, jobs, ex)[0])
        default_one = statistics.median(results[(local_executor("auto", 1, n), 1)])
        for ex, jobs in configs:
            med = statistics.median(results[(ex, jobs)])
            one = statistics.median(results[(ex, 1)])
            reps = ", ".join(f"{r:.2f}" for r in results[(ex, jobs)])
            name = f"{ex} (default)" if local_executor("auto", jobs, n) == ex else ex
            print(
                f"| {duration} | {n} | {name} | {jobs} | {med:.2f} | {reps} | {med / one:.2f}x "
                f"| {med / default_one:.2f}x |"
            )
    end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nload average {end:.1f} at the end")


if __name__ == "__main__":
    main()
