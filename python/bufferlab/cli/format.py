"""Terminal formatting of one run's results: numbers with units, the flow/queue/link tables."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from bufferlab.display import markup, text
from bufferlab.results import Results

# -- formatting -----------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    if x is None:
        return None
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def fmt_rate(bps: Any) -> str:
    v = _num(bps)
    if v is None:
        return "-"
    v = float(f"{v:.3g}")  # the unit after rounding: 999.97 Mbit/s shows as 1 Gbit/s
    if abs(v) >= 1e12:
        return f"{v / 1e9:,.0f} Gbit/s"
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if abs(v) >= scale:
            return f"{v / scale:.3g} {unit}"
    return f"{v:.3g} bit/s"


def fmt_time(s: Any) -> str:
    v = _num(s)
    if v is None:
        return "-"
    if v == 0:
        return "0"
    v = float(f"{v:.3g}")  # the unit after rounding: 999.97 ms shows as 1 s
    if abs(v) >= 1000:
        return f"{v:,.0f} s"
    if abs(v) >= 1:
        return f"{v:.3g} s"
    if abs(v) >= 1e-3:
        return f"{v * 1e3:.3g} ms"
    return f"{v * 1e6:.3g} µs"


def fmt_int(n: Any) -> str:
    v = _num(n)
    return "-" if v is None else f"{int(v):,}"


def fmt_pct(part: Any, whole: Any) -> str:
    p, w = _num(part), _num(whole)
    if p is None or not w:
        return "-"
    return f"{100 * p / w:.2f}%"


def fmt_float(x: Any, digits: int = 3) -> str:
    v = _num(x)
    return "-" if v is None else f"{v:.{digits}g}"


def output_console(width: int = 160) -> Console:
    """The console for a command's tables: the terminal's width on a terminal; elsewhere
    ``$COLUMNS`` when set (tables are fitted to it), else ``width``, wide enough that a file or
    a pipe gets each table whole in one piece. No emoji codes: a name ``:smile:`` is text."""
    if sys.stdout.isatty():
        return Console(emoji=False)
    columns = os.environ.get("COLUMNS", "")
    return Console(
        width=int(columns) if columns.isdigit() and int(columns) > 0 else width, emoji=False
    )


def _link_name(rec: dict[str, Any]) -> Text:
    return text(f"{rec.get('link')} {rec.get('from')}→{rec.get('to')}")


def print_fitted(
    console: Console,
    title: str,
    columns: Sequence[str | Text],
    rows: Sequence[Sequence[str | Text]],
    *,
    key: int = 1,
    left: int = 1,
) -> None:
    """Prints a table whose every value is whole at the console's width.

    Columns are never squeezed: no value is cut or folded. When the table is wider than the
    console, its columns are split over several tables, each repeating the first ``key``
    columns (the row's name). Headers may wrap at spaces. ``left`` columns are left-aligned.
    A ``str`` title, header or cell is rich markup; a user's text goes in as a ``Text``
    (:func:`bufferlab.display.text`), shown as it is.
    """

    def width_of(v: str | Text) -> int:
        return v.cell_len if isinstance(v, Text) else cell_len(v)

    def need(i: int) -> int:
        cells = [width_of(r[i]) for r in rows]
        return max([*cells, *(cell_len(w) for w in str(columns[i]).split())] or [1])

    widths = [need(i) for i in range(len(columns))]

    def table(cols: list[int], part: str) -> Table:
        t = Table(title=part, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for i in [*range(key), *cols]:
            t.add_column(
                columns[i],
                justify="left" if i < left else "right",
                no_wrap=False,
                width=widths[i],
                overflow="fold",
            )
        for r in rows:
            t.add_row(*(r[i] for i in [*range(key), *cols]))
        return t

    def rendered_width(cols: list[int]) -> int:
        # Every column has exactly its width (headers wrap at spaces); SIMPLE_HEAD without
        # edge padding adds an edge each side and three characters between columns.
        return sum(widths[i] for i in [*range(key), *cols]) + 3 * (key + len(cols)) - 1

    room = max(console.width, 20)
    groups: list[list[int]] = []
    current: list[int] = []
    for i in range(key, len(columns)):
        if current and rendered_width([*current, i]) > room:
            groups.append(current)
            current = []
        current.append(i)
    groups.append(current)
    for g, cols in enumerate(groups):
        part = title if len(groups) == 1 else f"{title} ({g + 1}/{len(groups)})"
        console.print(table(cols, part))


def _queue_cells(q: dict[str, Any]) -> list[str]:
    """A queue's (or a queue class's) numbers in the queue table, after its name and kind."""
    return [
        fmt_int(q.get("arrivals")),
        fmt_int(q.get("drops")),
        fmt_pct(q.get("drops"), q.get("arrivals")),
        fmt_int(q.get("marks")),
        fmt_float(q.get("avg_packets")),
        fmt_int(q.get("max_packets")),
        fmt_time(q.get("sojourn_mean_s")),
        fmt_time(q.get("sojourn_p99_s")),
    ]


def _interval(raw: dict[str, Any]) -> str:
    """Over which simulated interval the report's numbers are: they start at the warm-up."""
    end, warm = _num(raw.get("sim_time_s")) or 0.0, _num(raw.get("warmup_s")) or 0.0
    if warm <= 0:
        return f"Counters, rates and delays cover the whole run, 0 to {fmt_time(end)}."
    return (
        f"Counters, rates and delays cover {fmt_time(warm)} to {fmt_time(end)} "
        f"({fmt_time(max(end - warm, 0.0))} after a {fmt_time(warm)} warm-up)."
    )


