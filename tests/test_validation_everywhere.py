"""One validation pass checks every configured component, used by a flow or not.

Generated from the JSON Schema: every field of every queue discipline, given a value of the
wrong type, on the forward `queue` and on the `reverse_queue` of the bottleneck (which only the
flows' ACKs use, or nothing at all), is an error naming the queue and, where serde can say it,
the field. Value errors (a probability of 7) name the field exactly. Once, a bad
`reverse_queue` passed `bufferlab validate` and ran.
"""

from __future__ import annotations

import json

import pytest

from bufferlab import Scenario, ScenarioError, _core
from conftest import dumbbell_toml, run_cli

SCHEMA = json.loads(_core.schema())
DEFS = SCHEMA.get("$defs") or SCHEMA["definitions"]


def _kinds() -> list[tuple[str, dict]]:
    out = []
    for variant in DEFS["QueueConfig"]["oneOf"]:
        kind = (
            variant["properties"]["kind"].get("const") or variant["properties"]["kind"]["enum"][0]
        )
        if kind != "python":
            out.append((kind, variant))
    return out


def _wrong_value(prop: dict):
    types = prop.get("type")
    types = [types] if isinstance(types, str) else (types or [])
    if "object" in types or "array" in types:
        return 12345  # a number where a table or list belongs
    return {"x": 1}  # a table where a scalar belongs (any $ref'd scalar too)


CASES = [
    (kind, field, prop, direction)
    for kind, variant in _kinds()
    for field, prop in variant["properties"].items()
    if field != "kind"
    for direction in ("queue", "reverse_queue")
]


def _scenario(direction: str, table: dict) -> Scenario:
    text = dumbbell_toml(
        duration="1s",
        flows=[{"src": "s0", "dst": "d0", "app": {"kind": "bulk"}}],
    )
    return Scenario.from_text(text, "gen.toml").with_overrides(
        {f"links.bottleneck.{direction}": table}
    )


@pytest.mark.parametrize(("kind", "field", "prop", "direction"), CASES)
def test_a_wrong_type_in_any_field_of_any_kind_in_either_direction(kind, field, prop, direction):
    sc = _scenario(direction, {"kind": kind, field: _wrong_value(prop)})
    with pytest.raises(ScenarioError) as e:
        sc.validate()
    msg = str(e.value)
    assert f"links.bottleneck.{direction}" in msg, msg
    assert len(msg.splitlines()) == 1


@pytest.mark.parametrize("direction", ["queue", "reverse_queue"])
@pytest.mark.parametrize("kind", ["red", "ared", "lalred"])
@pytest.mark.parametrize("field", ["max_p", "mark_p", "top", "beta"])
def test_a_value_out_of_range_names_the_field_in_either_direction(direction, kind, field):
    sc = _scenario(direction, {"kind": kind, field: 7.0})
    with pytest.raises(ScenarioError, match=rf"links\.bottleneck\.{direction}\.{field}: 7"):
        sc.validate()


def test_the_cli_exits_2_for_a_bad_reverse_queue(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text(
        dumbbell_toml(duration="1s", flows=[{"src": "s0", "dst": "d0", "app": {"kind": "bulk"}}])
    )
    r = run_cli(
        "validate", str(p), "--set", 'links.bottleneck.reverse_queue={ kind = "red", max_p = 7.0 }'
    )
    assert r.code == 2, (r.stdout, r.stderr)
    assert "links.bottleneck.reverse_queue.max_p" in r.stderr
