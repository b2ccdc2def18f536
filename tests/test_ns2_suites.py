"""ns-2.35's own validation suites (bench/ns2suite, docs/ns2-scripts.md "ns-2's own validation
suites"): the table is rendered from docs/ns2-suites.json, README states its number, the data
lists every test of every suite, and a sample of tests run now under ns-2 and bufferlab gives
the outcomes recorded there (so a recorded outcome that goes stale fails)."""

from __future__ import annotations

import re
import statistics
import sys

import pytest

from conftest import ROOT, needs_ns, needs_ns2_testsuite

sys.path.insert(0, str(ROOT))
from bench.ns2suite import __main__ as cli
from bench.ns2suite import harness, speed, table
from bench.ns2suite.harness import Run, classify

DATA = table.load()


def _key(row: dict) -> tuple[str, str]:
    return row["suite"], row["test"]


def test_the_docs_table_is_rendered_from_the_data() -> None:
    assert DATA["tests"], "docs/ns2-suites.json has no tests: run make ns2-suites"
    assert table.section() == table.render(DATA)


def test_the_speed_table_is_rendered_from_its_data() -> None:
    data = speed.load()
    assert data["tests"], "docs/ns2-suite-speed.json has no tests: run make ns2-suites-speed"
    assert speed.section() == speed.render(data)


def test_the_speed_data_times_the_tests_both_ran_to_the_end() -> None:
    """A test that now runs to the end under both (pass, differs) has its times; one that no
    longer does has none (make ns2-suites-speed measures them again)."""
    ran = {_key(x) for x in DATA["tests"] if x["outcome"] in ("pass", "differs")}
    timed = {_key(x) for x in speed.load()["tests"]}
    assert timed == ran


def test_the_speed_table_counts_slower_tests_and_the_worst_ratio() -> None:
    rows = [
        {"suite": "a", "test": "t1", "rounds": 3, "ns2_wall_s": 0.2, "bufferlab_wall_s": 0.1,
         "ns2_cpu_s": 0.2, "bufferlab_cpu_s": 0.1},
        {"suite": "a", "test": "t2", "rounds": 3, "ns2_wall_s": 0.1, "bufferlab_wall_s": 0.12,
         "ns2_cpu_s": 0.1, "bufferlab_cpu_s": 0.1},
    ]  # fmt: skip
    text = speed.render({"date": "d", "commit": "c", "machine": "m", "tests": rows})
    assert "| a | 2 | 0.150 | 0.110 | 0.85 | 1.20 (t2) | 1 |" in text
    assert "slower than ns-2 on **1 of 2** tests" in text
    # the rounds' own ratios, where kept, decide: t2 was faster in most of its rounds
    rows[1] |= {"wall_ratio": 0.9, "cpu_ratio": 0.95}
    text = speed.render({"date": "d", "commit": "c", "machine": "m", "tests": rows})
    assert "| a | 2 | 0.150 | 0.110 | 0.70 | 0.90 (t2) | 0 |" in text
    assert "slower than ns-2 on **0 of 2** tests" in text


def test_a_short_test_gets_more_rounds_an_odd_number_of_them() -> None:
    # 0.6 s of ns-2 runs: 80 ms -> 8 -> 9 rounds, 120 ms -> 5, 300 ms -> at least 3; capped
    assert speed.rounds_for(0.08, 3, 0.6, 9) == 9
    assert speed.rounds_for(0.12, 3, 0.6, 9) == 5
    assert speed.rounds_for(0.3, 3, 0.6, 9) == 3
    assert speed.rounds_for(0.01, 3, 0.6, 9) == 9
    assert speed.rounds_for(0.01, 3, 0.6, 10) == 9
    assert speed.rounds_for(0.2, 5, 0.0, 9) == 5


