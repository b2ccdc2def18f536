#!/usr/bin/env python3
"""Numbers the docs quote from runs, regenerated from the current code.

Each generator runs what a page quotes and returns the text between the page's markers
``<!-- generated:NAME:start -->`` and ``<!-- generated:NAME:end -->``. Hand-written prose stays
outside the markers; every run number inside them comes from here.

    python3 docs/gen/quoted_numbers.py          # rewrite the passages and the example report
    python3 docs/gen/quoted_numbers.py --check  # exit 1 naming each stale one (the test suite)
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def table3_example(workdir: Path, write: bool) -> dict[str, str]:
    """docs/experiments.md, "Example: the shape of Table 3 of paper 000"."""
    from bufferlab.experiments.execute import run_sweep
    from bufferlab.experiments.report import write_report
    from bufferlab.experiments.stats import aggregate

    db = workdir / "table3.duckdb"
    # Relative to the repository, so that no machine's path lands in the committed report.
    out = run_sweep(Path("examples") / "sweep_red_table3.toml", db=db, jobs=2)
    delay = aggregate(db, "table3", "flows[tcp0].delay_mean_s")
    at = delay[delay["links.bottleneck.rate"] == "0.1MB/s"]
    at = at.set_index("links.bottleneck.queue.limit")

    def ms(limit: str) -> str:
        r = at.loc[limit]
        return f"{r['mean'] * 1e3:.1f} ± {r['ci_half'] * 1e3:.1f} ms"

    runs = out.done + out.skipped + out.failed
    text = (
        f"What it shows ({runs} runs, {out.failed} failed; mean ± 95 % CI over the "
        "replications, flow tcp0): the one-way delay grows with the buffer (0.1 MB/s: "
        f"{ms('5KB')} at 5 KB, {ms('10KB')} at 10 KB, {ms('50KB')} at 50 KB)"
    )
    report = ROOT / "docs" / "examples" / "sweep_red_table3.html"
    html = workdir / "report.html"
    write_report(db, "table3", html)
    if write:
        report.write_text(html.read_text())
    elif _without_dates(html.read_text()) != _without_dates(report.read_text()):
        text += " [the committed docs/examples/sweep_red_table3.html is stale]"
    return {"table3-example": text}


def mmpp_quasi_static(workdir: Path, write: bool) -> dict[str, str]:
    """docs/models/traffic.md: MMPP/D/1 with slow modulation against the quasi-static mix of
    M/D/1 waits (the scenario of tests/queueing_theory.rs,
    mmpp_d1_slow_modulation_is_quasi_static)."""
    import bufferlab

    text = """duration = "4000s"
