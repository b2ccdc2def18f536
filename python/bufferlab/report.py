"""One self-contained HTML page for a sweep: scenario, grid, runs, aggregated tables, figures.

Figures are embedded as base64 PNG, styles inline: the page opens anywhere, offline, and can be
mailed or committed. A small script fills ``#render-check`` once the page has loaded (how many
images decoded), which the tests read from a headless browser.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import os
from pathlib import Path
from typing import Any

from bufferlab import plot
from bufferlab.stats import parse_metric
from bufferlab.store import Store

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


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _fmt_num(v: Any) -> str:
    if v is None:
        return "-"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return _e(v)
    if f != f:  # NaN
        return "-"
    if f == int(f) and abs(f) < 1e15:
        return f"{int(f):,}"
    return f"{f:.4g}"


def _table(headers: list[str], rows: list[list[Any]], left: int = 1, cls: str = "") -> str:
    th = "".join(
        f'<th class="{"l" if i < left else ""}">{_e(h)}</th>' for i, h in enumerate(headers)
    )
    body = []
    for r in rows:
        tds = "".join(
            f'<td class="l">{_e(v)}</td>' if i < left else f"<td>{_fmt_num(v)}</td>"
            for i, v in enumerate(r)
        )
        body.append(f"<tr>{tds}</tr>")
    return (
        f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    )


def _pivot(agg: Any, x: str | None, others: list[str], scale: float) -> str:
    """Mean ± CI half-width (and n) with the x axis down and the other axes across."""

    def cell(r: Any) -> str:
        if r["n"] == 0:
            return "-"
        mean = f"{r['mean'] / scale:.4g}"
        ci = r["ci_half"]
        return mean + (f" ± {ci / scale:.2g}" if ci == ci else "") + f" (n={int(r['n'])})"

    if x is None:
        return _table(["mean ± CI"], [[cell(r)] for _, r in agg.iterrows()], left=1)
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
    return _table(heads, rows, left=len(heads))


def _img(png: bytes, caption: str) -> str:
    b64 = base64.b64encode(png).decode()
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{b64}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def build_report(db: str | os.PathLike[str] | Store, sweep: str) -> str:
    """The HTML text of the report of ``sweep`` in the store ``db``."""
    from bufferlab.sweep import aggregate

    store = db if isinstance(db, Store) else Store(db, read_only=True)
    try:
        info = store.sweep_info(sweep)
        axes: list[str] = info["axes"]
        metrics: list[str] = info["metrics"]
        runs = store.runs(sweep)
        n_ok = int((runs["status"] == "ok").sum()) if len(runs) else 0
        n_failed = int((runs["status"] == "failed").sum()) if len(runs) else 0
        planned = len(info["points"]) * int(info["replications"])
        parts: list[str] = []
        parts.append(f"<h1>Sweep {_e(info['name'])}</h1>")
        parts.append(
            f'<p class="meta">{_e(info.get("description") or "")}<br>file {_e(info["file"])} · '
            f"bufferlab {_e(info['bufferlab_version'])} · created {_e(info['created'])} · "
            f"report written {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC</p>"
        )
        parts.append(
            f"<p>{len(info['points'])} grid points x {info['replications']} replications = "
            f"{planned} runs: <b>{n_ok} ok</b>, "
            f'<span class="{"failed" if n_failed else ""}">{n_failed} failed</span>, '
            f"{planned - n_ok - n_failed} not run. Root seed {info['root_seed']}.</p>"
        )

        # Grid
        parts.append("<h2>Grid</h2>")
        grid = info["grid"] or {}
        rows = [[a, "grid", ", ".join(map(str, v))] for a, v in (grid.get("grid") or {}).items()]
        for i, z in enumerate(grid.get("zip") or []):
            rows += [[a, f"zip {i}", ", ".join(map(str, v))] for a, v in z.items()]
        parts.append(_table(["axis", "kind", "values"], rows, left=3))

        # Aggregated tables (one row per value of the x axis, one column per combination of
        # the other axes, like the papers' tables) and a figure per metric.
        parts.append("<h2>Results (mean ± 95% CI over replications)</h2>")
        x = plot.default_x_axis(axes) if axes else None
        others = [a for a in axes if a != x]
        for m in metrics:
            try:
                parse_metric(m)
                agg = aggregate(store, sweep, m)
            except Exception as e:  # a metric that does not exist in these results
                parts.append(f'<p class="failed">{_e(m)}: {_e(e)}</p>')
                continue
            label, scale = plot._metric_label(m)
            parts.append(f"<h3>{_e(label)}</h3>")
            parts.append(_pivot(agg, x, others, scale))
            if axes and agg["n"].sum() > 0:
                fig = plot.metric_figure(agg, m, axes=axes)
                parts.append(_img(plot.to_png_bytes(fig), f"{m} against {x}"))
        parts.append("<h2>One run</h2>")
        key = plot.first_ok_run(store, sweep)
        if key is not None:
            what = plot.describe_run(store, key)
            series = store.series(key, "queues")
            if series is not None and not series.empty:
                fig = plot.queue_figure(series, title=f"queue length: {what}")
                parts.append(_img(plot.to_png_bytes(fig), f"Queue length against time, {what}"))
            flows = plot.run_flows(store, key)
            if len(flows):
                fig = plot.flows_figure(flows, title=f"flows: {what}")
                parts.append(_img(plot.to_png_bytes(fig), f"Per-flow packets and goodput, {what}"))
            cw = plot.cwnd_figure(store.series(key, "tcp"), title=f"cwnd: {what}")
            if cw is not None:
                parts.append(_img(plot.to_png_bytes(cw), f"Congestion window, {what}"))

        # Failures
        failed = runs[runs["status"] == "failed"] if len(runs) else runs
        if len(failed):
            parts.append("<h2>Failed runs</h2>")
            frows = [
                [*(r[a] for a in axes), r["replication"], r["error"]] for _, r in failed.iterrows()
            ]
            parts.append(_table([*axes, "replication", "error"], frows, left=len(axes) + 2))

        # Scenario
        parts.append("<h2>Base scenario</h2>")
        parts.append(f'<p class="meta">{_e(info["base_source"])}</p>')
        parts.append(f"<pre>{_e(info['base_scenario'])}</pre>")
        parts.append('<p id="render-check" class="meta"></p>')
        title = f"bufferlab sweep {info['name']}"
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
            + "\n".join(parts)
            + f"<script>{_SCRIPT}</script></body></html>\n"
        )
    finally:
        if not isinstance(db, Store):
            store.close()


def write_report(db: str | os.PathLike[str] | Store, sweep: str, out: str | Path) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(build_report(db, sweep), encoding="utf-8")
    return p
