"""Results of one run: the report JSON of the core, as pandas DataFrames.

The report format is documented in docs/results-json.md. Fields may be added over time but
never renamed, so the frames below put the documented columns first and keep any new ones.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported on first use: the CLI starts faster without it
    import pandas as pd
    from matplotlib.figure import Figure

FLOW_COLUMNS = [
    "name", "src", "dst", "protocol", "app", "packet_size", "start_s", "stop_s",
    "tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "lost_packets", "lost_bytes",
    "in_flight_packets", "throughput_bps", "goodput_bps",
    "delay_mean_s", "delay_p50_s", "delay_p95_s", "delay_p99_s", "delay_max_s", "jitter_s",
]  # fmt: skip
QUEUE_COLUMNS = [
    "link", "from", "to", "discipline", "arrivals", "departures", "drops", "marks",
    "avg_packets", "avg_bytes", "max_packets", "max_bytes",
    "sojourn_mean_s", "sojourn_p99_s", "sojourn_max_s",
]  # fmt: skip
LINK_COLUMNS = [
    "link", "from", "to", "rate_bps", "delay_s", "tx_packets", "tx_bytes", "utilisation",
    "lost_packets",
]  # fmt: skip
SERIES_COLUMNS = ["link", "from", "to", "t_s", "packets", "bytes"]
FCT_COLUMNS = [
    "flow", "size_bytes", "start_s", "finish_s", "fct_s", "ideal_fct_s", "slowdown",
]  # fmt: skip
FCT_BUCKET_COLUMNS = [
    "bucket", "min_bytes", "max_bytes", "count", "unfinished",
    "fct_mean_s", "fct_p50_s", "fct_p99_s", "fct_p999_s",
    "slowdown_mean", "slowdown_p50", "slowdown_p99", "slowdown_p999",
]  # fmt: skip
FLOW_DROP_COLUMNS = ["flow", "link", "reason", "packets"]
QUEUE_DROP_COLUMNS = ["link", "reason", "packets"]

#: Nested fields kept out of the flat frames (they have frames or columns of their own).
_NESTED = {"drops_by_location", "drops_by_reason", "tcp", "classes"}


def long_columns(records: Any) -> list[dict[str, list[Any]]]:
    """Series records (scalars naming the thing, lists of samples) in long format: per record,
    its columns with one entry per sample, the scalar fields repeated. Lists shorter than the
    longest one of their record are left out. The store (Arrow) and :attr:`Results.queue_series`
    (pandas) both build on it."""
    if not isinstance(records, list):
        return []
    out = []
    for rec in records:
        if not isinstance(rec, Mapping):
            continue
        lists = {k: v for k, v in rec.items() if isinstance(v, list)}
        n = max((len(v) for v in lists.values()), default=0)
        cols: dict[str, list[Any]] = {
            k: [v] * n for k, v in rec.items() if not isinstance(v, list | Mapping)
        }
        cols.update({k: v for k, v in lists.items() if len(v) == n})
        out.append(cols)
    return out


def _frame(rows: list[Mapping[str, Any]], columns: list[str]) -> pd.DataFrame:
    """One row per record, documented columns first, nested values flattened or left out."""
    import pandas as pd

    flat: list[dict[str, Any]] = []
    for row in rows:
        rec = {k: v for k, v in row.items() if k not in _NESTED}
        tcp = row.get("tcp")
        if isinstance(tcp, Mapping):
            for k, v in tcp.items():
                if not isinstance(v, Mapping | list):
                    rec[f"tcp_{k}"] = v
        flat.append(rec)
    df = pd.DataFrame(flat)
    extra = [c for c in df.columns if c not in columns]
    df = df.reindex(columns=columns + extra)
    # Undefined floats arrive as null; keep the numeric columns numeric (NaN, not None).
    for c in df.columns:
        if df[c].dtype == object and c.endswith(("_s", "_bps", "_bytes", "_packets")):
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


#: The report's fields :func:`summary_fields` reads from its text.
SUMMARY_KEYS = frozenset(
    {"bufferlab_version", "scenario", "seed", "sim_time_s", "warmup_s", "events", "wall_s"}
    | {"partial"}
    | {"warnings", "stopped"}
)


def summary_fields(text: str) -> dict[str, Any] | None:
    """The report's top-level numbers (before ``flows``) and its ``warnings`` and ``stopped``
    (after ``series``), read from the core's JSON text without parsing the flows, queues, links
    and series between them: the core writes the fields in that order (report.rs, `Report`).
    None when the text is not laid out so (then parse it whole)."""
    try:
        i = text.find(',"flows":')
        if not text.startswith("{") or i < 0:
            return None
        out: dict[str, Any] = json.loads(text[:i] + "}")
        dec = json.JSONDecoder()
        end = len(text.rstrip()) - 1  # the closing brace
        if text[end] != "}":
            return None
        for key in ("stopped", "warnings"):  # the last fields, last first
            mark = f',"{key}":'
            j = text.rfind(mark, 0, end)
            if j < 0:
                continue
            value, stop = dec.raw_decode(text, j + len(mark))
            if stop == end:  # it runs to the report's end: the top-level field
                out[key] = value
                end = j
        return out
    except ValueError:
        return None


class Results:
    """The results of one run.

    ``raw`` is the report as a dict; ``flows``, ``queues`` and ``links`` are one row per flow,
    queue and link; ``queue_series`` is the sampled queue lengths in long format (one row per
    queue and sample time); ``fairness`` is Jain's index over the flows it names.
    """

    def __init__(self, raw: Mapping[str, Any] | None, text: str | None = None) -> None:
        if raw is None and text is None:
            raise ValueError("Results needs the report, as a dict or as the core's JSON text")
        self._raw: dict[str, Any] | None = None if raw is None else dict(raw)
        self._text = text
        self._summary: dict[str, Any] | None = None

    @classmethod
    def from_json(cls, text: str) -> Results:
        """The results of the core's report text, parsed when something needs more than its
        top-level numbers, warnings and stop (see :attr:`raw`)."""
        return cls(None, text=text)

    @property
    def raw(self) -> dict[str, Any]:
        """The report as a dict. Parsed from the core's text on first use: a report of
        100 000 flows is over a gigabyte of Python objects, which `bufferlab run --json`
        (the text, its warnings and its stop) never needs (docs/performance.md)."""
        if self._raw is None:
            assert self._text is not None
            self._raw = json.loads(self._text)
        return self._raw

    def _top(self, key: str, default: Any = None) -> Any:
        """A top-level scalar, `warnings` or `stopped`, without parsing the whole report when
        it is still text."""
        if self._raw is None and self._summary is None:
            self._summary = summary_fields(self._text or "")
        if self._raw is None and self._summary is not None and key in SUMMARY_KEYS:
            return self._summary.get(key, default)
        return self.raw.get(key, default)

    # -- scalars ---------------------------------------------------------------------------
    @property
    def scenario(self) -> str:
        return self._top("scenario", "")

    @property
    def seed(self) -> int:
        return self._top("seed")

    @property
    def sim_time_s(self) -> float:
        return self._top("sim_time_s")

    @property
    def events(self) -> int:
        return self._top("events")

    @property
    def wall_s(self) -> float:
        return self._top("wall_s")

    @property
    def partial(self) -> bool:
        return bool(self._top("partial", False))

    @property
    def stopped(self) -> dict[str, str] | None:
        """Why a limit stopped the run before its end (``kind``: ``max_wall``, ``max_memory``
        or ``stalled``; ``message``), or None."""
        s = self._top("stopped")
        return dict(s) if s else None

    @property
    def warnings(self) -> list[str]:
        """Settings that made a component act unlike its name (RED with its limit below
        max_th, ...), each naming the link and the fix."""
        return list(self._top("warnings", []))

    @property
    def fairness(self) -> dict[str, Any]:
        return dict(self.raw.get("fairness") or {})

    # -- frames ----------------------------------------------------------------------------
    @cached_property
    def flows(self) -> pd.DataFrame:
        return _frame(self.raw.get("flows", []), FLOW_COLUMNS)

    @cached_property
    def queues(self) -> pd.DataFrame:
        return _frame(self.raw.get("queues", []), QUEUE_COLUMNS)

    @cached_property
    def links(self) -> pd.DataFrame:
        return _frame(self.raw.get("links", []), LINK_COLUMNS)

    @cached_property
    def fct(self) -> pd.DataFrame:
        """Flow completion times of the finite transfers (``fct.flows``, docs/models/fct.md),
        one row per flow that started after the warm-up: flow, size_bytes, start_s, finish_s,
        fct_s, ideal_fct_s, slowdown (NaN for a flow not finished by the end). Empty
        without transfers."""
        return _frame((self.raw.get("fct") or {}).get("flows", []), FCT_COLUMNS)

    @cached_property
    def fct_buckets(self) -> pd.DataFrame:
        """The FCTs summarised by flow size (``fct.buckets``): one row per bucket (``<100KB``,
        ``100KB-1MB``, ``>1MB`` by default, then ``all``) with the count of finished and
        unfinished flows and the mean, p50, p99 and p99.9 of the FCT and of the slowdown."""
        return _frame((self.raw.get("fct") or {}).get("buckets", []), FCT_BUCKET_COLUMNS)

    @cached_property
    def fct_queries(self) -> pd.DataFrame:
        """Incast queries (``fct.queries``): query, responses, start_s, finish_s, qct_s (the
        completion of its last response; NaN when one is not finished). Empty without."""
        columns = ["query", "responses", "start_s", "finish_s", "qct_s"]
        return _frame((self.raw.get("fct") or {}).get("queries", []), columns)

    @cached_property
    def flow_drops(self) -> pd.DataFrame:
        """Drops per flow, link and reason (long format)."""
        import pandas as pd

        rows = [
            {"flow": f.get("name"), "link": link, "reason": reason, "packets": n}
            for f in self.raw.get("flows", [])
            for link, reasons in (f.get("drops_by_location") or {}).items()
            for reason, n in reasons.items()
        ]
        return pd.DataFrame(rows, columns=FLOW_DROP_COLUMNS)

    @cached_property
    def queue_drops(self) -> pd.DataFrame:
        """Drops per queue and reason (long format)."""
        import pandas as pd

        rows = [
            {"link": q.get("link"), "reason": reason, "packets": n}
            for q in self.raw.get("queues", [])
            for reason, n in (q.get("drops_by_reason") or {}).items()
        ]
        return pd.DataFrame(rows, columns=QUEUE_DROP_COLUMNS)

    @cached_property
    def queue_series(self) -> pd.DataFrame:
        """Sampled queue occupancy, one row per queue and sample time.

        Columns link, from, to, t_s, packets, bytes, then any further per-sample series of the
        report (such as ``average``, the discipline's averaged length; NaN where undefined) and
        ``average_unit`` ("packets", or "bytes" for RED in byte mode) where there is one.
        """
        import pandas as pd

        fixed = {"link": "string", "from": "string", "to": "string", "t_s": "float64"}
        fixed |= {"packets": "int64", "bytes": "int64"}
        parts = []
        records = [r for r in (self.raw.get("series") or {}).get("queues", []) if r]
        for rec, cols in zip(records, long_columns(records), strict=True):
            n = len(cols.get("t_s", []))
            frame = {k: pd.Series(cols.get(k, [None] * n), dtype=t) for k, t in fixed.items()}
            # Further per-sample arrays (e.g. `average`, a discipline's averaged length).
            for key, values in rec.items():
                if key not in frame and isinstance(values, list) and len(values) == n:
                    frame[key] = pd.Series(values, dtype="float64")
            if "average_unit" in rec:  # "packets" or "bytes": the unit of `average`
                frame["average_unit"] = pd.Series(cols["average_unit"], dtype="string")
            parts.append(pd.DataFrame(frame))
        if not parts:
            return pd.DataFrame({k: pd.Series(dtype=t) for k, t in fixed.items()})
        return pd.concat(parts, ignore_index=True)

    @cached_property
    def flow_series(self) -> pd.DataFrame:
        """Per-flow series (``monitor.flow_interval``), one row per flow and interval: flow,
        interval_s, t_s (the interval's end), tx_packets, rx_packets, lost_packets,
        acks_received (counts in the interval), throughput_bps, goodput_bps. Empty without."""
        import pandas as pd

        columns = {
            "flow": "string", "interval_s": "float64", "t_s": "float64", "tx_packets": "int64",
            "rx_packets": "int64", "lost_packets": "int64", "acks_received": "int64",
            "throughput_bps": "float64", "goodput_bps": "float64",
        }  # fmt: skip
        records = (self.raw.get("series") or {}).get("flows", [])
        parts = [
            pd.DataFrame({k: pd.Series(cols.get(k, []), dtype=t) for k, t in columns.items()})
            for cols in long_columns(records)
        ]
        if not parts:
            return pd.DataFrame({k: pd.Series(dtype=t) for k, t in columns.items()})
        return pd.concat(parts, ignore_index=True)

    @cached_property
    def switch_series(self) -> pd.DataFrame:
        """Shared-buffer switches' series (``switches[].series``, with
        ``monitor.queue_interval``), one row per switch, output queue and sample: switch, t_s,
        occupancy (the pool's), link and to (the queue's port), priority (the queue's on a port
        with priority classes, else missing), threshold (the queue's threshold then), unit
        ("packets" or "bytes"). Empty without a switch."""
        import pandas as pd

        columns = {
            "switch": "string", "t_s": "float64", "occupancy": "int64", "link": "string",
            "to": "string", "priority": "Int64", "threshold": "float64", "unit": "string",
        }  # fmt: skip
        rows = [
            {
                "switch": sw["name"],
                "t_s": t,
                "occupancy": occ,
                "link": q["link"],
                "to": q["to"],
                "priority": q.get("priority"),
                "threshold": th,
                "unit": sw["unit"],
            }
            for sw in self.raw.get("switches", [])
            if sw.get("series")
            for q, column in zip(sw["queues"], sw["series"]["thresholds"], strict=True)
            for t, occ, th in zip(
                sw["series"]["t_s"], sw["series"]["occupancy"], column, strict=True
            )
        ]
        frame = pd.DataFrame(rows, columns=list(columns))
        return frame.astype(columns)

    # -- output ----------------------------------------------------------------------------
    def to_json(self, indent: int | None = None) -> str:
        """The report as JSON (exactly the core's text when ``indent`` is None)."""
        if indent is None and self._text is not None:
            return self._text
        return json.dumps(self.raw, indent=indent)

    def save(self, out_dir: str | Path) -> list[Path]:
        """Writes report.json, flows.csv, queues.csv, links.csv and queue_series.parquet,
        flow_series.parquet when the run recorded per-flow series, and fct.csv and
        fct_buckets.csv when it had finite transfers."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [
            out / "report.json",
            out / "flows.csv",
            out / "queues.csv",
            out / "links.csv",
            out / "queue_series.parquet",
        ]
        written[0].write_text(self.to_json(indent=2) + "\n", encoding="utf-8")
        self.flows.to_csv(written[1], index=False)
        self.queues.to_csv(written[2], index=False)
        self.links.to_csv(written[3], index=False)
        self.queue_series.to_parquet(written[4], index=False)
        if not self.flow_series.empty:
            written.append(out / "flow_series.parquet")
            self.flow_series.to_parquet(written[-1], index=False)
        if self.raw.get("fct"):
            written += [out / "fct.csv", out / "fct_buckets.csv"]
            self.fct.to_csv(written[-2], index=False)
            self.fct_buckets.to_csv(written[-1], index=False)
        return written

    @property
    def plot(self) -> RunPlots:
        """Figures of this run, no database needed: ``res.plot.queue()``, ``.flows()``,
        ``.cwnd()``, ``.flow_series()``; each returns a matplotlib Figure (None when the run
        recorded no such series)."""
        return RunPlots(self)

    def _repr_html_(self) -> str:
        """A notebook's view of the run: what ran, fairness, the flow, queue and link tables,
        and a small queue figure when the run sampled its queues."""
        import base64
        import html
        import io

        head = (
            f"<h4>{html.escape(self.scenario)}</h4><p>seed {self.seed}, "
            f"{self.sim_time_s:g} s simulated, {self.events:,} events"
            + (" <b>(partial results)</b>" if self.partial else "")
            + "</p>"
        )
        fair = self.fairness
        parts = [head]
        if fair:
            parts.append(
                f"<p>Jain's fairness index {fair.get('jain', float('nan')):.4f} over "
                f"{len(fair.get('flows') or [])} flows</p>"
            )
        for title, frame in (("Flows", self.flows), ("Queues", self.queues),
                             ("Links", self.links)):  # fmt: skip
            parts.append(f"<h5>{title}</h5>" + frame.to_html(index=False, max_rows=50))
        if not self.queue_series.empty:
            fig = self.plot.queue()
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=72)
            import matplotlib.pyplot as plt

            plt.close(fig)
            data = base64.b64encode(buf.getvalue()).decode()
            parts.append(
                f'<img alt="queue length against time" src="data:image/png;base64,{data}">'
            )
        return "\n".join(parts)

    def __repr__(self) -> str:
        return (
            f"<Results {self.scenario!r} seed={self.raw.get('seed')} "
            f"flows={len(self.raw.get('flows', []))} queues={len(self.raw.get('queues', []))} "
            f"sim_time_s={self.raw.get('sim_time_s')}>"
        )


class RunPlots:
    """The figures of one run (:attr:`Results.plot`), drawn by :mod:`bufferlab.run_figures`."""

    def __init__(self, res: Results) -> None:
        self._res = res

    def queue(self, link: str | None = None) -> Figure:
        """Queue length against time (``[monitor] queue_interval``), with the average."""
        from bufferlab.run_figures import queue_figure

        return queue_figure(self._res.queue_series, title=self._res.scenario, link=link)

    def flows(self) -> Figure:
        """Per-flow packets sent, received and lost, and goodput."""
        from bufferlab.run_figures import flows_figure

        return flows_figure(self._res.flows, title=self._res.scenario)

    def cwnd(self) -> Figure | None:
        """Congestion windows against time (``[monitor] cwnd_interval``); None without."""
        import pandas as pd

        from bufferlab.run_figures import cwnd_figure

        parts = [
            pd.DataFrame(cols)
            for cols in long_columns(self._res.raw.get("series", {}).get("tcp", []))
        ]
        frame = pd.concat(parts, ignore_index=True) if parts else None
        return cwnd_figure(frame, title=self._res.scenario)

    def flow_series(self) -> Figure | None:
        """Per-flow throughput, sends and losses per interval (``[monitor] flow_interval``)."""
        from bufferlab.run_figures import flow_series_figure

        fs = self._res.flow_series
        return None if fs.empty else flow_series_figure(fs, title=self._res.scenario)
