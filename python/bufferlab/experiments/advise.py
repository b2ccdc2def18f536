"""The buffer-size advisor: the classic sizing rules for a scenario's bottleneck, then a
simulation of candidate sizes with replications and a recommendation under an objective.

Rules (sizes in bytes; packets = bytes / mean packet size of the flows crossing the link):

* ``BDP`` - the rule of thumb (Villamizar and Song 1994): ``C x RTT`` with C the link rate and
  RTT the propagation delay of each flow's routed path there and back (the core's
  ``rtt_propagation_s``), averaged over the flows that cross the link.
* ``2 x BDP`` - twice that (a conservative choice for few, synchronised flows).
* ``BDP / sqrt(N)`` - Appenzeller, Keslassy and McKeown, "Sizing router buffers", SIGCOMM 2004,
  with N the number of long-lived flows crossing the link (flows active at least half the run).
* ``O(log W)`` - Enachescu, Ganjali, Goel, McKeown and Roughgarden, "Routers with very small
  buffers", INFOCOM 2006. We use the bound of their Theorem 1 as we read it,
  ``B = ceil(log_{1/rho}(W^2 / (2 (1 - theta))))`` packets, with W the largest window of a flow
  (taken as ``2 x BDP / N`` packets, at least 2), rho = 0.8 the offered load of the paced
  arrivals and theta = 0.75 the link utilisation aimed at. It gives a few tens of packets for
  windows of tens to hundreds of packets, the "20-50 packets" of the paper.

Objectives: ``throughput`` - the smallest size whose mean goodput reaches ``share`` of the best
mean goodput; ``delay`` - the best goodput among sizes whose mean queueing delay at the link (the
bottleneck queue's mean sojourn time: propagation and transmission excluded, as buffer-sizing and
AQM papers bound it, e.g. CoDel's and PIE's targets, RFC 8289 / RFC 8033) is within the bound
(the smallest size when none is); ``power`` - the largest Kleinrock power, goodput / one-way
delay.

Caveats the advice states with its answer: a rule applied outside its assumptions (BDP/sqrt(N)
assumes many desynchronised long-lived flows: Appenzeller et al. validate it for N in the
hundreds, and for a few flows it under-sizes the buffer; O(log W) assumes paced arrivals or
access links much slower than the bottleneck), a recommended size at which the flows lose more
than ``HIGH_LOSS`` of their packets, and intervals of ± 0 with their cause
(:mod:`bufferlab.experiments.identical`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bufferlab.display import markup
from bufferlab.experiments.labels import mean_ci_text
from bufferlab.scenario import Scenario, load

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

OBJECTIVES = ("throughput", "delay", "power")
ENACHESCU_RHO = 0.8
ENACHESCU_THETA = 0.75
# Appenzeller et al. 2004 show BDP/sqrt(N) for N of a few hundred flows (their Figs. 10-12 go
# from 50 to 500 flows, and the paper states the rule for "a large number of flows"); below
# this N the advice says the rule is outside its assumptions.
SQRT_N_MIN_FLOWS = 100
# Loss above 1 % puts TCP into the regime of frequent timeouts and unfair shares (Morris,
# "TCP behavior with many flows", ICNP 1997): a recommendation there says so.
HIGH_LOSS = 0.01


def parse_time(text: str, what: str = "time") -> float:
    """Seconds in a time written as in a scenario ("50ms"), by the core's own grammar."""
    from bufferlab import _core

    q = _core.quantity(text)
    if q is None or q[1] not in ("s", ""):
        from bufferlab.experiments.spec import SweepError

        raise SweepError(f'{what}: "{text}" is not a time; use e.g. "50ms" or "0.2s"')
    return q[0]


