"""Legends never cover data: every figure of the report and of Results.plot puts its legend
beside the axes. Checked in display coordinates after drawing: no plotted point lies inside a
legend's box, on figures built to tempt a legend inside (data in every corner)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd

from bufferlab.experiments.figures import metric_figure
from bufferlab.run_figures import cwnd_figure, flows_figure, queue_figure


def _covered_points(fig) -> int:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    covered = 0
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        box = leg.get_window_extent(renderer)
        for line in ax.lines:
            xy = ax.transData.transform(np.column_stack(line.get_data()).astype(float))
            inside = (
                (xy[:, 0] >= box.x0)
                & (xy[:, 0] <= box.x1)
                & (xy[:, 1] >= box.y0)
                & (xy[:, 1] <= box.y1)
            )
            covered += int(np.sum(inside))
        for patch in ax.patches:
            corners = patch.get_window_extent(renderer)
            covered += int(box.overlaps(corners))
    return covered


def test_metric_figure_legend_covers_no_point() -> None:
    # three series zig-zagging over the whole range: no corner of the axes is free
    rows = []
    buffers = [f"{k}KB" for k in range(5, 50, 5)]
    for gi, g in enumerate(("a", "b", "c")):
        for i, buf in enumerate(buffers):
            m = 100.0 * ((i + gi) % 3) / 2
            rows.append(
                {
                    "links.bottleneck.queue.limit": buf,
                    "links.bottleneck.rate": g,
                    "metric": "flows[tcp0].delay_mean_s",
                    "n": 5,
                    "mean": m / 1e3,
                    "ci_half": 0.002,
                }
            )
    fig = metric_figure(pd.DataFrame(rows), "flows[tcp0].delay_mean_s")
    assert fig.axes[0].get_legend() is not None
    assert _covered_points(fig) == 0


def test_run_figures_legends_cover_no_data() -> None:
    t = np.linspace(0, 10, 200)
    qs = pd.DataFrame(
        {
            "link": "bottleneck",
            "from": "r0",
            "to": "r1",
            "t_s": t,
            "packets": 50 * np.abs(np.sin(t)),
            "bytes": 0.0,
            "average": np.nan,
        }
    )
    assert _covered_points(queue_figure(qs, link="bottleneck")) == 0
    flows = pd.DataFrame(
        {
            "name": ["f0", "f1", "f2"],
            "tx_packets": [900, 950, 1000],
            "rx_packets": [890, 940, 990],
            "lost_packets": [10, 10, 10],
            "goodput_bps": [1e6, 1e6, 1e6],
        }
    )
    assert _covered_points(flows_figure(flows)) == 0
    tcp = pd.DataFrame(
        {
            "flow": ["a"] * 200 + ["b"] * 200,
            "t_s": np.r_[t, t],
            "cwnd_bytes": np.r_[30e3 + 0 * t, 1e3 + 2e3 * t],
        }
    )
    assert _covered_points(cwnd_figure(tcp)) == 0
