"""The datacenter fabrics in Python (bufferlab.leaf_spine / fat_tree, ScenarioBuilder.routing)
are the scenario files' fabrics: the same report as examples/datacenter/leaf_spine_ecmp.toml,
ECMP on by default and off on request."""

from __future__ import annotations

from pathlib import Path

import bufferlab

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "datacenter" / "leaf_spine_ecmp.toml"


def _example() -> bufferlab.ScenarioBuilder:
    """examples/datacenter/leaf_spine_ecmp.toml, written with the builder."""
    queue = {"kind": "droptail", "limit": "200p"}
    b = bufferlab.leaf_spine(
        leaves=4,
        spines=4,
        hosts_per_leaf=8,
        duration="100ms",
        host={"rate": "10Gbps", "delay": "1us", "queue": queue},
        fabric={"rate": "10Gbps", "delay": "1us", "queue": queue},
        name="leaf-spine-ecmp",
        seed=1,
    )
    for leaf in range(4):
        b.switch(f"leaf{leaf}", buffer="4MB", policy="dynamic_threshold", alpha=1.0)
    for dst in (1, 2, 3):
        b.flow(
            f"to_leaf{dst}_{{i}}",
            "h0_{i}",
            f"h{dst}_{{i}}",
            count=8,
            app={"kind": "transfer", "size": "2MB"},
        )
    return b


def _uplinks(res: bufferlab.Results) -> list[int]:
    links = res.links
    up = links[(links["from"] == "leaf0") & links["link"].str.startswith("fabric0_")]
    return [int(v) for v in up.sort_values("link")["tx_packets"]]


def test_leaf_spine_builds_the_example_file() -> None:
    built = _example().run(seed=1)
    filed = bufferlab.load(EXAMPLE).run(seed=1)
    assert built.flows.equals(filed.flows)
    assert built.links.equals(filed.links)
    # ECMP by default: leaf 0's 24 flows leave on all four uplinks
    assert all(n > 0 for n in _uplinks(built)), _uplinks(built)


def test_routing_none_takes_one_spine() -> None:
    res = _example().routing(multipath="none").run(seed=1)
    up = _uplinks(res)
    assert up[0] > 0 and up[1:] == [0, 0, 0], up


def test_fat_tree_builder() -> None:
    b = bufferlab.fat_tree(
        k=4,
        duration="10ms",
        host={"rate": "10Gbps", "delay": "1us"},
        edge_agg={"rate": "10Gbps", "delay": "1us"},
        agg_core={"rate": "10Gbps", "delay": "1us"},
    )
    b.flow("across", "h0_0_0", "h3_1_1", app={"kind": "cbr", "rate": "100Mbps"})
    b.routing(hash_seed=7)
    res = b.run(seed=1)
    f = res.flows.set_index("name").loc["across"]
    assert f["rx_packets"] > 0 and f["lost_packets"] == 0
    assert len(res.links) == 2 * 48  # 3 k^3 / 4 links, both directions