def _size_bytes(
    text: Any, packet: float, bdp_bytes: float | None = None, rate_bps: float | None = None
) -> float | None:
    """Bytes in a buffer size ("50KB", "25p" counted in ``packet``-byte packets, "0.5BDP" of
    ``bdp_bytes``, "20ms" at ``rate_bps``), by the core's grammar; None when it is not a size.
    The core sizes "xBDP" and "t ms" limits from the same mean RTT and rate (docs/scenario.md),
    so the simulated limit is this one, rounded as the core rounds it."""
    import re

    from bufferlab import _core

    if isinstance(text, int | float):
        return float(text)
    m = re.fullmatch(r"\s*([0-9.]+(?:[eE][+-]?[0-9]+)?)\s*BDP\s*", str(text))
    if m and bdp_bytes is not None:
        return float(m[1]) * bdp_bytes
    q = _core.quantity(str(text))
    if q is None:
        return None
    value, kind = q
    if kind == "s" and rate_bps is not None and value > 0:
        return value * rate_bps / 8
    return {"bytes": value, "packets": value * packet}.get(kind)


@dataclass
class Rules:
    scenario: Scenario
    link: str
    direction: str
    rate_bps: float
    rtts_s: dict[str, float]
    rtt_s: float
    n_flows: int
    packet_bytes: float
    bdp_bytes: float
    rules: dict[str, float] = field(default_factory=dict)  # name -> bytes

    def packets(self, b: float) -> float:
        return b / self.packet_bytes


def bottleneck_rules(file: str | os.PathLike[str] | Scenario, link: str = "bottleneck") -> Rules:
    """Reads the scenario, finds the flows crossing ``link`` and computes the classic rules.

    Everything comes from the core's resolved scenario (``Scenario.resolve``): the routed
    paths, each link direction's rate and delay, the flows' packet sizes on the wire (TCP: the
    resolved segment with its headers, whatever the preset) and their start and stop times.
    """
    from bufferlab.experiments.spec import SweepError

    sc = file if isinstance(file, Scenario) else load(Path(file))
    built = sc.resolve()
    names = sorted({ln["link"] for ln in built["links"]})
    if link not in names:
        raise SweepError(f"--link: no link named {link!r}; links are {', '.join(names)}")
    duration = float(built["duration_s"])
    crossing: dict[str, list[str]] = {}
    rtts: dict[str, float] = {}
    sizes: list[float] = []
    long_lived: dict[str, int] = {}
    for f in built["flows"]:
        hit = [h for h in f["path"] if h["link"] == link]
        if not hit:
            continue
        d = f"{hit[0]['from']}->{hit[0]['to']}"
        crossing.setdefault(d, []).append(f["name"])
        rtts[f["name"]] = float(f["rtt_propagation_s"])
        sizes.append(float(f["packet_size"]))
        active = float(f["stop_s"]) - float(f["start_s"])
        long_lived[f["name"]] = int(duration <= 0 or active >= duration / 2)
    if not crossing:
        raise SweepError(f"--link {link}: no flow of the scenario crosses this link")
    direction, fnames = max(crossing.items(), key=lambda kv: len(kv[1]))
    a, b = direction.split("->")
    rate = next(
        ln["rate_bps"] for ln in built["links"]
        if ln["link"] == link and ln["from"] == a and ln["to"] == b
    )  # fmt: skip
    rtt = sum(rtts[n] for n in fnames) / len(fnames)
    n = max(1, sum(long_lived.get(x, 1) for x in fnames))
    pkt = sum(sizes) / len(sizes)
    bdp = rate * rtt / 8
    bdp_pkts = bdp / pkt
    w = max(2.0, 2 * bdp_pkts / n)
    log_w_pkts = max(
        1, math.ceil(math.log(w * w / (2 * (1 - ENACHESCU_THETA))) / math.log(1 / ENACHESCU_RHO))
    )
    rules = {
        "BDP (rule of thumb)": bdp,
        "2 x BDP": 2 * bdp,
        "BDP/sqrt(N) (Appenzeller et al. 2004)": bdp / math.sqrt(n),
        "O(log W) (Enachescu et al. 2006)": log_w_pkts * pkt,
    }
    return Rules(sc, link, direction, float(rate), {k: rtts[k] for k in fnames}, rtt, n, pkt,
                 bdp, rules)  # fmt: skip


