"""Scenario fuzzing kept in the suite (docs/reliability.md): hostile values in any field of the
example scenarios give either a clean ScenarioError naming a field, or a run, bounded in wall
time and memory, whose report keeps the invariants. Hypothesis draws the mutations (fixed
examples: `derandomize`, so CI sees the same ones); `FUZZ_CORPUS` replays every input that
once misbehaved, and the two that once took the whole machine."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bufferlab
from bufferlab import ScenarioError, _core
from bufferlab.scenario import load
from conftest import ROOT

EXAMPLES = sorted(
    p for p in (ROOT / "examples").glob("*.toml") if "sweep" not in p.name
)  # sweep files are not scenarios

# Inputs that once took the machine (issue "Never take the machine down") or broke a run.
FUZZ_CORPUS: list[tuple[str, dict[str, Any]]] = [
    ("dumbbell_udp.toml", {"monitor.queue_interval": "1ps"}),
    ("dumbbell_udp.toml", {"flows.0.app.rate": "1e40bps"}),
    ("dumbbell_tcp.toml", {"links.bottleneck.rate": "1e-9bps"}),
    ("dumbbell_tcp.toml", {"duration": "1e30s"}),
    ("dumbbell_udp.toml", {"links.bottleneck.queue.limit": "0p"}),
]

# What the fuzzer writes into a field: values of every type and of absurd magnitudes.
HOSTILE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.sampled_from(["", "-1", "0", "1e40", "nan", "inf", "{}", "[]", "x" * 300]),
    st.builds(
        lambda n, u: f"{n}{u}",
        st.sampled_from(["0", "1", "-5", "1e-12", "1e12", "1e40", "0.5", "3"]),
        st.sampled_from(
            [
                "ps",
                "ns",
                "us",
                "ms",
                "s",
                "min",
                "bps",
                "Kbps",
                "Gbps",
                "Tbps",
                "B",
                "KB",
                "GB",
                "p",
                "%",
                "kB/s",
            ]
        ),
    ),
)


def _leaves(x: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(x, dict):
        return [q for k, v in x.items() for q in _leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(x, list):
        return [q for i, v in enumerate(x) for q in _leaves(v, f"{path}.{i}")]
    return [(path, x)]


@cache
def _fields(example: str) -> dict[str, Any]:
    """Every field of the example as the core normalises it (defaults included), with its value."""
    return dict(_leaves(load(ROOT / "examples" / example).validate()))


def _paths(example: str) -> list[str]:
    return list(_fields(example))


_BASE_UNIT = {"s": "s", "bytes": "B", "bit/s": "bps", "packets": "p", "": ""}


def _scaled(value: Any, factor: float) -> Any:
    """The field's own value times ``factor``, in its unit: plausible values that run."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value * factor)
    if isinstance(value, float):
        return value * factor
    q = _core.quantity(str(value))
    if q is None:
        return value
    v = q[0] * factor
    return f"{round(v) if q[1] in ('packets', 'bytes') else v:g}{_BASE_UNIT[q[1]]}"


FACTORS = st.sampled_from([0.01, 0.1, 0.5, 0.9, 1.5, 2.0, 10.0, 100.0])


def _run(example: str, overrides: dict[str, Any]) -> None:
    sc = load(ROOT / "examples" / example)
    try:
        res = bufferlab.run(sc, overrides=overrides, max_wall=3.0, max_memory=3 * 2**30)
    except ScenarioError as e:
        msg = str(e)
        assert "\n" not in msg.strip() and msg, repr(msg)
        assert "panicked" not in msg and "internal error" not in msg, msg
        return
    _check_invariants(res.raw)


def _check_invariants(r: dict[str, Any]) -> None:
    """No NaN or negative number anywhere; per flow, every packet sent is delivered, lost or
    still in the network; nothing carries more than its link; queues pass on at most what
    arrived."""

    def walk(x: Any, where: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{where}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{where}[{i}]")
        elif isinstance(x, int | float) and not isinstance(x, bool):
            assert not math.isnan(x), where
            assert x >= 0, (where, x)

    for section in ("flows", "queues", "links", "fairness"):
        walk(r[section], section)
    fastest = max((ln["rate_bps"] for ln in r["links"]), default=0)
    for f in r["flows"]:
        assert f["tx_packets"] == f["rx_packets"] + f["lost_packets"] + f["in_flight_packets"], f
        assert f["goodput_bps"] <= f["throughput_bps"] * (1 + 1e-9) + 1e-9, f["name"]
        assert f["throughput_bps"] <= fastest * (1 + 1e-9), f["name"]
    for q in r["queues"]:
        assert q["departures"] + q["drops"] <= q["arrivals"] + q["max_packets"], q
    for ln in r["links"]:
        assert ln["utilisation"] <= 1 + 1e-9, ln


@pytest.mark.parametrize(("example", "overrides"), FUZZ_CORPUS)
def test_fuzz_corpus(example: str, overrides: dict[str, Any]) -> None:
    _run(example, overrides)


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.data())
def test_hostile_values_in_any_field(data: st.DataObject) -> None:
    example = data.draw(st.sampled_from([p.name for p in EXAMPLES]), label="example")
    fields = _fields(example)
    chosen = data.draw(st.lists(st.sampled_from(list(fields)), min_size=1, max_size=3, unique=True))
    # Half hostile values of any type, half the field's own value scaled: the first mostly
    # exercise validation, the second the models under unusual but valid settings.
    overrides = {
        p: data.draw(st.one_of(HOSTILE, FACTORS.map(lambda f, v=fields[p]: _scaled(v, f))), label=p)
        for p in chosen
    }
    _run(example, overrides)


def test_the_fuzzer_reaches_every_example() -> None:
    assert len(EXAMPLES) >= 10
    for p in EXAMPLES:
        assert Path(p).exists() and len(_paths(p.name)) > 10
