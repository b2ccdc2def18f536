"""Studies (studies/NAME, `bufferlab study`): every study loads, plans and runs end to end.

The smoke test runs every study with --tiny (a few simulated seconds, one replication per point)
and checks that each produced its tables, its figures and its claim checks. Full runs are
recorded results (docs/studies/*.md), not tests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bufferlab import study as st
from bufferlab.study.plan import plan
from conftest import ROOT, run_cli

STUDIES = ROOT / "studies"
NAMES = sorted(p.parent.name for p in STUDIES.glob("*/study.toml"))
EXPECTED = {
    "red_qos_000",
    "red_lalred_001",
    "tcp_buffers_002",
    "ns3_dumbbell_003",
    "queues_004",
    "appenzeller_2004",
    "bbr_ware_2019",
    "dc_buffer_abm_2022",
}


def test_every_paper_has_a_study() -> None:
    assert set(NAMES) >= EXPECTED


@pytest.mark.parametrize("name", NAMES)
def test_study_files_are_complete(name: str) -> None:
    s = st.load_study(STUDIES / name)
    assert (STUDIES / name / "README.md").exists(), "each study states its assumptions"
    assert (STUDIES / name / "published.json").exists()
    assert s.experiments and s.metrics and s.claims
    assert s.tables or s.figures
    # Every published table a study refers to exists in published.json.
    for t in s.tables + s.figures:
        if t.get("published"):
            assert t["published"] in s.published["tables"], (name, t.get("id"))
    for mode in st.MODES:
        items = plan(s, mode)
        assert items, (name, mode)
        assert all(it.overrides is not None for it in items)
    # --tiny and --quick never ask for more runs than a full run.
    assert st.n_runs(s, "tiny") <= st.n_runs(s, "quick") <= st.n_runs(s, "full")


@pytest.mark.parametrize("name", NAMES)
def test_recorded_runs_are_reproduced(name: str) -> None:
    """A sample of the recorded full run's runs (docs/studies/NAME/runs-sample.json), run again
    on today's code, gives the same values to the last bit: a model change that moves a
    recorded study fails here (the study must then be re-run and its discussion checked)."""
    from bufferlab.study.execute import rerun_sample

    path = ROOT / "docs" / "studies" / name / "runs-sample.json"
    assert path.exists(), f"{path}: run `bufferlab study run {name}` (a full run writes it)"
    sample = json.loads(path.read_text())["runs"]
    got = rerun_sample(st.load_study(STUDIES / name), sample, jobs=2)

    def same(a: object, b: object) -> bool:
        if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
            return True  # NaN recorded, NaN again
        return a == b

    for rec, metrics in zip(sample, got, strict=True):
        where = f"{rec['experiment']} {rec['labels']} replication {rec['replication']}"
        assert metrics is not None, f"{name}: {where} is no longer in the plan; re-run the study"
        assert metrics.keys() == rec["metrics"].keys(), where
        for k, v in rec["metrics"].items():
            assert same(metrics[k], v), (
                f"{name}: {where}: {k} {v} -> {metrics[k]}; re-run the study"
            )


def test_index_says_what_its_pages_say() -> None:
    """docs/studies/README.md is generated from the recorded pages (their claims and
    verdicts): a page re-run without its index, or an index edited by hand, fails here."""
    from bufferlab.study.page import index_markdown

    docs = ROOT / "docs" / "studies"
    assert (docs / "README.md").read_text(encoding="utf-8") == index_markdown(docs), (
        "docs/studies/README.md is stale: run `bufferlab study run NAME` (a full run writes it)"
    )


def test_list(tmp_path: Path) -> None:
    r = run_cli("study", "list", columns=80)
    assert r.code == 0, r.stderr
    for name in EXPECTED:
        assert name in r.stdout
    assert max(len(line.rstrip()) for line in r.stdout.splitlines()) <= 80
    # papers are cited by authors and title, not by file names that are not in the repository
    assert "Mansour and Hmeed" in r.stdout and ".txt" not in r.stdout


def test_unknown_study_is_one_line_error() -> None:
    r = run_cli("study", "run", "no_such_study", "--tiny")
    assert r.code == 2
    assert r.stderr.startswith("error: no study named 'no_such_study'")
    assert len(r.stderr.strip().splitlines()) == 1


def test_run_all_tiny(tmp_path: Path) -> None:
    """`bufferlab study run all --tiny`: every study runs, tabulates, draws and checks; at 80
    columns every table value is whole (wide tables split into parts) and nothing is cut."""
    out = tmp_path / "out"
    docs = tmp_path / "docs"
    r = run_cli(
        "study", "run", "all", "--tiny", "--out", str(out), "--docs", "--docs-dir", str(docs),
        columns=80,
    )  # fmt: skip
    assert r.code == 0, r.stderr[-2000:]
    assert "runs failed" not in r.stdout, r.stdout[-3000:]
    assert max(len(line.rstrip()) for line in r.stdout.splitlines()) <= 80
    assert "…" not in r.stdout
    for name in NAMES:
        s = st.load_study(STUDIES / name)
        data = json.loads((out / f"{name}.json").read_text())
        assert data["mode"] == "tiny"
        assert data["runs"], name
        assert not [k for k in data["errors"] if k.startswith("run ")], (name, data["errors"])
        # Every table has at least one cell with a bufferlab value.
        assert len(data["tables"]) == len(s.tables)
        for t in data["tables"]:
            assert any(c["bufferlab"] is not None for c in t["cells"]), (name, t["id"])
        # Every figure was drawn.
        pngs = sorted(out.glob(f"{name}_*.png"))
        assert len(pngs) == len(s.figures), (name, pngs)
        assert all(p.stat().st_size > 1000 for p in pngs)
        # Every claim got a verdict line, and none is judged on a value this mode lacks.
        assert len(data["claims"]) == len(s.claims)
        for c in data["claims"]:
            if c["verdict"] in ("holds", "does not hold"):
                assert "nan" not in c["evidence"].split(), (name, c)
        page = (docs / f"{name}.md").read_text()
        assert "## The paper's conclusions, checked" in page
        assert "**A tiny run, not the reproduction.**" in page
        # issue #36: the preview says what it changed, and quotes no number of the full run
        # (the discussion, written from the full run's tables, is left out)
        assert "What this run changed:" in page and "> * experiment " in page, name
        disc = STUDIES / name / "discussion.md"
        if disc.exists():
            assert "is left out of this tiny page" in page, name
            body = [ln for ln in disc.read_text().splitlines() if len(ln) > 60]
            assert not any(ln in page for ln in body), name
        for t in s.tables:
            assert str(t.get("id")) in page


def test_quick_and_tiny_runs_never_write_the_tracked_pages(tmp_path: Path) -> None:
    """Only a full run writes docs/studies/NAME.md; a tiny page asked for goes to --out."""
    studies = tmp_path / "studies"
    shutil.copytree(STUDIES / "queues_004", studies / "queues_004")
    tracked = tmp_path / "docs" / "studies"
    out = tmp_path / "out"
    r = run_cli(
        "study", "run", "queues_004", "--tiny", "--studies", str(studies), "--out", str(out)
    )
    assert r.code == 0, r.stderr[-2000:]
    assert not tracked.exists()
    r = run_cli(
        "study",
        "run",
        "queues_004",
        "--tiny",
        "--docs",
        "--studies",
        str(studies),
        "--out",
        str(out),
    )
    assert r.code == 0, r.stderr[-2000:]
    assert not tracked.exists()
    assert "not the reproduction" in (out / "queues_004.md").read_text()


def _bbr_peer_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bbr_ns3_peer", STUDIES / "bbr_ware_2019" / "ns3_peer.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bbr_study_peer_tables_are_the_recorded_ns3_runs() -> None:
    """studies/bbr_ware_2019/peers.json: its tables are the means of its recorded ns-3 runs, and
    those runs are the command lines ns3_peer.py makes from today's study.toml and scenario.toml
    (a changed grid, start time or link without re-running ns-3 fails here)."""
    import statistics
    import tomllib

    mod = _bbr_peer_module()
    ns3 = json.loads((STUDIES / "bbr_ware_2019" / "peers.json").read_text())["ns-3"]
    runs = ns3["_runs"]
    study = tomllib.loads((STUDIES / "bbr_ware_2019" / "study.toml").read_text())
    want = [args for _, _, reps in mod.points(study) for args in reps]
    assert [r["args"] for r in runs] == want, "re-run python3 studies/bbr_ware_2019/ns3_peer.py"
    for exp in ("buffer", "cubic_count"):
        for row in ns3[exp]:
            labels = {k: v for k, v in row.items() if k in ("buffer_bdp", "n_cubic")}
            mine = [r["measures"] for r in runs if r["experiment"] == exp and r["labels"] == labels]
            assert len(mine) == row["replications"] > 1, (exp, labels)
            for k in mine[0]:
                assert row[k] == round(statistics.fmean(x[k] for x in mine), 6), (exp, labels, k)


def test_bbr_study_peer_runs_are_ns3s() -> None:
    """Two recorded ns-3 runs of the BBR study, run again on ns-3.44, give the same measures to
    the last bit (ns-3 is deterministic for a command line). Needs the built ns-3 peer."""
    mod = _bbr_peer_module()
    if not mod.PEER.exists():
        pytest.skip("the ns-3 peer is not built (bash bench/peers/build_ns3.sh)")
    runs = json.loads((STUDIES / "bbr_ware_2019" / "peers.json").read_text())["ns-3"]["_runs"]
    for r in (runs[0], runs[-1]):
        assert mod.measure(r["args"]) == r["measures"], (r["experiment"], r["labels"])


def test_transfers_and_pct_pick_flows_by_name_and_size() -> None:
    """`transfers()` reads the report's fct.flows by glob and size (min_bytes exclusive,
    max_bytes inclusive, as the buckets' edges), None where a transfer did not finish; `pct()`
    ranks as the report's summaries do (rank ceil(q n)) and leaves the unfinished out."""
    from bufferlab.study.expr import evaluate
    from bufferlab.study.metrics import metric_namespace

    flows = [{"flow": f"ws{i}", "size_bytes": 1000 * (i + 1), "slowdown": float(i + 1)}
             for i in range(200)]  # fmt: skip
    flows += [
        {"flow": "ws_late", "size_bytes": 5000, "slowdown": None},
        {"flow": "q0_1", "size_bytes": 16384, "slowdown": 500.0},
        {"flow": "ws_edge", "size_bytes": 100000, "slowdown": 7.0},
    ]
    ns = metric_namespace({"fct": {"flows": flows}}, {})

    def ev(text: str) -> object:
        return evaluate(text, ns)

    small = ev("transfers('ws*', 'slowdown', 0, 100000)")
    assert isinstance(small, list)
    assert len(small) == 100 + 1 + 1  # ws0..ws99 (1..100 KB), ws_late, ws_edge at the edge
    assert None in small and 500.0 not in small  # the incast answer is left out by its name
    assert len(ev("transfers('ws*', 'slowdown', 100000)")) == 100  # ws100..ws199
    assert len(ev("transfers()")) == 203
    # 101 finished values 1..100 and 7: rank ceil(0.99 x 101) = 100 -> 99; the median 50.
    assert ev("pct(transfers('ws*', 'slowdown', 0, 100000), 0.99)") == 99.0
    assert ev("pct(transfers('ws*', 'slowdown', 0, 100000), 0.5)") == 50.0
    assert ev("len([x for x in transfers('ws*', 'slowdown') if x is None])") == 1
    nan = ev("pct(transfers('none*'), 0.99)")
    assert isinstance(nan, float) and nan != nan
    assert ev("pct([3, 1, 2], 1)") == 3.0
