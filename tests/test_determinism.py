"""Same scenario and seed, same bytes; another seed, other results."""

from __future__ import annotations

import json
import re

import pytest

import bufferlab
from bufferlab import _core

WALL = re.compile(r'"wall_s":\s*[-+0-9.eE]+')


def without_wall(text: str) -> str:
    """The report text with its wall-clock time blanked (the only field allowed to vary)."""
    out, n = WALL.subn('"wall_s":0', text)
    assert n == 1, "the report has exactly one wall_s"
    return out


def test_same_seed_same_bytes(poisson_file):
    text = poisson_file.read_text()
    a = _core.run(text, source=str(poisson_file), seed=11)
    b = _core.run(text, source=str(poisson_file), seed=11)
    assert without_wall(a) == without_wall(b)


def test_same_seed_same_bytes_cli(cli, poisson_file):
    a = cli("run", str(poisson_file), "--json", "--seed", "5")
    b = cli("run", str(poisson_file), "--json", "--seed", "5")
    assert a.code == b.code == 0, (a.stderr, b.stderr)
    assert without_wall(a.stdout) == without_wall(b.stdout)


def test_scenario_seed_is_the_default(poisson_file):
    res = bufferlab.run(poisson_file)
    assert res.seed == 7  # written in the file
    again = bufferlab.run(poisson_file, seed=7)
    assert without_wall(res.to_json()) == without_wall(again.to_json())


@pytest.mark.parametrize("other", [8, 12345])
def test_other_seed_other_results(poisson_file, other):
    a = json.loads(_core.run(poisson_file.read_text(), seed=7))
    b = json.loads(_core.run(poisson_file.read_text(), seed=other))
    fa, fb = a["flows"][0], b["flows"][0]
    assert (fa["tx_packets"], fa["rx_packets"], fa["delay_mean_s"]) != (
        fb["tx_packets"],
        fb["rx_packets"],
        fb["delay_mean_s"],
    )
