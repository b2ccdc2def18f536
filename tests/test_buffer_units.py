"""Queue limits in BDP and time through the command line (`run`, `validate`, `--set`, sweep
axes), and the warnings for recipes that look right but are not (issue #36). The sizes are
worked out by hand in crates/bufferlab-core/tests/buffer_units.rs."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import ROOT

# One ns-2 Reno flow (1040-byte packets): RTT = 2 x (5 + 20 + 5) ms = 60 ms over a 10 Mbit/s
# bottleneck, BDP = 600 000 bits = 75 000 B = 72.1 packets.
DUMBBELL = """duration = "3s"
[topology]
kind = "dumbbell"
pairs = 1
[links.access]
rate = "100Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "1000p" }
[links.bottleneck]
rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "1BDP" }
[[flows]]
name = "tcp0"
src = "s0"
dst = "d0"
app = { kind = "bulk" }
tcp = { preset = "ns2", cc = "reno", window = "1000p" }
"""


@pytest.fixture
def scenario(tmp_path):
    p = tmp_path / "bdp.toml"
    p.write_text(DUMBBELL)
    return p


def _bottleneck(links: list[dict], from_: str = "r0") -> dict:
    return next(x for x in links if x["link"] == "bottleneck" and x["from"] == from_)


def test_validate_json_states_the_bdp_and_the_resolved_limit(cli, scenario):
    r = cli("validate", str(scenario), "--json")
    assert r.code == 0, r.stderr
    both = json.loads(r.stdout)
    assert both["scenario"]["links"]["bottleneck"]["queue"]["limit"] == "1BDP"
    (s,) = _bottleneck(both["resolved"]["links"])["queue"]["sized_limits"]
    assert (s["given"], s["resolved"], s["unit"]) == ("1BDP", "72p", "packets")
    assert s["rate_bps"] == 10_000_000 and s["packet_size_bytes"] == 1040
    assert s["bdp"]["rtt_s"] == pytest.approx(0.060, abs=1e-12)
    assert s["bdp"]["bits"] == pytest.approx(600_000)
    assert s["bdp"]["packets"] == pytest.approx(75_000 / 1040)
    assert s["bdp"]["flows"] == 1


def test_run_json_keeps_the_resolved_limit_beside_the_given_one(cli, scenario):
    r = cli("run", str(scenario), "--json")
    assert r.code == 0, r.stderr
    q = _bottleneck(json.loads(r.stdout)["queues"])
    assert (q["limit_given"], q["limit"]) == ("1BDP", "72p")
    assert 0 < q["max_packets"] <= 72


def test_set_sizes_a_limit_in_bdp_or_time(cli, scenario):
    for value, resolved in [("0.25BDP", "18p"), ("20ms", "24p")]:
        r = cli(
            "validate", str(scenario), "--json", "--set", f"links.bottleneck.queue.limit={value}"
        )
        assert r.code == 0, r.stderr
        links = json.loads(r.stdout)["resolved"]["links"]
        assert _bottleneck(links)["queue"]["sized_limits"][0]["resolved"] == resolved, value


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ("-1BDP", "positive"),
        ("BDP", "no number"),
        ("0.5 bdp", "capitals"),
        ("1e400ms", "positive and finite"),
    ],
)
def test_bad_forms_exit_2_naming_the_field(cli, scenario, form, says):
    from test_cli import assert_one_error_line

    r = cli("validate", str(scenario), "--set", f"links.bottleneck.queue.limit={form}")
    assert_one_error_line(r, "links.bottleneck.queue.limit", says)
    scenario.write_text(DUMBBELL.replace('limit = "1BDP"', f'limit = "{form}"'))
    r = cli("run", str(scenario))
    assert_one_error_line(r, "links.bottleneck.queue.limit", says)


def test_a_link_no_flow_crosses_exits_2(cli, scenario):
    from test_cli import assert_one_error_line

    r = cli("validate", str(scenario), "--set", "topology.pairs=2",
            "--set", "links.access.queue.limit=1BDP")  # fmt: skip
    assert_one_error_line(r, "links.access.queue.limit", "none does", "route a flow")


def test_a_sweep_axis_over_bdp_multiples(cli, tmp_path, scenario):
    (tmp_path / "sweep.toml").write_text(
        '[sweep]\nname = "bdp"\nbase = "bdp.toml"\nreplications = 1\n'
        'metrics = ["queues[bottleneck].max_packets"]\n'
        '[grid]\n"links.bottleneck.queue.limit" = ["0.25BDP", "1BDP"]\n'
    )
    r = cli("sweep", "sweep.toml", "--db", "s.duckdb", "--quiet", cwd=tmp_path)
    assert r.code == 0, r.stderr
    assert "bdp: 2 ok, 0 failed" in r.stderr, r.stderr
    r = cli("results", "bdp", "--db", "s.duckdb", "--table", "queues", "--csv", "q.csv",
            cwd=tmp_path)  # fmt: skip
    assert r.code == 0, r.stderr
    q = pd.read_csv(tmp_path / "q.csv")
    q = q[(q["link"] == "bottleneck") & (q["from"] == "r0")]
    axis = q["links.bottleneck.queue.limit"]
    got = sorted(zip(axis, q["limit_given"], q["limit"], strict=True))
    assert got == [("0.25BDP", "0.25BDP", "18p"), ("1BDP", "1BDP", "72p")]
    assert q["max_packets"].max() <= 72


# -- recipes that look right but are not ---------------------------------------------------

STEP = ROOT / "examples" / "dctcp_red_step.toml"


def test_the_dctcp_step_marking_example_does_not_warn(cli):
    r = cli("validate", str(STEP), "--json")
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["resolved"]["warnings"] == []


def test_a_red_step_look_alike_warns_on_validate_and_run(cli):
    # the ns-3 preset's EWMA instead of q_weight = 1: not DCTCP's instantaneous step
    look_alike = ["--set", "links.bottleneck.queue.q_weight=0.002", "--set", "duration=1s",
                  "--set", "warmup=0s"]  # fmt: skip
    r = cli("validate", str(STEP), *look_alike)
    assert r.code == 0, r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("warning: link bottleneck r0->r1: RED with ecn = true"), line
    assert "q_weight = 1 (it averages with w_q = 0.0020)" in line and "RFC 8257" in line
    r = cli("validate", str(STEP), "--json", *look_alike)
    assert r.code == 0 and r.stderr == "", r.stderr
    (w,) = json.loads(r.stdout)["resolved"]["warnings"]
    assert line == f"warning: {w}"
    r = cli("run", str(STEP), "--json", *look_alike)
    assert r.code == 0, r.stderr
    assert f"warning: {w}" in r.stderr.splitlines()
    assert json.loads(r.stdout)["warnings"] == [w]


def test_the_schema_accepts_the_limit_forms(cli):
    """Editors that check scenarios against `bufferlab schema` accept "0.5BDP" and "20ms"."""
    import re

    r = cli("schema")
    assert r.code == 0, r.stderr
    schema = json.loads(r.stdout)
    defs = schema.get("$defs") or schema.get("definitions")
    limit = defs["QueueLimit"]
    pattern = next(a["pattern"] for a in limit["anyOf"] if "pattern" in a)
    for form in ("25p", "50KB", "0.5BDP", "0.5 BDP", "20ms"):
        assert re.match(pattern, form), form
    for form in ("0.5bdp", "BDP", "25"):
        assert not re.match(pattern, form), form
    assert "0.5BDP" in limit["description"] and "20ms" in limit["description"]
