"""Queue disciplines written in Python run through the engine's own interface and accounting:
the Python rewrite of DropTail gives exactly the built-in results; errors in user code come
back as the user's exception or as a one-line scenario error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import bufferlab
from conftest import dumbbell_toml

ROOT = Path(__file__).resolve().parents[1]
QUEUES = ROOT / "examples" / "python_queues.py"


def scenario(queue: str) -> str:
    """Two flows (Poisson, CBR) over a 2 Mbit/s bottleneck with ``queue`` (TOML inline table)."""
    return dumbbell_toml(
        duration="10s",
        pairs=2,
        bottleneck=("2Mbps", "20ms"),
        queue=queue,
        flows=[
            {
                "src": "s0",
                "dst": "d0",
                "app": {"kind": "poisson", "rate": "1.5Mbps", "size_distribution": "exponential"},
            },
            {"src": "s1", "dst": "d1", "app": {"kind": "cbr", "rate": "1Mbps"}},
        ],
        monitor={"queue_interval": "100ms"},
    )


def comparable(res: bufferlab.Results) -> dict:
    raw = json.loads(res.to_json())
    raw["wall_s"] = 0
    for q in raw["queues"]:
        q["discipline"] = "-"
    return raw


def test_python_taildrop_equals_builtin_droptail() -> None:
    py = bufferlab.run(
        scenario(f'{{ kind = "python", class = "{QUEUES}:TailDrop", params = {{ limit = 20 }} }}'),
        seed=5,
        allow_python=True,
    )
    builtin = bufferlab.run(scenario('{ kind = "droptail", limit = "20p" }'), seed=5)
    assert py.queues.discipline.iloc[0] == "python"
    assert comparable(py) == comparable(builtin)
    assert builtin.queues.drops.sum() > 0


def test_user_exception_propagates(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(
        "from bufferlab import QueueDisc\n"
        "class Broken(QueueDisc):\n"
        "    def enqueue(self, pkt, ctx):\n"
        "        raise ZeroDivisionError('my bug')\n"
        "    def dequeue(self, ctx):\n"
        "        return None\n"
    )
    path = tmp_path / "s.toml"
    path.write_text(scenario('{ kind = "python", class = "broken:Broken" }'))
    with pytest.raises(ZeroDivisionError, match="my bug"):
        bufferlab.run(path, allow_python=True)


def test_bad_verdict_is_a_value_error(tmp_path: Path) -> None:
    (tmp_path / "odd.py").write_text(
        "class Odd:\n"
        "    def enqueue(self, pkt, ctx):\n"
        "        return 42\n"
        "    def dequeue(self, ctx):\n"
        "        return None\n"
    )
    path = tmp_path / "s.toml"
    path.write_text(scenario('{ kind = "python", class = "odd.py:Odd" }'))
    with pytest.raises(ValueError, match="enqueue must return"):
        bufferlab.run(path, allow_python=True)


def test_missing_class_is_a_one_line_answer(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(scenario('{ kind = "python", class = "nosuchmodule:Q" }'))
    out = subprocess.run(
        [sys.executable, "-m", "bufferlab", "run", str(path), "--allow-python"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "links.bottleneck.queue.class" in out.stderr
    assert "nosuchmodule" in out.stderr


def test_python_red_equals_builtin_red() -> None:
    """The worked example: RED rewritten in Python gives exactly the built-in RED's results
    for the same seed (same random stream, same arithmetic)."""
    py = bufferlab.run(
        scenario(f'{{ kind = "python", class = "{QUEUES}:Red" }}'), seed=7, allow_python=True
    )
    builtin = bufferlab.run(scenario('{ kind = "red", preset = "ns3" }'), seed=7)
    q = builtin.queues.query("link == 'bottleneck' and arrivals > 0").iloc[0]
    assert q.early_drops > 0, "the scenario exercises early drops"
    assert comparable(py) == comparable(builtin)


def test_python_reno_equals_builtin_reno() -> None:
    """The worked example: Reno rewritten in Python gives exactly the built-in Reno's results.

    Both without ns-2.35's Reno-specific agent rules (`ns2_rules`, which live in the sender, not
    behind the congestion-control trait): the example is RFC 5681 Reno."""
    sc = bufferlab.load(ROOT / "examples" / "dumbbell_tcp.toml")
    cc = str(ROOT / "examples" / "python_cc.py") + ":Reno"
    over = {"duration": "30s"}
    builtin_over = {"duration": "30s"}
    for i in range(4):
        over[f"flows.{i}.tcp"] = {
            "preset": "ns2", "cc": "python", "cc_class": cc, "ns2_rules": False
        }  # fmt: skip
        builtin_over[f"flows.{i}.tcp"] = {"preset": "ns2", "cc": "reno", "ns2_rules": False}
    py = sc.with_overrides(over).run(allow_python=True)
    builtin = sc.with_overrides(builtin_over).run()
    a, b = comparable(py), comparable(builtin)
    for f in a["flows"] + b["flows"]:
        f["tcp"].pop("cc", None)
    assert a == b
    assert sum(f["tcp"]["fast_retransmits"] for f in b["flows"]) > 0, "losses were recovered"
