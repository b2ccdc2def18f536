"""Figures: line, bar, queue and cwnd panels drawn with matplotlib."""

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bufferlab.study.execute import Outcome
from bufferlab.study.expr import evaluate
from bufferlab.study.plan import normalise_label
from bufferlab.study.spec import StudyError, as_list, child_file, figure_stem
from bufferlab.study.tables import lookup_published, published_rows

# -- figures -----------------------------------------------------------------------------------


def _t(x: Any) -> str:
    """A study's text for a figure: its ``$`` escaped, so that matplotlib draws it as written
    instead of parsing it as mathtext."""
    return str(x).replace("$", r"\$")


def _label_value(x: Any) -> float | None:
    n = normalise_label(x)
    return n if isinstance(n, float) else None


def draw_figure(out: Outcome, spec: Mapping[str, Any], out_dir: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = spec.get("kind", "line")
    fn = {
        "line": _fig_line,
        "bars": _fig_bars,
        "queue": _fig_queue,
        "cwnd": _fig_cwnd,
        "flow_series": _fig_flow_series,
    }.get(kind)
    if fn is None:
        raise StudyError(
            f"{out.study.dir / 'study.toml'}: {spec.get('id')}: unknown figure kind {kind!r}"
        )
    path = child_file(out_dir, figure_stem(out.study.name, spec), ".png")
    # The study's text (titles, labels) is drawn as written: never through LaTeX, and with its
    # "$" escaped (_t), so no mathtext either.
    with matplotlib.rc_context({"text.usetex": False}):
        fig = fn(out, spec, plt)
        if fig is None:
            return None
        out_dir.mkdir(parents=True, exist_ok=True)
        # Smoke tests (--tiny) only check that figures are drawn: draw them cheaply.
        fig.savefig(path, dpi=50 if out.mode == "tiny" else 110, bbox_inches="tight")
        plt.close(fig)
    return path


def _panels(out: Outcome, spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    exp = out.study.experiment(spec["experiment"])
    where = dict(spec.get("where") or {})
    pname = spec.get("panels")
    if not pname:
        return [where]
    present = {normalise_label(lab.get(pname)) for lab in out.matching(exp.name, where)}
    p = next(p for p in exp.params if p.name == pname)
    return [{**where, pname: lab} for lab in p.labels() if normalise_label(lab) in present]


def _grid(plt: Any, n: int, spec: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    cols = int(spec.get("cols", min(n, 3)))
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    flat = [a for r in axes for a in r]
    for a in flat[n:]:
        a.set_visible(False)
    return fig, flat[:n]


def _recorded_points(
    rows: list[dict[str, Any]],
    panel: Mapping[str, Any],
    labels: list[dict[str, Any]],
    x_name: str,
    key: str,
) -> list[tuple[float, float]]:
    """(x, value) of the published or peer rows matching each grid point of a line."""
    pts = []
    for lab in labels:
        v = lookup_published(rows, {**panel, **lab}, key)
        x = _label_value(lab[x_name])
        if v is not None and x is not None:
            pts.append((x, float(v)))
    return pts


def _fig_line(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    st = out.study
    exp = spec["experiment"]
    xs_name = spec["x"]
    ys = as_list(spec["y"])
    series = spec.get("series")
    pub = published_rows(st.published, spec.get("published"))
    peer_rows = {
        p: published_rows(st.peers.get(p, {}), spec.get("peer_table", spec.get("published")))
        for p in as_list(spec.get("peers"))
    }
    panels = _panels(out, spec)
    fig, axes = _grid(plt, len(panels) * len(ys) if spec.get("split_y") else len(panels), spec)
    ai = 0
    for pw in panels:
        for yi, y in enumerate(ys):
            if spec.get("split_y") or yi == 0:
                ax = axes[ai]
                ai += 1
            labs = out.matching(exp, pw)
            groups: dict[Any, list[dict[str, Any]]] = {}
            for lab in labs:
                groups.setdefault(lab.get(series) if series else "", []).append(lab)
            for gi, (g, gl) in enumerate(groups.items()):
                color = f"C{(gi + yi * len(groups)) % 10}"
                xv, yv, ev = [], [], []
                for lab in gl:
                    s = out.stat(exp, lab, y) or {}
                    x = _label_value(lab[xs_name])
                    if x is None:
                        continue
                    xv.append(x)
                    yv.append(s.get("mean", math.nan))
                    ev.append(s.get("ci_half", math.nan))
                name = st.metrics[y].label or y
                lbl = (f"{series}={g}" if series else "") + (f" {name}" if len(ys) > 1 else "")
                ev = [0 if math.isnan(e) else e for e in ev]
                ax.errorbar(
                    xv,
                    yv,
                    yerr=ev,
                    marker="o",
                    ms=4,
                    color=color,
                    capsize=2,
                    label=_t(f"bufferlab {lbl}".strip()),
                )
                if pub:
                    pp = _recorded_points(pub, pw, gl, xs_name, st.metrics[y].paper or y)
                    if pp:
                        ax.plot(
                            *zip(*pp, strict=True),
                            ls="--",
                            marker="x",
                            color=color,
                            alpha=0.7,
                            label=_t(f"paper {lbl}".strip()),
                        )
                for pi, (pname, prows) in enumerate(peer_rows.items()):
                    pts = _recorded_points(prows, pw, gl, xs_name, st.metrics[y].paper or y)
                    if pts:
                        ax.plot(
                            *zip(*pts, strict=True),
                            ls="-.",
                            marker=("s", "^", "v")[pi % 3],
                            mfc="none",
                            color=color,
                            alpha=0.8,
                            label=_t(f"{pname} {lbl}".strip()),
                        )
            if spec.get("model") and yi == 0:
                xsorted = sorted({_label_value(lab[xs_name]) for lab in labs} - {None})
                if xsorted:
                    grid = [xsorted[0] + (xsorted[-1] - xsorted[0]) * i / 200 for i in range(201)]
                    ns = {
                        "P": pw,
                        "sqrt": math.sqrt,
                        "erf": math.erf,
                        "min": min,
                        "max": max,
                        "pi": math.pi,
                    }
                    try:
                        mv = [evaluate(spec["model"], {**ns, "x": x}) for x in grid]
                        ax.plot(
                            grid, mv, ls=":", color="k", label=_t(spec.get("model_label", "model"))
                        )
                    except Exception:  # a model is an optional overlay
                        pass
            for vl in as_list(spec.get("vlines")):
                try:
                    xv = evaluate(str(vl["at"]), {"P": pw, "sqrt": math.sqrt})
                except Exception:
                    continue
                ax.axvline(xv, ls="-.", color="grey", lw=1)
                ax.annotate(
                    _t(vl.get("label", "")),
                    (xv, 0.02),
                    xycoords=("data", "axes fraction"),
                    rotation=90,
                    fontsize=8,
                    color="grey",
                )
            if spec.get("logx"):
                ax.set_xscale("log")
            if spec.get("logy"):  # values over decades (e.g. FCT slowdowns of 2 to 200)
                ax.set_yscale("log")
            if spec.get("ylim"):
                ax.set_ylim(*spec["ylim"])
            elif not spec.get("logy") and ax.get_ylim()[0] > 0:
                # every value is positive: the axis starts at zero (a cropped axis makes a
                # few per cent look like a factor); a figure that must zoom sets `ylim`
                ax.set_ylim(bottom=0)
            ax.set_xlabel(_t(spec.get("xlabel", xs_name)))
            ax.set_ylabel(_t(spec.get("ylabel", st.metrics[y].label or y)))
            if spec.get("panels"):
                ax.set_title(_t(f"{spec['panels']} = {pw[spec['panels']]}"), fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle(_t(f"{spec.get('id', '')}: {spec.get('title', '')}"), fontsize=11)
    fig.tight_layout()
    return fig


def _fig_bars(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    st = out.study
    exp = spec["experiment"]
    y = as_list(spec["y"])[0]
    m = st.metrics[y]
    panels = _panels(out, spec)
    pub = published_rows(st.published, spec.get("published"))
    fig, axes = _grid(plt, len(panels), spec)
    for ax, pw in zip(axes, panels, strict=True):
        labs = out.matching(exp, pw)
        xname = spec["x"]
        groups = list(m.each) if m.each else [None]
        width = 0.8 / max(1, len(groups))
        for gi, g in enumerate(groups):
            key = f"{y}[{g}]" if g else y
            vals = [(out.stat(exp, lab, key) or {}).get("mean", math.nan) for lab in labs]
            xs = [i + gi * width for i in range(len(labs))]
            ax.bar(xs, vals, width=width, color=f"C{gi}", label=_t(g or y))
            if pub:
                pv = [
                    lookup_published(pub, {**pw, **lab, **({m.dim: g} if g else {})}, m.paper or y)
                    for lab in labs
                ]
                pts = [(x, float(v)) for x, v in zip(xs, pv, strict=True) if v is not None]
                if pts:
                    ax.plot(
                        *zip(*pts, strict=True),
                        ls="none",
                        marker="_",
                        ms=14,
                        mew=2,
                        color="k",
                        label="paper" if gi == 0 else None,
                    )
        ax.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(labs))])
        ax.set_xticklabels([_t(lab[xname]) for lab in labs], fontsize=8)
        ax.set_ylabel(_t(spec.get("ylabel", m.label or y)))
        if spec.get("panels"):
            ax.set_title(_t(f"{spec['panels']} = {pw[spec['panels']]}"), fontsize=10)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    fig.suptitle(_t(f"{spec.get('id', '')}: {spec.get('title', '')}"), fontsize=11)
    fig.tight_layout()
    return fig


def _series_of(
    out: Outcome, exp: str, labels: Mapping[str, Any], kind: str
) -> list[dict[str, Any]]:
    key = out.point_key(exp, labels)
    for rec in out.records:
        if (
            rec.get("ok")
            and rec["replication"] == 0
            and out.point_key(rec["experiment"], rec["labels"]) == key
        ):
            return ((rec.get("report") or {}).get("series") or {}).get(kind) or []
    return []


def _fig_queue(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    exp = spec["experiment"]
    lnk = spec.get("link", "bottleneck")
    panels = _panels(out, spec)
    what = as_list(spec.get("show", ["packets", "average"]))
    fig, axes = _grid(plt, len(panels) * len(what), {**spec, "cols": len(what)})
    i = 0
    for pw in panels:
        labs = out.matching(exp, pw)
        for w in what:
            ax = axes[i]
            i += 1
            for gi, lab in enumerate(labs):
                ser = [s for s in _series_of(out, exp, lab, "queues") if s.get("link") == lnk]
                if not ser:
                    continue
                s = ser[0]
                t = s.get("t_s") or []
                v = s.get(w) or []
                if w == "average" and spec.get("average_unit") == "packets" and v:
                    div = float(spec.get("mean_pktsize", 1))
                    v = [x / div if x is not None else None for x in v]
                v = [math.nan if x is None else x for x in v]
                name = spec.get("series")
                ax.plot(
                    t[: len(v)],
                    v,
                    lw=0.8,
                    color=f"C{gi}",
                    label=_t(lab.get(name)) if name else None,
                )
            ax.set_xlabel("time (s)")
            ax.set_ylabel(
                _t(
                    {
                        "packets": "queue (packets)",
                        "bytes": "queue (bytes)",
                        "average": spec.get("average_label", "average queue"),
                    }.get(w, w)
                )
            )
            if spec.get("panels"):
                ax.set_title(_t(f"{spec['panels']} = {pw[spec['panels']]}"), fontsize=10)
            ax.grid(alpha=0.3)
            if spec.get("series"):
                ax.legend(fontsize=7)
    fig.suptitle(_t(f"{spec.get('id', '')}: {spec.get('title', '')}"), fontsize=11)
    fig.tight_layout()
    return fig


_FLOW_SERIES_LABELS = {
    "tx_packets": "sent",
    "rx_packets": "received",
    "lost_packets": "dropped",
    "acks_received": "ACKs",
}


def _fig_flow_series(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    """Per-interval packet counts against time (``[monitor] flow_interval``), summed over the
    flows of the run: one panel per ``panels`` value, one line per quantity in ``show``."""
    exp = spec["experiment"]
    panels = _panels(out, spec)
    what = as_list(spec.get("show", ["tx_packets", "lost_packets", "acks_received"]))
    tmax = spec.get("tmax")
    fig, axes = _grid(plt, len(panels), spec)
    for ax, pw in zip(axes, panels, strict=True):
        labs = out.matching(exp, pw)
        ser = _series_of(out, exp, labs[0], "flows") if labs else []
        if not ser:
            continue
        t = ser[0].get("t_s") or []
        n = sum(1 for x in t if x <= tmax) if tmax else len(t)
        dt = ser[0].get("interval_s")
        for gi, w in enumerate(what):
            total = [sum((s.get(w) or [0] * n)[i] for s in ser) for i in range(n)]
            ax.step(t[:n], total, where="pre", lw=0.9, color=f"C{gi}",
                    label=_t(_FLOW_SERIES_LABELS.get(w, w)))  # fmt: skip
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"packets per {dt:g} s, all sources" if dt else "packets per interval")
        if spec.get("panels"):
            ax.set_title(_t(" ".join(f"{k}={v}" for k, v in pw.items())), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(_t(f"{spec.get('id', '')}: {spec.get('title', '')}"), fontsize=11)
    fig.tight_layout()
    return fig


def _fig_cwnd(out: Outcome, spec: Mapping[str, Any], plt: Any) -> Any:
    exp = spec["experiment"]
    panels = _panels(out, spec)
    fig, axes = _grid(plt, len(panels), spec)
    tmax = spec.get("tmax")
    for ax, pw in zip(axes, panels, strict=True):
        labs = out.matching(exp, pw)
        if not labs:
            continue
        ser = _series_of(out, exp, labs[0], "tcp")
        for gi, s in enumerate(ser):
            t = s.get("t_s") or []
            mss = float(spec.get("mss", 1000))
            c = [math.nan if x is None else x / mss for x in (s.get("cwnd_bytes") or [])]
            if tmax:
                n = sum(1 for x in t if x <= tmax)
                t, c = t[:n], c[:n]
            ax.plot(t[: len(c)], c, lw=0.8, color=f"C{gi}", label=_t(s.get("flow")))
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (segments)")
        if spec.get("panels"):
            ax.set_title(_t(" ".join(f"{k}={v}" for k, v in pw.items())), fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(_t(f"{spec.get('id', '')}: {spec.get('title', '')}"), fontsize=11)
    fig.tight_layout()
    return fig