def rules_table(r: Rules) -> tuple[str, list[str], list[list[str]]]:
    """The rules as a table: title, headers, rows (printed whole by the CLI at any width)."""
    title = (
        f"Sizing rules for {r.link} {r.direction}: {r.rate_bps / 1e6:.4g} Mbit/s, mean RTT "
        f"{r.rtt_s * 1e3:.4g} ms over {len(r.rtts_s)} flows, N = {r.n_flows} long-lived, "
        f"packets of {r.packet_bytes:.0f} B"
    )
    rows = [[name, f"{b:,.0f}", f"{r.packets(b):.1f}"] for name, b in r.rules.items()]
    return title, ["rule", "bytes", "packets"], rows


def candidate_sizes(r: Rules) -> list[str]:
    """Sizes around the rules: 1/8 .. 2 x BDP and each rule, in whole packets (at least 2),
    written in bytes."""
    pkts = {r.packets(r.bdp_bytes) * f for f in (0.125, 0.25, 0.5, 1.0, 2.0)}
    pkts |= {r.packets(b) for b in r.rules.values()}
    whole = sorted({max(2, round(p)) for p in pkts})
    # In bytes: a packet limit means different things to byte-mode disciplines (RED's "p" is
    # a mean_pktsize), bytes mean the same to all.
    return [f"{round(p * r.packet_bytes)}B" for p in whole]


@dataclass
class Simulated:
    sizes: list[str]
    table: pd.DataFrame  # one row per size: size, packets, bytes and mean/ci of each measure
    replications: int
    failed: dict[str, str] = field(default_factory=dict)  # size -> error of its runs


MEASURES = {
    "goodput_bps": "flows.goodput_bps:sum",
    "delay_s": "flows.delay_mean_s:mean",
    "queue_delay_s": None,  # queues[<link>].sojourn_mean_s (the busy direction)
    "loss": "flows.loss_ratio:mean",
    "utilisation": None,  # links[<link>].utilisation
}


def simulate(
    r: Rules, sizes: list[str] | None = None, replications: int = 3, jobs: int | None = None
) -> Simulated:
    """Runs the scenario at each candidate size (``links.<link>.queue.limit``), with
    replications, in an in-memory store."""
    import pandas as pd

    from bufferlab.experiments.execute import run_sweep
    from bufferlab.experiments.metrics import parse_metric
    from bufferlab.experiments.spec import Sweep, SweepError
    from bufferlab.experiments.stats import run_values, summarize
    from bufferlab.experiments.store import Store

    sizes = sizes or candidate_sizes(r)
    for s in sizes:
        if _size_bytes(s, r.packet_bytes, r.bdp_bytes, r.rate_bps) is None:
            raise SweepError(
                f'--sizes: "{s}" is not a buffer size; use e.g. 10KB, 25p, 0.5BDP or 20ms'
            )
    axis = f"links.{r.link}.queue.limit"
    sw = Sweep(name="advise", base=r.scenario, grid={axis: sizes}, replications=replications,
               root_seed=1, metrics=[])  # fmt: skip
    store = Store(":memory:")
    try:
        out = run_sweep(sw, db=store, jobs=jobs)
        sid = store.sweep_info("advise")["id"]
        failed: dict[str, str] = {}
        for pi, err in store.con.execute(
            "SELECT point_index, any_value(error) FROM runs WHERE status = 'failed' "
            "GROUP BY point_index ORDER BY point_index"
        ).fetchall():
            failed[sizes[pi]] = err
        if out.done == 0:
            first = next(iter(failed.values()), "?")
            raise SweepError(f"advise: every run failed, e.g.: {first}")
        metrics = dict(MEASURES)
        metrics["utilisation"] = f"links[{r.link}].utilisation"
        metrics["queue_delay_s"] = f"queues[{r.link}].sojourn_mean_s"
        per_run: dict[str, pd.DataFrame] = {
            k: run_values(store, sid, parse_metric(m)) for k, m in metrics.items() if m
        }
        rows = []
        for i, s in enumerate(sizes):
            if s in failed:
                continue
            b = _size_bytes(s, r.packet_bytes, r.bdp_bytes, r.rate_bps) or 0.0
            row: dict[str, Any] = {"size": s, "packets": b / r.packet_bytes, "bytes": b}
            power_vals = []
            vals_by = {}
            for k, df in per_run.items():
                vals = df[df["point_index"] == i].sort_values("replication")["value"].tolist()
                vals_by[k] = vals
                st = summarize(vals)
                row[f"{k}_mean"], row[f"{k}_ci"] = st["mean"], st["ci_half"]
                row[f"{k}_same"] = st["n"] > 1 and st["std"] == 0
            for g, d in zip(vals_by["goodput_bps"], vals_by["delay_s"], strict=False):
                if d and d == d and d > 0:
                    power_vals.append(g / d)
            st = summarize(power_vals)
            row["power_mean"], row["power_ci"] = st["mean"], st["ci_half"]
            row["power_same"] = st["n"] > 1 and st["std"] == 0
            rows.append(row)
        return Simulated(sizes, pd.DataFrame(rows), replications, failed)
    finally:
        store.close()