def test_readme_states_the_measured_coverage() -> None:
    t = table.totals(DATA["tests"])
    text = (ROOT / "README.md").read_text()
    m = re.search(r"ns-2\.35's own validation suites:\s+(\d+)\s+of\s+(\d+)\s+tests\s+give", text)
    assert m, "README.md has no line on ns-2's validation suites"
    assert (int(m[1]), int(m[2])) == (t["pass"], t["tests"])
    g = table.target_totals(DATA["tests"])
    m = re.search(r"\((\d+)\s+of\s+the\s+(\d+)\s+tests\s+of\s+the\s+22\s+suites", text)
    assert m, "README.md does not state the 22 target suites' coverage"
    assert (int(m[1]), int(m[2])) == (g["pass"], g["tests"])


def test_readme_states_the_measured_speed() -> None:
    rows = speed.load()["tests"]
    slower = sum(1 for r in rows if speed.wall_ratio(r) > 1.0)
    median = statistics.median(speed.wall_ratio(r) for r in rows)
    text = " ".join((ROOT / "README.md").read_text().split())
    m = re.search(
        r"timed side by side with ns-2, (\d+) of (\d+) run slower under bufferlab "
        r"\(median wall-time ratio (\d\.\d\d)[;)]",
        text,
    )
    assert m, "README.md does not state the suites' side-by-side speed"
    assert (int(m[1]), int(m[2]), m[3]) == (slower, len(rows), f"{median:.2f}")


def test_outcomes_are_classified_as_documented() -> None:
    rands = b"0 1\n1 2\n"
    ok = Run(0, 1.0, "", rands)
    assert classify(ok, Run(0, 0.5, "", rands), 60) == ("pass", "")
    out, detail = classify(ok, Run(0, 0.5, "", b"0 1\n1 3\n"), 60)
    assert (out, detail) == ("differs", 'line 2 of 2: ns-2 "1 2", bufferlab "1 3"')
    refusal = "warning: x\nerror: test-suite-red.tcl:42: `new Queue/REM`: REM is not modelled\n"
    assert classify(ok, Run(2, 0.1, refusal, None), 60) == (
        "refused",
        "`new Queue/REM`: REM is not modelled",
    )
    two_errors = refusal + "error: and another\n"
    assert classify(ok, Run(2, 0.1, two_errors, None), 60)[0] == "crash"
    assert classify(ok, Run(3, 0.1, "Traceback ...\nKeyError: 1\n", None), 60)[0] == "crash"
    assert classify(ok, Run(None, 60.0, "", None), 60) == ("crash", "timeout after 60 s")
    assert classify(ok, Run(0, 0.5, "", None), 60)[0] == "crash"  # no temp.rands
    assert classify(Run(1, 0.1, "boom\n", None), Run(None, 0, "", None), 60)[0] == "ns-2 fails"


@needs_ns2_testsuite
def test_the_data_lists_every_test_of_every_suite() -> None:
    everything = [(s, t) for s in harness.suites() for t in harness.tests_of(s)]
    assert [_key(x) for x in DATA["tests"]] == everything


@needs_ns
@needs_ns2_testsuite
def test_a_sample_gives_the_recorded_outcomes() -> None:
    if lacking := cli.missing_tools():
        pytest.skip(f"ns-2's runs of the suites need {', '.join(lacking)} (make system-deps)")
    picked = cli.sample()
    assert len({s for s, _ in picked}) == len(harness.suites())
    recorded = {_key(x): x for x in DATA["tests"]}
    rows = cli.run_all(picked, jobs=2, timeout=120, rerun_ns=False, progress=False)
    stale = []
    for row in rows:
        old = recorded[_key(row)]
        # crash details (a traceback's last line, a time) may vary; the other details may not
        same = row["outcome"] == old["outcome"] and (
            row["outcome"] in ("crash", "ns-2 fails") or row["detail"] == old["detail"]
        )
        if not same:
            stale.append(
                f"{row['suite']} {row['test']}: now {row['outcome']} {row['detail']!r}, "
                f"recorded {old['outcome']} {old['detail']!r}"
            )
    assert not stale, "stale outcomes (make ns2-suites rewrites them):\n" + "\n".join(stale)
