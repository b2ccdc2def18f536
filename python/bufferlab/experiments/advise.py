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
mean goodput; ``delay`` - the best goodput among sizes whose mean one-way delay is within the
bound (the smallest size when none is); ``power`` - the largest Kleinrock power, goodput / delay.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from bufferlab.display import markup, text
from bufferlab.scenario import Scenario, load

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

OBJECTIVES = ("throughput", "delay", "power")
ENACHESCU_RHO = 0.8
ENACHESCU_THETA = 0.75


def parse_time(text: str, what: str = "time") -> float:
    """Seconds in a time written as in a scenario ("50ms"), by the core's own grammar."""
    from bufferlab import _core

    q = _core.quantity(text)
    if q is None or q[1] not in ("s", ""):
        from bufferlab.experiments.spec import SweepError

        raise SweepError(f'{what}: "{text}" is not a time; use e.g. "50ms" or "0.2s"')
    return q[0]


def _size_bytes(text: Any, packet: float) -> float | None:
    """Bytes in a buffer size ("50KB", "25p" counted in ``packet``-byte packets), by the core's
    grammar; None when it is not a size."""
    from bufferlab import _core

    if isinstance(text, int | float):
        return float(text)
    q = _core.quantity(str(text))
    if q is None:
        return None
    value, kind = q
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


def rules_table(r: Rules) -> Table:
    t = Table(
        title=f"Sizing rules for {markup(r.link)} {markup(r.direction)}: "
        f"{r.rate_bps / 1e6:.4g} Mbit/s, "
        f"mean RTT {r.rtt_s * 1e3:.4g} ms over {len(r.rtts_s)} flows, N = {r.n_flows} "
        f"long-lived, packets of {r.packet_bytes:.0f} B",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    t.add_column("rule")
    t.add_column("bytes", justify="right")
    t.add_column("packets", justify="right")
    for name, b in r.rules.items():
        t.add_row(name, f"{b:,.0f}", f"{r.packets(b):.1f}")
    return t


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
        if _size_bytes(s, r.packet_bytes) is None:
            raise SweepError(f'--sizes: "{s}" is not a buffer size; use e.g. 10KB or 25p')
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
        per_run: dict[str, pd.DataFrame] = {
            k: run_values(store, sid, parse_metric(m)) for k, m in metrics.items() if m
        }
        rows = []
        for i, s in enumerate(sizes):
            if s in failed:
                continue
            b = _size_bytes(s, r.packet_bytes) or 0.0
            row: dict[str, Any] = {"size": s, "packets": b / r.packet_bytes, "bytes": b}
            power_vals = []
            vals_by = {}
            for k, df in per_run.items():
                vals = df[df["point_index"] == i].sort_values("replication")["value"].tolist()
                vals_by[k] = vals
                st = summarize(vals)
                row[f"{k}_mean"], row[f"{k}_ci"] = st["mean"], st["ci_half"]
            for g, d in zip(vals_by["goodput_bps"], vals_by["delay_s"], strict=False):
                if d and d == d and d > 0:
                    power_vals.append(g / d)
            st = summarize(power_vals)
            row["power_mean"], row["power_ci"] = st["mean"], st["ci_half"]
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
        within = t[t["delay_s_mean"] <= delay_bound_s]
        if within.empty:
            return int(t.iloc[0]["index"])
        return int(within.sort_values(["goodput_bps_mean", "bytes"], ascending=[False, True])
                   .iloc[0]["index"])  # fmt: skip
    if objective == "power":
        return int(t.loc[t["power_mean"].fillna(-1).idxmax(), "index"])
    raise ValueError(f"objective: expected one of {OBJECTIVES}")


def results_table(sim: Simulated, best: int, objective: str) -> Table:
    t = Table(
        title=f"Simulated ({sim.replications} replications; mean ± 95% CI); objective {objective}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    for c in ("", "size", "packets", "bytes", "goodput (Mbit/s)", "delay (ms)", "loss",
              "utilisation", "power (Mbit/s/s)"):  # fmt: skip
        t.add_column(c, justify="left" if c in ("", "size") else "right")

    def pm(m: float, ci: float, scale: float, fmt: str = ".4g") -> str:
        if m != m:
            return "-"
        s = f"{m / scale:{fmt}}"
        return s + (f" ± {ci / scale:.2g}" if ci == ci else "")

    for i, row in sim.table.iterrows():
        t.add_row(
            "→" if i == best else "",
            text(row["size"]),
            f"{row['packets']:.1f}",
            f"{row['bytes']:,.0f}",
            pm(row["goodput_bps_mean"], row["goodput_bps_ci"], 1e6),
            pm(row["delay_s_mean"], row["delay_s_ci"], 1e-3),
            pm(row["loss_mean"] * 100, row["loss_ci"] * 100, 1, ".3g") + "%",
            pm(row["utilisation_mean"] * 100, row["utilisation_ci"] * 100, 1, ".3g") + "%",
            pm(row["power_mean"], row["power_ci"], 1e6),
        )
    return t


def explain(
    best: int, objective: str, share: float, bound_s: float, r: Rules, sim: Simulated | None = None
) -> str:
    """The recommendation in words, as rich markup (the link's name escaped)."""
    if (
        objective == "delay"
        and sim is not None
        and not (sim.table["delay_s_mean"] <= bound_s).any()
    ):
        return (
            f"Recommendation for {markup(r.link)}: no size kept the mean delay within "
            f"{bound_s * 1e3:g} ms; the smallest size (marked →) comes closest."
        )
    why = {
        "throughput": f"the smallest size reaching {share:.0%} of the best mean goodput",
        "delay": f"the best mean goodput with mean one-way delay ≤ {bound_s * 1e3:g} ms",
        "power": "the largest mean power (goodput / delay)",
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
    a2.errorbar(x, t["delay_s_mean"] * 1e3, yerr=t["delay_s_ci"].fillna(0) * 1e3, marker="o",
                capsize=3, color="tab:red")  # fmt: skip
    a2.set_ylabel("mean one-way delay (ms)")
    for a in (a1, a2):
        a.set_xscale("log")
        a.set_xlabel(f"buffer of {r.link} (packets of {r.packet_bytes:.0f} B)")
        a.grid(True, alpha=0.3)
        for i, (name, b) in enumerate(r.rules.items()):
            a.axvline(r.packets(b), ls=":", color=f"C{i + 2}", label=name)
        a.axvline(t.loc[best, "packets"], color="k", lw=1.5, label="recommended")
    a1.legend(fontsize=7)
    fig.suptitle(f"buffer-size advisor: {r.scenario.name or r.scenario.source}", fontsize=10)
    fig.tight_layout()
    return fig