def recommend(
    sim: Simulated, objective: str, share: float = 0.9, delay_bound_s: float = 0.05
) -> int:
    """Index (row of ``sim.table``) of the recommended size."""
    t = sim.table.sort_values("bytes").reset_index()
    g = t["goodput_bps_mean"].fillna(0)
    if objective == "throughput":
        ok = t[g >= share * g.max()]
        return int(ok.iloc[0]["index"])
    if objective == "delay":
        within = t[t["queue_delay_s_mean"] <= delay_bound_s]
        if within.empty:
            return int(t.iloc[0]["index"])
        return int(within.sort_values(["goodput_bps_mean", "bytes"], ascending=[False, True])
                   .iloc[0]["index"])  # fmt: skip
    if objective == "power":
        return int(t.loc[t["power_mean"].fillna(-1).idxmax(), "index"])
    raise ValueError(f"objective: expected one of {OBJECTIVES}")


# The measures of the simulated table: column header, key in ``Simulated.table``, scale.
_SHOWN = (
    ("goodput (Mbit/s)", "goodput_bps", 1e6),
    ("queueing delay (ms)", "queue_delay_s", 1e-3),
    ("one-way delay (ms)", "delay_s", 1e-3),
    ("loss (%)", "loss", 0.01),
    ("utilisation (%)", "utilisation", 0.01),
    ("power (Mbit/s/s)", "power", 1e6),
)


def results_table(
    sim: Simulated, best: int, objective: str
) -> tuple[str, list[str], list[list[str]]]:
    """The simulated sizes as a table: title, headers, rows (mean ± 95 % CI; † marks an
    interval of 0 from identical replications, explained by :func:`caveats`)."""
    title = (
        f"Simulated ({sim.replications} replications; mean ± 95% CI); objective {objective}; "
        "queueing delay = the link's mean sojourn time"
    )

    def pm(row: Any, key: str, scale: float) -> str:
        out = mean_ci_text(row[f"{key}_mean"], row[f"{key}_ci"], scale)
        return out + (" †" if row.get(f"{key}_same") else "")

    rows = []
    for i, row in sim.table.iterrows():
        rows.append([
            "→" if i == best else "",
            str(row["size"]),
            f"{row['packets']:.1f}",
            f"{row['bytes']:,.0f}",
            *(pm(row, key, scale) for _, key, scale in _SHOWN),
        ])  # fmt: skip
    return title, ["", "size", "packets", "bytes", *(h for h, *_ in _SHOWN)], rows