def _busy(q: dict[str, Any]) -> bool:
    """A queue worth a row: it dropped or marked, or a packet waited behind another."""
    return bool(
        (q.get("drops") or 0) > 0 or (q.get("marks") or 0) > 0 or (q.get("max_packets") or 0) > 1
    )


#: The flow table's rows at most: a workload's hundreds of flows are in --json and -o DIR.
MAX_FLOW_ROWS = 50


def _print_flows(raw: dict[str, Any], console: Console) -> None:
    flows = raw.get("flows", [])
    flow_rows = [
        [
            text(f.get("name")),
            text(f"{f.get('src')} → {f.get('dst')}"),
            text(f"{f.get('protocol')}/{f.get('app')}"),
            fmt_int(f.get("tx_packets")),
            fmt_int(f.get("rx_packets")),
            fmt_pct(f.get("lost_packets"), f.get("tx_packets")),
            fmt_rate(f.get("throughput_bps")),
            fmt_rate(f.get("goodput_bps")),
            fmt_time(f.get("delay_mean_s")),
            fmt_time(f.get("delay_p99_s")),
            fmt_time(f.get("jitter_s")),
        ]
        for f in flows[:MAX_FLOW_ROWS]
    ]
    print_fitted(
        console,
        "Flows (one-way delay: source to sink)",
        ["flow", "path", "app", "sent", "received", "loss", "throughput", "goodput",
         "one-way delay mean", "one-way delay p99", "jitter"],
        flow_rows,
        left=3,
    )  # fmt: skip
    if len(flows) > MAX_FLOW_ROWS:
        console.print(
            f"{len(flows) - MAX_FLOW_ROWS} more flows not shown; --json or -o DIR (flows.csv) "
            "has every flow."
        )


def _print_queues(raw: dict[str, Any], console: Console, all_queues: bool) -> None:
    active = [q for q in raw.get("queues", []) if (q.get("arrivals") or 0) > 0]
    shown = active if all_queues else [q for q in active if _busy(q)]
    # the busiest first: most packets waiting on average, then most drops
    shown = sorted(
        shown, key=lambda q: (-(_num(q.get("avg_packets")) or 0.0), -(q.get("drops") or 0))
    )
    queue_rows = []
    for q in shown:
        queue_rows.append([_link_name(q), text(q.get("discipline")), *_queue_cells(q)])
        # a class-based queue's classes (DualPI2's L and C) below it, each with its own delay
        for c in q.get("classes") or []:
            queue_rows.append(
                [text(f"  └ {c.get('name')}"), text(c.get("discipline") or ""), *_queue_cells(c)]
            )
    title = "Queues (busiest first)" if not all_queues else "Queues (all with arrivals)"
    if queue_rows:
        print_fitted(
            console,
            title,
            ["queue", "discipline", "arrivals", "drops", "drop %", "marks", "avg pkts",
             "max pkts", "sojourn mean", "sojourn p99"],
            queue_rows,
            left=2,
        )  # fmt: skip
    folded = len(active) - len(shown)
    if folded:
        console.print(
            f"{folded} idle queue{'s' if folded > 1 else ''} folded away (no drops or marks, "
            "never a packet waiting behind another); --all-queues shows them."
        )


