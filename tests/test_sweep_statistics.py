"""Issue #36, statistics that mean something: an interval never crosses a physical bound, the
cause of identical replications is named (pinned, phase-locked or deterministic), the report
calls a difference only when intervals do not overlap, figures of rates start at zero, and
tables read in human units."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bufferlab.experiments import identical
from bufferlab.experiments.labels import column_unit, mean_ci_text, metric_bounds, metric_label
from bufferlab.experiments.stats import clip_to_bounds, summarize


def test_a_share_interval_is_clipped_at_zero_and_says_so():
    # loss ratios of 0, 0, 0, 0 and 2 %: Student's t interval reaches below 0
    row = summarize([0.0, 0.0, 0.0, 0.0, 0.02])
    assert row["ci_low"] < 0
    assert clip_to_bounds(row, metric_bounds("flows[a].loss_ratio")) is True
    assert row["ci_low"] == 0.0 and row["ci_high"] > row["mean"]
    # utilisations near 1: clipped at 1 from above
    row = summarize([0.999, 1.0, 0.98])
    assert row["ci_high"] > 1
    assert clip_to_bounds(row, metric_bounds("links[b].utilisation")) is True
    assert row["ci_high"] == 1.0
    # an interval inside its bounds is left alone
    row = summarize([5.0, 6.0, 7.0])
    before = dict(row)
    assert clip_to_bounds(row, metric_bounds("flows.goodput_bps")) is False
    assert row == before


def test_bounds_of_metrics():
    assert metric_bounds("links[b].utilisation") == (0.0, 1.0)
    assert metric_bounds("fairness.jain") == (0.0, 1.0)
    assert metric_bounds("flows[x].delay_p99_s") == (0.0, math.inf)
    assert metric_bounds("queues.drops:sum") == (0.0, math.inf)
    assert metric_bounds("runs.something_else") == (-math.inf, math.inf)


BASE_RANDOM = """
[[flows]]
name = "a"
start = { kind = "uniform", min = "0s", max = "1s" }
"""
BASE_FIXED = """
[[flows]]
name = "a"
start = "0s"
"""


@pytest.mark.parametrize(
    ("metric", "value", "base", "cause"),
    [
        ("links[b].utilisation", 0.9996, BASE_FIXED, identical.PINNED),
        ("flows.lost_packets:sum", 0.0, BASE_RANDOM, identical.PINNED),
        ("queues[b].max_packets", 100.0, BASE_RANDOM, identical.PINNED),
        ("flows.goodput_bps", 4.2e6, BASE_RANDOM, identical.PHASE_LOCKED),
        ("flows.goodput_bps", 4.2e6, BASE_FIXED, identical.DETERMINISTIC),
    ],
)
def test_identical_replications_name_their_cause(metric, value, base, cause):
    assert identical.reason(metric, value, base) == cause


def test_a_start_axis_counts_as_random_starts():
    assert identical.random_starts(BASE_FIXED, ["flows.0.start"])
    assert not identical.random_starts(BASE_FIXED, ["links.b.queue.limit"])


def test_mean_and_interval_read_to_the_interval_precision():
    assert mean_ci_text(95.73e6, 1.234e6, 1e6) == "95.7 ± 1.2"
    assert mean_ci_text(0.01234, 0.000567, 0.01) == "1.234 ± 0.057"
    assert mean_ci_text(4.2e6, 0.0, 1e6) == "4.2 ± 0"
    assert mean_ci_text(4.2e6, math.nan, 1e6) == "4.2"
    assert mean_ci_text(math.nan, math.nan, 1.0) == "-"


def test_a_column_reads_in_one_human_unit():
    assert column_unit("flows.goodput_bps", [9.57e7, 2e6]) == ("Mbit/s", 1e6)
    assert column_unit("flows.goodput_bps", [950e3]) == ("kbit/s", 1e3)
    assert column_unit("flows[a].delay_mean_s", [0.0123]) == ("ms", 1e-3)
    assert column_unit("flows[a].delay_mean_s", [0.0000123]) == ("µs", 1e-6)
    assert column_unit("links[b].utilisation", [0.5]) == ("%", 0.01)
    assert metric_label("flows[tcp0].delay_mean_s")[0] == "mean one-way delay of tcp0 (ms)"


def _row(mean, low, high, n=5, **axes):
    return pd.Series({"mean": mean, "ci_low": low, "ci_high": high, "n": n, **axes})


def test_the_report_summary_calls_a_difference_only_when_intervals_are_apart():
    from bufferlab.experiments.report import _range_sentence

    lo, hi = _row(10.0, 8.0, 12.0, limit="5KB"), _row(11.0, 9.5, 12.5, limit="50KB")
    s = _range_sentence("goodput (Mbit/s)", lo, hi, ["limit"], 1.0)
    assert "no significant difference" in s and "overlap" in s
    lo, hi = _row(10.0, 9.0, 11.0, limit="5KB"), _row(20.0, 19.0, 21.0, limit="50KB")
    s = _range_sentence("goodput (Mbit/s)", lo, hi, ["limit"], 1.0)
    assert "from 10 at limit=5KB to 20 at limit=50KB" in s and "apart" in s


def test_metric_figures_start_at_zero():
    from bufferlab.experiments.figures import metric_figure

    agg = pd.DataFrame(
        {
            "point": [0, 1],
            "links.b.queue.limit": ["10p", "20p"],
            "metric": ["links[b].utilisation"] * 2,
            "n": [3, 3],
            "mean": [0.97, 0.99],
            "std": [0.01, 0.005],
            "sem": [0.006, 0.003],
            "ci_low": [0.95, 0.98],
            "ci_high": [0.99, 1.0],
            "ci_half": [0.02, 0.012],
            "ci_clipped": [False, True],
        }
    )
    fig = metric_figure(agg, "links[b].utilisation")
    assert fig.axes[0].get_ylim()[0] == 0.0


def test_a_class_metric_reads_as_its_class():
    """DualPI2's L and C queues in sweeps (`class_<name>_<field>`) are named in words."""
    assert metric_label("queues[bottleneck].class_l_sojourn_mean_s") == (
        "mean sojourn time (class l) of bottleneck (ms)",
        1e-3,
    )
    assert metric_bounds("queues[b].class_c_drops") == (0.0, math.inf)