def caveats(best: int, r: Rules, sim: Simulated | None = None) -> list[str]:
    """What the reader must know before using the advice: rules outside their assumptions, a
    recommended size with high loss, and why an interval is ± 0 (one line each)."""
    from bufferlab.experiments import identical

    out = []
    if r.n_flows < SQRT_N_MIN_FLOWS:
        out.append(
            f"BDP/sqrt(N) is outside its assumptions here: it is derived for many "
            f"desynchronised long-lived flows (hundreds; Appenzeller et al. 2004) and N = "
            f"{r.n_flows}; with few flows they synchronise and the rule under-sizes the buffer."
        )
    out.append(
        "O(log W) assumes paced arrivals or access links much slower than the bottleneck "
        "(Enachescu et al. 2006); with bursty TCP senders it under-sizes the buffer."
    )
    if sim is None or sim.table.empty:
        return out
    row = sim.table.loc[best]
    loss = row.get("loss_mean")
    if loss == loss and loss is not None and loss > HIGH_LOSS:
        out.append(
            f"At the recommended size the flows lose {loss * 100:.2g} % of their packets "
            f"(above {HIGH_LOSS:.0%}: TCP is in the regime of frequent timeouts and unfair "
            "shares, Morris 1997)."
        )
    scenario_text = getattr(r.scenario, "text", None)
    causes: dict[str, list[str]] = {}
    metric_of = {
        "goodput_bps": "flows.goodput_bps", "queue_delay_s": "queues.sojourn_mean_s",
        "delay_s": "flows.delay_mean_s", "loss": "flows.loss_ratio",
        "utilisation": "links.utilisation", "power": "runs.power",
    }  # fmt: skip
    for _, rw in sim.table.iterrows():
        for header, key, *_ in _SHOWN:
            if rw.get(f"{key}_same"):
                cause = identical.reason(metric_of[key], float(rw[f"{key}_mean"]), scenario_text)
                causes.setdefault(cause, []).append(f"{header.split(' (')[0]} at {rw['size']}")
    for cause, where in causes.items():
        shown = ", ".join(where[:4]) + (f" and {len(where) - 4} more" if len(where) > 4 else "")
        out.append(f"† identical replications ({shown}): {cause}.")
    return out


def explain(
    best: int, objective: str, share: float, bound_s: float, r: Rules, sim: Simulated | None = None
) -> str:
    """The recommendation in words, as rich markup (the link's name escaped)."""
    if (
        objective == "delay"
        and sim is not None
        and not (sim.table["queue_delay_s_mean"] <= bound_s).any()
    ):
        return (
            f"Recommendation for {markup(r.link)}: no size kept the mean queueing delay within "
            f"{bound_s * 1e3:g} ms; the smallest size (marked →) comes closest."
        )
    why = {
        "throughput": f"the smallest size reaching {share:.0%} of the best mean goodput",
        "delay": f"the best mean goodput with mean queueing delay ≤ {bound_s * 1e3:g} ms "
        "(propagation excluded)",
        "power": "the largest mean power (goodput / one-way delay)",
    }[objective]
    return f"Recommendation for {markup(r.link)}: row marked → ({why})."


def figure(sim: Simulated, best: int, r: Rules) -> Figure:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = sim.table
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=100)
    x = t["packets"]
    a1.errorbar(x, t["goodput_bps_mean"] / 1e6, yerr=t["goodput_bps_ci"].fillna(0) / 1e6,
                marker="o", capsize=3)  # fmt: skip
    a1.set_ylabel("goodput (Mbit/s)")
    a2.errorbar(x, t["queue_delay_s_mean"] * 1e3, yerr=t["queue_delay_s_ci"].fillna(0) * 1e3,
                marker="o", capsize=3, color="tab:red")  # fmt: skip
    a2.set_ylabel(f"mean queueing delay at {r.link} (ms)")
    for a in (a1, a2):
        a.set_xscale("log")
        a.set_ylim(bottom=0)
        a.set_xlabel(f"buffer of {r.link} (packets of {r.packet_bytes:.0f} B)")
        a.grid(True, alpha=0.3)
        for i, (name, b) in enumerate(r.rules.items()):
            a.axvline(r.packets(b), ls=":", color=f"C{i + 2}", label=name)
        a.axvline(t.loc[best, "packets"], color="k", lw=1.5, label="recommended")
    a1.legend(fontsize=7)
    fig.suptitle(f"buffer-size advisor: {r.scenario.name or r.scenario.source}", fontsize=10)
    fig.tight_layout()
    return fig
