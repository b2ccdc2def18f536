#!/usr/bin/env python3
"""The gallery page: a few examples run through bufferlab, and the figures of their results.

Each entry runs one of examples/*.toml with ``bufferlab.run`` (with overrides where a shorter
run reads better; the caption says which) and saves one of ``res.plot``'s figures as a PNG in
docs/gallery/; docs/gallery.md shows them with a caption naming the example and the command
that draws the same figure. The runs take well under a second each.

    python3 docs/gen/gallery.py       # rewrite docs/gallery/*.png and docs/gallery.md
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT_DIR = ROOT / "docs" / "gallery"
PAGE = ROOT / "docs" / "gallery.md"
# Axis labels that are themselves the unit of a count.
COUNT_UNITS = {"packets", "bytes"}


@dataclass
class Entry:
    image: str  # file name in docs/gallery/
    example: str  # path of the scenario, relative to the repository
    figure: str  # the method of Results.plot: queue, flows, cwnd
    title: str
    text: str  # what the figure shows
    overrides: dict[str, str] = field(default_factory=dict)
    why: str = ""  # why the overrides, when there are some


ENTRIES = [
    Entry(
        image="dumbbell_udp_queue.png",
        example="examples/dumbbell_udp.toml",
        figure="queue",
        title="A DropTail queue under UDP traffic",
        text="Three UDP sources (CBR, Poisson and on/off) share a 10 Mbit/s bottleneck with a "
        "50-packet DropTail buffer; the queue is sampled every 10 ms. The dashed line is the "
        "running mean of the samples.",
    ),
    Entry(
        image="dumbbell_udp_flows.png",
        example="examples/dumbbell_udp.toml",
        figure="flows",
        title="What each flow got",
        text="The same run: packets sent, received and lost per flow, and each flow's goodput.",
    ),
    Entry(
        image="red_vs_droptail_udp_queue.png",
        example="examples/red_vs_droptail_udp.toml",
        figure="queue",
        title="RED's average against the instantaneous queue",
        text="Two UDP flows overload a 10 Mbit/s bottleneck by 2 % through RED (ns-3 preset, "
        "thresholds 20 and 60 packets, limit 100 packets); the dashed line is RED's own "
        "exponentially weighted average, which decides the early drops.",
    ),
    Entry(
        image="paper004_red_cwnd.png",
        example="examples/paper004_red.toml",
        figure="cwnd",
        title="TCP Reno's congestion window over RED",
        text="Four TCP Reno flows with ns-2's defaults over a RED bottleneck (seed paper 004); "
        "the window of flow tcp0, sampled every 100 ms, shows Reno's additive increase and "
        "its halvings.",
        overrides={"duration": "30s"},
        why="the example runs 200 s; 30 s keep the sawtooth readable",
    ),
    Entry(
        image="fair_queueing_udp_flows.png",
        example="examples/fair_queueing_udp.toml",
        figure="flows",
        title="DRR shares the link fairly",
        text="Three UDP flows of 8 Mbit/s each, with 200 B, 576 B and 1500 B packets, through a "
        "Deficit Round Robin bottleneck of 10 Mbit/s: each gets a third of the link's bytes "
        "whatever its packet size (the command's table: 3.33 Mbit/s of throughput each). "
        "Goodput, drawn here, leaves out the 28 header bytes of every packet, a larger share "
        "of a small one.",
    ),
]


def command(e: Entry) -> str:
    sets = "".join(f" --set {k}={v}" for k, v in e.overrides.items())
    return f"bufferlab run {e.example}{sets}"


def python_lines(e: Entry) -> str:
    ov = f", overrides={e.overrides!r}" if e.overrides else ""
    return f'res = bufferlab.run("{e.example}"{ov})\nres.plot.{e.figure}()'


def draw(e: Entry) -> None:
    import matplotlib.pyplot as plt

    import bufferlab

    res = bufferlab.run(ROOT / e.example, overrides=e.overrides or None)
    fig = getattr(res.plot, e.figure)()
    if fig is None:
        raise SystemExit(f"{e.example}: res.plot.{e.figure}() drew nothing (no series recorded)")
    for ax in fig.axes:  # every numeric axis carries its unit: "name (unit)" or a count's unit
        for label in (ax.get_xlabel(), ax.get_ylabel()):
            if label and "(" not in label and label not in COUNT_UNITS:
                raise SystemExit(f"{e.image}: axis label {label!r} names no unit")
    # No date or version in the file: the same figure gives the same bytes.
    fig.savefig(OUT_DIR / e.image, metadata={"Software": None})
    plt.close(fig)


def page() -> str:
    lines = [
        "# Gallery",
        "",
        "<!-- Written by docs/gen/gallery.py; do not edit. -->",
        "",
        "Figures of a few runs of the scenarios in `examples/`, drawn by `res.plot` (see the "
        "[tutorial](tutorial.md)). Each caption names the example and the command that runs it "
        "(and prints the run's tables); the Python lines under it run it again and draw the "
        "figure. The gallery is regenerated with `python3 docs/gen/gallery.py`.",
        "",
    ]
    for e in ENTRIES:
        lines += [f"## {e.title}", "", f"![{e.title}](gallery/{e.image})", ""]
        caption = f"`{e.example}`: {e.text}"
        if e.overrides:
            sets = ", ".join(f"`{k} = {v}`" for k, v in e.overrides.items())
            caption += f" Shortened with the override {sets}: {e.why}."
        lines += [caption, "", "```", command(e), "```", "", "```python", python_lines(e), "```"]
        lines += [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def main() -> int:
    os.chdir(ROOT)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for e in ENTRIES:
        draw(e)
    PAGE.write_text(page())
    print(f"wrote {PAGE.relative_to(ROOT)} and {len(ENTRIES)} figures in docs/gallery/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
