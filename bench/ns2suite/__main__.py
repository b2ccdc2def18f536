"""ns-2.35's own validation suites under ns-2 and bufferlab: the coverage table.

    .venv/bin/python -m bench.ns2suite [--suite red ...] [--test red1 ...] [--jobs N]
        [--out DIR] [--write-docs] [--sample] [--timeout S] [--rerun-ns]

Runs every test of the suites of ../shared/ns2-testsuite (or those named) under `ns` and under
`python -m bufferlab run` (this Python's bufferlab) and classifies each: pass (bufferlab's
temp.rands is ns-2's, byte for byte, and the exit status the same), differs (both ran; the first
line where they part), refused (exit 2 with one `error:` line: the missing model or command),
crash (anything else), ns-2 fails (ns-2 itself writes no temp.rands: not counted against
bufferlab). Writes DIR/results.json and DIR/table.md, prints the table; --write-docs merges the
results into docs/ns2-suites.json and renders the table into docs/ns2-scripts.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import harness, table
from .harness import CACHE, ROOT, SUITES_DIR

SAMPLE_SUITE = "schedule"


def sample() -> list[tuple[str, str]]:
    """The fast sample the tests run: the first test of each suite and every test of one
    small suite."""
    picked = [(s, harness.tests_of(s)[0]) for s in harness.suites()]
    picked += [(SAMPLE_SUITE, t) for t in harness.tests_of(SAMPLE_SUITE)]
    return list(dict.fromkeys(picked))


def missing_tools() -> list[str]:
    """What ns-2's runs of the suites need and this machine lacks."""
    out = [t for t in ("ns", "csh", "perl") if shutil.which(t) is None]
    if "perl" not in out:
        p = subprocess.run(["perl", "-e", 'require "getopts.pl"'], capture_output=True)
        if p.returncode != 0:
            out.append("getopts.pl (Debian package libperl4-corelibs-perl)")
    return out


def _commit() -> str:
    p = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return p.stdout.strip() or "unknown"


def run_all(
    picked: list[tuple[str, str]], jobs: int, timeout: float, rerun_ns: bool, progress: bool
) -> list[dict]:
    """Runs the tests, ``jobs`` at a time; the results in the order of ``picked``."""
    ns = harness.ns_version()
    keys: dict[str, str] = {}
    for s in dict.fromkeys(s for s, _ in picked):
        keys[s] = harness.suite_hash(s)
    with tempfile.TemporaryDirectory(prefix="ns2suite-pristine-") as d:
        # one copy of the folder per run, copied again for each test (tests write into it)
        pristine = Path(d) / "ns2-testsuite"
        shutil.copytree(SUITES_DIR, pristine, symlinks=True)

        def one(i: int, suite: str, test: str) -> dict:
            key = hashlib.sha256(f"{keys[suite]}:{ns}:{test}".encode()).hexdigest()
            r = harness.run_test(suite, test, key, pristine, timeout, rerun_ns)
            if progress:
                bl = f"{r['bufferlab_s']:.2f} s" if r["bufferlab_s"] else "-"
                ns2 = f"{r['ns2_s']:.2f} s" + (" cached" if r["ns2_cached"] else "")
                print(
                    f"[{i + 1}/{len(picked)}] {suite} {test}: {r['outcome']} "
                    f"(bufferlab {bl}, ns-2 {ns2}) {r['detail'][:100]}",
                    file=sys.stderr,
                    flush=True,
                )
            return r

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(one, i, s, t) for i, (s, t) in enumerate(picked)]
            return [f.result() for f in futures]


def document(rows: list[dict], timeout: float) -> dict:
    return {
        "generated_by": "python -m bench.ns2suite",
        "date": dt.date.today().isoformat(),
        "commit": _commit(),
        "ns2": "ns-2.35 (Debian's ns2)",
        "timeout_s": timeout,
        "tests": rows,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench.ns2suite", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--suite", nargs="+", action="extend", default=[], help="suites to run")
    ap.add_argument("--test", nargs="+", action="extend", default=[], help="tests to run")
    ap.add_argument("--sample", action="store_true", help="only the tests' fast sample")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tests at a time")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run (300)")
    ap.add_argument("--rerun-ns", action="store_true", help="run ns-2 again, not from the cache")
    ap.add_argument("--out", type=Path, default=CACHE / "out", help=f"(default {CACHE}/out)")
    ap.add_argument("--write-docs", action="store_true", help="docs/ns2-suites.json and table")
    a = ap.parse_args(argv)

    if not SUITES_DIR.is_dir():
        print(f"error: the suites are not beside the repository ({SUITES_DIR})", file=sys.stderr)
        return 2
    if lacking := missing_tools():
        print(f"error: ns-2's runs need {', '.join(lacking)} (make system-deps)", file=sys.stderr)
        return 2
    all_suites = harness.suites()
    unknown = [s for s in a.suite if s not in all_suites]
    if unknown:
        print(f"error: no suite {', '.join(unknown)} (there are {', '.join(all_suites)})")
        return 2
    everything = [(s, t) for s in all_suites for t in harness.tests_of(s)]
    picked = sample() if a.sample else everything
    if a.suite:
        picked = [(s, t) for s, t in picked if s in a.suite]
    if a.test:
        picked = [(s, t) for s, t in picked if t in a.test]
        if lost := set(a.test) - {t for _, t in picked}:
            print(f"error: no test {', '.join(sorted(lost))} in those suites", file=sys.stderr)
            return 2

    rows = run_all(picked, a.jobs, a.timeout, a.rerun_ns, progress=True)
    data = document(rows, a.timeout)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "results.json").write_text(json.dumps(data, indent=1) + "\n")
    text = table.render({**data, "tests": rows})
    (a.out / "table.md").write_text(text + "\n")
    print(text)
    if a.write_docs:
        merged = table.merge(table.load(), data, everything)
        table.write_docs(merged)
        print(f"wrote {table.DATA.relative_to(ROOT)} and {table.DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