def _print_links(raw: dict[str, Any], console: Console, busiest: int) -> None:
    used = [ln for ln in raw.get("links", []) if (ln.get("tx_packets") or 0) > 0]
    used.sort(key=lambda ln: -(_num(ln.get("utilisation")) or 0.0))
    # the queue in front of each link direction: its drops beside the link's own losses
    drops = {
        (q.get("link"), q.get("from"), q.get("to")): q.get("drops") for q in raw.get("queues", [])
    }
    link_rows = []
    for ln in used[:busiest]:
        util = _num(ln.get("utilisation"))
        link_rows.append(
            [
                _link_name(ln),
                fmt_rate(ln.get("rate_bps")),
                fmt_time(ln.get("delay_s")),
                fmt_int(ln.get("tx_packets")),
                "-" if util is None else f"{100 * util:.1f}%",
                fmt_int(drops.get((ln.get("link"), ln.get("from"), ln.get("to")))),
                fmt_int(ln.get("lost_packets")),
            ]
        )
    print_fitted(
        console,
        f"Busiest links (top {busiest} by utilisation)",
        ["link", "rate", "delay", "packets sent", "utilisation", "queue drops",
         "lost on link"],
        link_rows,
    )  # fmt: skip


def _print_fct(raw: dict[str, Any], console: Console) -> None:
    """Flow completion times by size bucket (docs/models/fct.md): the slowdown is the FCT over
    the ideal FCT of that size alone on the idle path."""
    buckets = (raw.get("fct") or {}).get("buckets") or []
    if not buckets:
        return
    rows = [
        [
            text(b.get("bucket")),
            fmt_int(b.get("count")),
            fmt_int(b.get("unfinished")),
            fmt_float(b.get("slowdown_mean")),
            fmt_float(b.get("slowdown_p50")),
            fmt_float(b.get("slowdown_p99")),
            fmt_float(b.get("slowdown_p999")),
            fmt_time(b.get("fct_p99_s")),
        ]
        for b in buckets
    ]
    # eight columns: within 80 characters (docs/models/fct.md)
    print_fitted(
        console,
        "Flow completion times (slowdown = FCT / ideal FCT alone on an idle path)",
        ["size", "flows done", "not done", "slowdown mean", "slowdown p50", "slowdown p99",
         "slowdown p99.9", "FCT p99"],
        rows,
    )  # fmt: skip
    q = (raw.get("fct") or {}).get("qct")
    if q:
        console.print(
            f"Incast queries: {fmt_int(q.get('count'))} done, {fmt_int(q.get('unfinished'))} "
            f"not done; completion time mean {fmt_time(q.get('qct_mean_s'))}, p50 "
            f"{fmt_time(q.get('qct_p50_s'))}, p99 {fmt_time(q.get('qct_p99_s'))}, p99.9 "
            f"{fmt_time(q.get('qct_p999_s'))}"
        )


def print_report(
    res: Results, console: Console, busiest: int = 5, all_queues: bool = False
) -> None:
    """One run's report as tables: a header saying the measured interval, the flows, the busy
    queues (idle ones folded away unless ``all_queues``), the busiest links and fairness."""
    raw = res.raw
    console.print(
        f"[bold]{markup(raw.get('scenario', ''))}[/bold]  seed {raw.get('seed')}  "
        f"simulated {fmt_time(raw.get('sim_time_s'))} in {fmt_time(raw.get('wall_s'))} "
        f"({fmt_int(raw.get('events'))} events)"
        + ("  [yellow](partial run)[/yellow]" if raw.get("partial") else "")
    )
    console.print(_interval(raw))
    _print_flows(raw, console)
    _print_queues(raw, console, all_queues)
    _print_links(raw, console, busiest)
    _print_fct(raw, console)

    fair = raw.get("fairness") or {}
    names = fair.get("flows") or []
    mean, std = fmt_rate(fair.get("throughput_mean_bps")), fmt_rate(fair.get("throughput_std_bps"))
    shown = [*names[:5], "…", names[-1]] if len(names) > 8 else names
    console.print(
        f"Fairness: Jain index [bold]{fmt_float(fair.get('jain'))}[/bold] over {len(names)} "
        f"flows ({markup(', '.join(map(str, shown)))}); throughput mean "
        f"{mean}, std {std}"
    )
