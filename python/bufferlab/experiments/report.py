"""One self-contained HTML page for a sweep: scenario, grid, runs, aggregated tables, figures.

Figures are embedded as base64 PNG, styles inline: the page opens anywhere, offline, and can be
mailed or committed. A small script fills ``#render-check`` once the page has loaded (how many
images decoded), which the tests read from a headless browser.
"""

from __future__ import annotations

import base64
import datetime as dt
import os
from pathlib import Path
from typing import Any

from bufferlab.experiments import figures as plot
from bufferlab.experiments.labels import mean_ci_text
from bufferlab.experiments.metrics import parse_metric
from bufferlab.experiments.store import Store

_CSS = """
body { font-family: system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ddd;
     padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.88em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th { background: #f4f4f4; } td.l, th.l { text-align: left; }
pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
img { max-width: 100%; } .meta { color: #666; font-size: 0.9em; }
.failed { color: #b00; }
"""

_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  var el = document.getElementById('render-check');
  el.setAttribute('data-images', String(imgs.length));
  el.setAttribute('data-images-ok', String(ok));
  el.setAttribute('data-tables', String(document.querySelectorAll('table').length));
  el.textContent = 'rendered: ' + ok + '/' + imgs.length + ' figures';
});
"""


def _fmt_num(v: Any) -> str:
    if v is None:
        return "-"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if f != f:  # NaN
        return "-"
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}"


def _pivot(agg: Any, x: str | None, others: list[str], scale: float) -> dict[str, Any]:
    """Mean ± CI half-width (and n) with the x axis down and the other axes across."""

    def cell(r: Any) -> str:
        if r["n"] == 0:
            return "-"
        text = mean_ci_text(r["mean"], r["ci_half"], scale)
        if r.get("ci_clipped"):
            # the t interval crossed a physical bound: say so and give the clipped interval
            text = (f"{r['mean'] / scale:.4g} (CI {r['ci_low'] / scale:.2g} to "
                    f"{r['ci_high'] / scale:.2g}, clipped at the bound)")  # fmt: skip
        return text + f" (n={int(r['n'])})"

    if x is None:
        return {"headers": ["mean ± CI"], "rows": [[cell(r)] for _, r in agg.iterrows()], "left": 1}
    cols: list[tuple[Any, ...]] = []
    for _, r in agg.iterrows():
        k = tuple(r[o] for o in others)
        if k not in cols:
            cols.append(k)
    xs = list(dict.fromkeys(agg[x].tolist()))
    grid = {(r[x], tuple(r[o] for o in others)): cell(r) for _, r in agg.iterrows()}
    names = plot.axis_labels([x, *others])
    heads = [x] + [", ".join(f"{names[o]}={v}" for o, v in zip(others, k, strict=True))
                   or "mean ± CI" for k in cols]  # fmt: skip
    rows = [[xv, *(grid.get((xv, k), "-") for k in cols)] for xv in xs]
    return {"headers": heads, "rows": rows, "left": len(heads)}


def _range_sentence(label: str, lo: Any, hi: Any, axes: list[str], scale: float) -> str:
    """The summary's line for a metric: its lowest and highest point, called a difference only
    when their 95 % intervals do not overlap."""
    low = f"{lo['mean'] / scale:.4g} at {_where(lo, axes)}"
    high = f"{hi['mean'] / scale:.4g} at {_where(hi, axes)}"
    if lo["n"] < 2 or hi["n"] < 2 or lo["ci_high"] != lo["ci_high"]:
        return f"{label}: from {low} to {high} (one replication: no interval to compare)."
    if hi["ci_low"] <= lo["ci_high"]:
        return (f"{label}: no significant difference across the grid: the 95 % intervals of "
                f"the lowest ({low}) and the highest ({high}) overlap.")  # fmt: skip
    return f"{label}: from {low} to {high} (95 % intervals apart)."


def _where(row: Any, axes: list[str]) -> str:
    """A grid point in words: ``limit=10KB, rate=0.1MB/s``."""
    names = plot.axis_labels(axes)
    return ", ".join(f"{names[a]}={row[a]}" for a in axes) or "the only point"


def _img(png: bytes, caption: str) -> dict[str, str]:
    return {"b64": base64.b64encode(png).decode(), "caption": caption}


def _template() -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("bufferlab", "templates"),
        autoescape=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["num"] = _fmt_num
    return env.get_template("report.html.j2")


def build_report(db: str | os.PathLike[str] | Store, sweep: str) -> str:
    """The HTML text of the report of ``sweep`` in the store ``db``."""
    from bufferlab.display import literal_figure_text

    with literal_figure_text():  # a "$" in a sweep's names is text in its figures
        return _build_report(db, sweep)


def _build_report(db: str | os.PathLike[str] | Store, sweep: str) -> str:
    from bufferlab.experiments import identical
    from bufferlab.experiments.stats import aggregate

    store = db if isinstance(db, Store) else Store(db, read_only=True)
    try:
        info = store.sweep_info(sweep)
        axes: list[str] = info["axes"]
        runs = store.runs(sweep)
        grid = info["grid"] or {}
        grid_rows = [
            [a, "grid", ", ".join(map(str, v))] for a, v in (grid.get("grid") or {}).items()
        ]
        for i, z in enumerate(grid.get("zip") or []):
            grid_rows += [[a, f"zip {i}", ", ".join(map(str, v))] for a, v in z.items()]

        # Aggregated tables (one row per value of the x axis, one column per combination of
        # the other axes, like the papers' tables) and a figure per metric.
        x = plot.default_x_axis(axes) if axes else None
        others = [a for a in axes if a != x]
        metrics = []
        summary: list[str] = []
        representative: tuple[int, str, str] | None = None
        for m in info["metrics"]:
            try:
                parse_metric(m)
                agg = aggregate(store, sweep, m)
            except Exception as e:  # a metric that does not exist in these results
                metrics.append({"name": m, "error": str(e)})
                continue
            label, scale = plot.metric_label(m)
            fig = None
            if axes and agg["n"].sum() > 0:
                png = plot.to_png_bytes(plot.metric_figure(agg, m, axes=axes))
                fig = _img(png, f"{m} against {x}")
            pivot = _pivot(agg, x, others, scale)
            found = agg[agg["n"] > 0]
            if len(found) > 1:
                lo, hi = found.loc[found["mean"].idxmin()], found.loc[found["mean"].idxmax()]
                summary.append(_range_sentence(label, lo, hi, axes, scale))
                if representative is None:
                    # The run shown under "One run": replication 0 of the point whose first
                    # metric is the median of the grid, a typical point rather than the first.
                    order = found.sort_values("mean")
                    mid = order.iloc[(len(order) - 1) // 2]
                    representative = (int(mid["point"]), label, _where(mid, axes))
            note = " ".join(
                n[0].upper() + n[1:] + "."
                for n in identical.notes(agg, info["base_scenario"], axes)
            )
            metrics.append(
                {
                    "name": m,
                    "error": None,
                    "label": label,
                    "pivot": pivot,
                    "figure": fig,
                    "note": note,
                }
            )

        run_figures = []
        run_note = ""
        key = None
        if representative is not None:
            point, label, where = representative
            key = plot.first_ok_run(store, sweep, point=point)
            run_note = (
                f"The run shown is the first ok replication of point {point} ({where}): the grid "
                f"point whose {label.rsplit(' (', 1)[0]} is the median of the points."
            )
        if key is None:
            key = plot.first_ok_run(store, sweep)
            run_note = "The run shown is the first ok run of the grid (no metric to choose by)."
        if key is not None:
            what = plot.describe_run(store, key)
            series = store.series(key, "queues")
            if series is not None and not series.empty:
                fig = plot.queue_figure(series, title=f"queue length: {what}")
                run_figures.append(
                    _img(plot.to_png_bytes(fig), f"Queue length against time, {what}")
                )
            flows = plot.run_flows(store, key)
            if len(flows):
                fig = plot.flows_figure(flows, title=f"flows: {what}")
                run_figures.append(
                    _img(plot.to_png_bytes(fig), f"Per-flow packets and goodput, {what}")
                )
            cw = plot.cwnd_figure(store.series(key, "tcp"), title=f"cwnd: {what}")
            if cw is not None:
                run_figures.append(_img(plot.to_png_bytes(cw), f"Congestion window, {what}"))
            fs = plot.flow_series_figure(
                store.series(key, "flows"), title=f"per-flow series: {what}"
            )
            if fs is not None:
                run_figures.append(
                    _img(plot.to_png_bytes(fs), f"Per-flow throughput, sends and losses, {what}")
                )

        failed = runs[runs["status"] == "failed"] if len(runs) else runs
        failed_rows = [
            [*(r[a] for a in axes), r["replication"], r["error"]] for _, r in failed.iterrows()
        ]
        n_ok = int((runs["status"] == "ok").sum()) if len(runs) else 0
        return _template().render(
            title=f"bufferlab sweep {info['name']}",
            css=_CSS,
            script=_SCRIPT,
            info=info,
            written=f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}",
            planned=len(info["points"]) * int(info["replications"]),
            n_ok=n_ok,
            n_failed=int((runs["status"] == "failed").sum()) if len(runs) else 0,
            grid_rows=grid_rows,
            metrics=metrics,
            summary=summary,
            run_figures=run_figures,
            run_note=run_note if key is not None else "",
            failed_headers=[*axes, "replication", "error"],
            failed_rows=failed_rows,
        )
    finally:
        if not isinstance(db, Store):
            store.close()


def write_report(db: str | os.PathLike[str] | Store, sweep: str, out: str | Path) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(build_report(db, sweep), encoding="utf-8")
    return p