[topology]
kind = "custom"
nodes = ["src", "dst"]
[links.l]
between = ["src", "dst"]
rate = "10Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "1000000p" }
[[flows]]
name = "p"
src = "src"
dst = "dst"
app = { kind = "mmpp", rates = ["9Mbps", "1Mbps"], mean_sojourns = ["10s", "10s"] }
"""
    wait_sum, departures = 0.0, 0
    for seed in range(1, 5):
        q = bufferlab.Scenario(text=text, source="mmpp").run(seed).queues
        q = q[(q["link"] == "l") & (q["from"] == "src")].iloc[0]
        wait_sum += q["sojourn_mean_s"] * q["departures"]
        departures += int(q["departures"])
    mu = 1250.0
    pk = lambda rho: rho / (2 * mu * (1 - rho))  # noqa: E731  (Pollaczek-Khinchine)
    theory = 0.9 * pk(0.9) + 0.1 * pk(0.1)
    return {
        "mmpp-quasi-static": (
            "quasi-static mix of the two M/D/1 waits: "
            f"{wait_sum / departures * 1e3:.3f} ms against {theory * 1e3:.3f} ms pooled over "
            "4 seeds of 4000 s"
        )
    }


_L4S: dict[str, float] = {}


def _l4s_run() -> dict[str, float]:
    """examples/l4s_dualpi2.toml as `bufferlab run` runs it: goodputs, the DualPI2 queues'
    mean sojourns (from the warm-up on) and drops. Run once for both pages that quote it."""
    if not _L4S:
        import bufferlab

        path = Path("examples") / "l4s_dualpi2.toml"
        r = bufferlab.Scenario(text=path.read_text(), source=str(path)).run(1).raw
        rate = {f["name"]: f["goodput_bps"] / 1e6 for f in r["flows"]}
        q = next(q for q in r["queues"] if q.get("discipline") == "dualpi2" or "classes" in q)
        cls = {c["name"]: c for c in q["classes"]}
        _L4S.update(
            prague=rate["prague"],
            cubic=rate["cubic"],
            l_ms=cls["l"]["sojourn_mean_s"] * 1e3,
            c_ms=cls["c"]["sojourn_mean_s"] * 1e3,
            drops=cls["l"]["drops"] + cls["c"]["drops"],
            c_drops=cls["c"]["drops"],
        )
    return _L4S


def l4s_validation(workdir: Path, write: bool) -> dict[str, str]:
    """docs/validation.md, "L4S over DualPI2": the table of examples/l4s_dualpi2.toml."""
    n = _l4s_run()
    who = "all of the C queue's CUBIC (no ECN)" if n["c_drops"] == n["drops"] else "L and C"
    rows = [
        "| measure | bufferlab | RFC 9332 |",
        "|---|---|---|",
        f"| Prague / CUBIC goodput | {n['prague']:.2f} / {n['cubic']:.2f} Mbit/s (ratio "
        f"{n['prague'] / n['cubic']:.2f}) | roughly equal (the coupling, k = 2) |",
        f"| L queue mean sojourn | {n['l_ms']:.2f} ms | near the 1 ms step |",
        f"| C queue mean sojourn | {n['c_ms']:.1f} ms | near the 15 ms PI target |",
        f"| drops | {n['drops']:.0f} after the warm-up, {who} | |",
    ]
    return {"l4s-validation": "\n".join(rows)}


def l4s_model(workdir: Path, write: bool) -> dict[str, str]:
    """docs/models/dualpi2.md, "Validation": the same run in a sentence."""
    n = _l4s_run()
    return {
        "l4s-model": (
            f"rates {n['prague']:.2f} and {n['cubic']:.2f} Mbit/s (ratio "
            f"{n['prague'] / n['cubic']:.2f}), L queue mean sojourn {n['l_ms']:.2f} ms, C queue "
            f"{n['c_ms']:.1f} ms (from the 10 s warm-up on)."
        )
    }


def abm_unscheduled(workdir: Path, write: bool) -> dict[str, str]:
    """docs/validation.md, "ABM's unscheduled packets": examples/datacenter/
    abm_unscheduled_incast.toml with each connection's tag and the switch's unscheduled alpha
    varied (tests/test_switch_ecn_abm.py asserts the same runs' bounds)."""
    import bufferlab

    path = Path("examples") / "datacenter" / "abm_unscheduled_incast.toml"
    rows = [
        "| tagged (`tcp.unscheduled_bytes`) | `abm_unscheduled_alpha` | drops at the port "
        "| timeouts | query completion p99 |",
        "|---|---|---|---|---|",
    ]
    for tag, alpha in [("0B", 1024.0), ("8KB", 1024.0), ("16KB", 1024.0), ("16KB", 0.5)]:
        sc = bufferlab.load(path).with_overrides(
            {"workloads.0.tcp.unscheduled_bytes": tag, "switches.tor.abm_unscheduled_alpha": alpha}
        )
        r = sc.run().raw
        port = next(q for q in r["queues"] if q["link"] == "down" and q["from"] == "tor")
        timeouts = sum(f["tcp"]["timeouts"] for f in r["flows"])
        qct = r["fct"]["qct"]["qct_p99_s"] * 1e3
        rows.append(f"| {tag} | {alpha:g} | {port['drops']} | {timeouts} | {qct:.2f} ms |")
    return {"abm-unscheduled": "\n".join(rows)}


def l4s_rates(workdir: Path, write: bool) -> dict[str, str]:
    """docs/validation.md, "L4S at low link rates" and the switch mode's section after it:
    bench/l4s_rates.py's tables (Prague's default window mode, then v0.7's switch mode)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import l4s_rates

    return {"l4s-rates": l4s_rates.table(), "l4s-rates-switch": l4s_rates.table("switch")}


def dsack_spray(workdir: Path, write: bool) -> dict[str, str]:
    """docs/validation.md, "D-SACK and undo where reordering is the rule": the leaf-spine of
    examples/datacenter/leaf_spine_ecmp.toml with per-packet spraying and the linux preset,
    D-SACK on and off (tests/linux_dsack.rs asserts the same runs' bounds)."""
    import statistics

    import bufferlab

    path = Path("examples") / "datacenter" / "leaf_spine_ecmp.toml"
    rows = [
        "| seed | `dsack` | retransmitted | D-SACKs | recoveries | undone (D-SACK / timestamp) "
        "| mean `reo_wnd_steps` | median completion |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for seed in (1, 2, 3):
        for dsack in (True, False):
            ov: dict[str, object] = {"routing.multipath": "random_packet"}
            for i in range(3):
                ov[f"flows.{i}.tcp.preset"] = "linux"
                ov[f"flows.{i}.tcp.dsack"] = dsack
            r = bufferlab.load(path).with_overrides(ov).run(seed).raw
            tcp = [f["tcp"] for f in r["flows"]]
            rack = [t["rack"] for t in tcp]

            def total(key: str, of: list[dict]) -> int:
                return sum(x[key] for x in of)

            by_ts = total("full_undos", rack) + total("partial_undos", rack)
            steps = total("reo_wnd_steps", rack) / len(tcp)
            fct = statistics.median(t["completion_time_s"] for t in tcp) * 1e3
            rows.append(
                f"| {seed} | {str(dsack).lower()} | {total('retransmitted_segments', tcp)} "
                f"| {total('dsacks_received', rack)} | {total('fast_retransmits', tcp)} "
                f"| {total('dsack_undos', rack)} / {by_ts} | {steps:.1f} | {fct:.2f} ms |"
            )
    return {"dsack-spray": "\n".join(rows)}


def _without_dates(html: str) -> str:
    """A report without its creation and writing times (the rest must match byte for byte)."""
    return re.sub(r"created [^<]*? · report written [^<]*? UTC", "", html)


GENERATORS: dict[str, tuple[Path, Callable[[Path, bool], dict[str, str]]]] = {
    "table3": (ROOT / "docs" / "experiments.md", table3_example),
    "mmpp": (ROOT / "docs" / "models" / "traffic.md", mmpp_quasi_static),
    "l4s-validation": (ROOT / "docs" / "validation.md", l4s_validation),
    "l4s-model": (ROOT / "docs" / "models" / "dualpi2.md", l4s_model),
    "abm-unscheduled": (ROOT / "docs" / "validation.md", abm_unscheduled),
    "l4s-rates": (ROOT / "docs" / "validation.md", l4s_rates),
    "dsack-spray": (ROOT / "docs" / "validation.md", dsack_spray),
}


def splice(text: str, name: str, body: str) -> str:
    start, end = f"<!-- generated:{name}:start -->", f"<!-- generated:{name}:end -->"
    pat = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pat.search(text):
        raise SystemExit(f"markers {start} ... {end} missing")
    return pat.sub(lambda _: f"{start}\n{body}\n{end}", text)


def main() -> int:
    os.chdir(ROOT)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if a passage is stale")
    args = ap.parse_args()
    stale = []
    with tempfile.TemporaryDirectory() as d:
        for name, (page, gen) in GENERATORS.items():
            work = Path(d) / name
            work.mkdir()
            text = page.read_text()
            new = text
            for marker, body in gen(work, not args.check).items():
                new = splice(new, marker, body)
            if new != text:
                if args.check:
                    stale.append(f"{page.relative_to(ROOT)}: {name}")
                else:
                    page.write_text(new)
    for s in stale:
        print(f"stale: {s} (python3 docs/gen/quoted_numbers.py)", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
