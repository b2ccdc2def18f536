"""Queue classes count from the warm-up and show in the run table (issue #36).

crates/bufferlab-core/tests/warmup_counters.rs checks every field of the report; here the
Python side: DualPI2's L and C queues in the terminal table and as sweep metrics.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import bufferlab
from bufferlab.cli.format import print_report
from bufferlab.experiments.store import report_rows

L4S = Path(__file__).resolve().parents[1] / "examples" / "l4s_dualpi2.toml"


@pytest.fixture(scope="module")
def l4s():
    return bufferlab.run(L4S, overrides=["duration=16s", "warmup=6s"])


def _dualpi2(res):
    return next(q for q in res.raw["queues"] if q["discipline"] == "dualpi2")


def test_classes_count_what_their_queue_counts(l4s):
    q = _dualpi2(l4s)
    classes = {c["name"]: c for c in q["classes"]}
    assert set(classes) == {"l", "c"}
    for field in ("arrivals", "departures", "drops", "marks"):
        assert sum(c[field] for c in classes.values()) == q[field], field
    # the queue's sojourn mean is the classes' weighted by their departures
    total = sum(c["sojourn_mean_s"] * c["departures"] for c in classes.values())
    assert total / q["departures"] == pytest.approx(q["sojourn_mean_s"], rel=1e-9)


def test_the_run_table_shows_the_l_and_c_queues(l4s):
    buf = io.StringIO()
    print_report(l4s, console=_console(buf), all_queues=True)
    lines = [line for line in buf.getvalue().splitlines() if "└" in line]
    # the data direction's classes first, then the ACKs' (all in C)
    assert [line.split()[1] for line in lines] == ["l", "c", "l", "c"]
    # by default the ACK direction (no drop, no mark, never two packets queued) is folded away
    buf = io.StringIO()
    print_report(l4s, console=_console(buf))
    lines = [line for line in buf.getvalue().splitlines() if "└" in line]
    assert [line.split()[1] for line in lines] == ["l", "c"]
    assert "idle queue" in buf.getvalue() and "folded away" in buf.getvalue()
    rows = {"l": lines[0], "c": lines[1]}
    # L near its 1 ms step, C near the 15 ms PI target (RFC 9332)
    assert " ms" in rows["c"] and "µs" in rows["l"], rows


def test_sweeps_read_each_class_as_a_queue_column(l4s):
    row = next(r for r in report_rows(l4s.raw)["queues"] if r["discipline"] == "dualpi2")
    q = {c["name"]: c for c in _dualpi2(l4s)["classes"]}
    assert row["class_l_sojourn_p99_s"] == q["l"]["sojourn_p99_s"]
    assert row["class_c_arrivals"] == q["c"]["arrivals"]
    assert row["class_c_sojourn_mean_s"] > 10 * row["class_l_sojourn_mean_s"]


def _console(buf):
    from rich.console import Console

    return Console(file=buf, width=160, color_system=None)


def test_the_run_table_says_its_interval_and_what_each_delay_is(l4s):
    """Issue #36: the tables say over which interval the rates are (not only "simulated 30 s"),
    call the flows' delay one-way, and show the queue's drops beside the link's own losses."""
    import re

    buf = io.StringIO()
    print_report(l4s, console=_console(buf))
    out = buf.getvalue()
    warm, end = l4s.raw["warmup_s"], l4s.raw["sim_time_s"]
    assert warm > 0
    m = re.search(r"Counters, rates and delays cover (\S+) s to (\S+) s \((\S+) s after a", out)
    assert m and (float(m[1]), float(m[2]), float(m[3])) == (warm, end, end - warm), out
    assert "Flows (one-way delay: source to sink)" in out
    links = out[out.index("Busiest links") :]
    assert all(word in links.split() for word in ("queue", "drops", "lost", "on", "link"))
    row = next(
        line
        for line in out.splitlines()
        if line.startswith(" bottleneck r0→r1") and "bit/s" in line
    )
    q = next(q for q in l4s.raw["queues"] if q["link"] == "bottleneck" and q["from"] == "r0")
    assert f"{q['drops']:,}" in row.split(), row
