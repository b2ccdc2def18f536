"""Figures of one run (matplotlib, Agg backend), from its series and flow table: what
:attr:`bufferlab.Results.plot` draws in a notebook and what a sweep's report shows for its
chosen run (:mod:`bufferlab.experiments.figures` re-exports them).

* :func:`queue_figure` - queue length (instantaneous and the discipline's average) against time;
* :func:`flows_figure` - per-flow bars: sent / received / lost packets and goodput;
* :func:`cwnd_figure` - congestion window against time (TCP series);
* :func:`flow_series_figure` - per-flow throughput, sends and losses against time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure


def legend_outside(ax: Any) -> None:
    """The legend to the right of the axes, never over the data (the report and the notebooks
    save with a tight bounding box, so it stays in the picture)."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def scaled_unit(kind: str, xs: Sequence[float]) -> tuple[float, str]:
    """The scale and unit to show values of ``kind`` ("bytes", "bit/s", "s") in."""
    big = max((abs(x) for x in xs), default=0)
    if kind == "bytes":
        return (1e3, "KB") if big >= 1e3 else (1, "B")
    if kind == "bit/s":
        for s, u in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
            if big >= s:
                return s, u
        return 1, "bit/s"
    if kind == "s":
        return (1e-3, "ms") if big < 1 else (1, "s")
    return 1, kind


def queue_figure(series: pd.DataFrame, title: str = "", link: str | None = None) -> Figure:
    """Queue length against time for each queue of a run's ``queues`` series (long format), with
    the discipline's own average (RED's EWMA) or else the running mean of the samples.

    Each quantity is drawn in its own unit: a discipline that averages bytes (RED in byte mode,
    ``average_unit == "bytes"``) puts the figure in bytes, queue and average alike; otherwise it
    is in packets."""
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    df = series if link is None else series[series["link"] == link]
    units = set()
    for (ln, fr, to), g in df.groupby(["link", "from", "to"], sort=False):
        if not (g["packets"] > 0).any():
            continue
        has_avg = "average" in g and g["average"].notna().any()
        unit = "packets"
        if has_avg and "average_unit" in g and (g["average_unit"] == "bytes").any():
            unit = "bytes"
        units.add(unit)
        (line,) = ax.plot(g["t_s"], g[unit], lw=0.8, label=f"{ln} {fr}→{to}")
        if has_avg:
            ax.plot(g["t_s"], g["average"], lw=1.5, color=line.get_color(), ls="--",
                    label=f"{ln} {fr}→{to} (average)")  # fmt: skip
        else:
            # The running time-average of the samples, for disciplines without their own.
            avg = g[unit].expanding().mean()
            ax.plot(g["t_s"], avg, lw=1.5, color=line.get_color(), ls="--",
                    label=f"{ln} {fr}→{to} (running mean)")  # fmt: skip
    if units == {"bytes", "packets"}:
        ax.set_ylabel("queue length (bytes for RED byte mode, else packets)")
    else:
        ax.set_ylabel(f"queue length ({units.pop() if units else 'packets'})")
    ax.set_xlabel("time (s)")
    ax.set_ylim(bottom=0)  # lengths start at zero: no cropped axis exaggerates a swing
    ax.grid(True, alpha=0.3)
    if ax.lines:
        legend_outside(ax)
    ax.set_title(title or "queue length", fontsize=10)
    fig.tight_layout()
    return fig


def flows_figure(flows: pd.DataFrame, title: str = "") -> Figure:
    """Per-flow bars: packets sent, received and lost, and goodput (one run or a mean)."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.6), dpi=100)
    names = [str(n) for n in flows["name"]]
    idx = list(range(len(names)))
    w = 0.27
    for off, col, label in ((-w, "tx_packets", "sent"), (0, "rx_packets", "received"),
                            (w, "lost_packets", "lost")):  # fmt: skip
        a1.bar([i + off for i in idx], flows[col], width=w, label=label)
    a1.set_xticks(idx, names, rotation=30 if len(names) > 6 else 0)
    a1.set_ylabel("packets")
    legend_outside(a1)
    a2.bar(idx, flows["goodput_bps"] / 1e6, color="tab:green")
    a2.set_xticks(idx, names, rotation=30 if len(names) > 6 else 0)
    a2.set_ylabel("goodput (Mbit/s)")
    for a in (a1, a2):
        a.grid(True, axis="y", alpha=0.3)
    fig.suptitle(title or "flows", fontsize=10)
    fig.tight_layout()
    return fig


def cwnd_figure(tcp_series: pd.DataFrame | None, title: str = "") -> Figure | None:
    """Congestion window against time per TCP flow, from a ``tcp`` series in long format
    (columns ``flow`` or ``name``, ``t_s``, ``cwnd`` in bytes or packets). None without one."""
    if tcp_series is None or tcp_series.empty or "t_s" not in tcp_series:
        return None
    ycol = next((c for c in ("cwnd", "cwnd_bytes", "cwnd_packets") if c in tcp_series), None)
    if ycol is None:
        return None
    who = next((c for c in ("flow", "name") if c in tcp_series), None)
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    groups = tcp_series.groupby(who, sort=False) if who else [("", tcp_series)]
    in_bytes = ycol != "cwnd_packets"
    scale, unit = scaled_unit("bytes", list(tcp_series[ycol])) if in_bytes else (1, "packets")
    for name, g in groups:
        ax.step(g["t_s"], g[ycol] / scale, where="post", lw=0.9, label=str(name))
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"congestion window ({unit})")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if who:
        legend_outside(ax)
    ax.set_title(title or "congestion window", fontsize=10)
    fig.tight_layout()
    return fig


def flow_series_figure(series: pd.DataFrame | None, title: str = "") -> Figure | None:
    """Per-flow series against time (``monitor.flow_interval``): throughput delivered in each
    interval, and packets sent and lost in each interval, one line per flow (seed 004's
    per-source figures). None without a series."""
    if series is None or series.empty or "t_s" not in series:
        return None
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(7, 7.2), dpi=100, sharex=True)
    scale, unit = scaled_unit("bit/s", list(series["throughput_bps"]))
    for name, g in series.groupby("flow", sort=False):
        a1.step(g["t_s"], g["throughput_bps"] / scale, where="pre", lw=0.9, label=str(name))
        a2.step(g["t_s"], g["tx_packets"], where="pre", lw=0.9)
        a3.step(g["t_s"], g["lost_packets"], where="pre", lw=0.9)
    dt = float(series["interval_s"].iloc[0]) if "interval_s" in series else None
    per = f" per {dt:g} s" if dt else " per interval"
    a1.set_ylabel(f"throughput ({unit})")
    a2.set_ylabel(f"packets sent{per}")
    a3.set_ylabel(f"packets lost{per}")
    a3.set_xlabel("time (s)")
    for a in (a1, a2, a3):
        a.set_ylim(bottom=0)  # rates and counts start at zero
        a.grid(True, alpha=0.3)
    legend_outside(a1)
    fig.suptitle(title or "per-flow series", fontsize=10)
    fig.tight_layout()
    return fig
