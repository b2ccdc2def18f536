"""Scenarios built in Python, a topology at a time, without writing TOML text.

A builder only assembles the dict of a scenario file (the same keys and values as the TOML
format, docs/scenario.md); :meth:`ScenarioBuilder.scenario` hands it to
:meth:`bufferlab.Scenario.from_dict`, so the core checks it with the same code and the same
error messages as a file::

    import bufferlab

    b = bufferlab.dumbbell(pairs=2, duration="20s",
                           access={"rate": "100Mbps", "delay": "1ms"},
                           bottleneck={"rate": "10Mbps", "delay": "20ms",
                                       "queue": {"kind": "red"}})
    b.flow("tcp0", "s0", "d0", app={"kind": "bulk"}, tcp={"cc": "cubic"})
    b.flow("video", "s1", "d1", app={"kind": "cbr", "rate": "2Mbps"})
    b.monitor(queue_interval="10ms")
    res = b.run(seed=1)

``chain(hops=...)``, ``parking_lot(hops=...)``, the datacenter fabrics ``leaf_spine(...)`` and
``fat_tree(k=...)``, and ``custom(nodes=[...])`` (with :meth:`ScenarioBuilder.link`) build the
other topologies; :meth:`ScenarioBuilder.switch` makes a node a shared-buffer switch and
:meth:`ScenarioBuilder.routing` chooses single-path or ECMP routing. Each method returns the
builder, so calls chain.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from bufferlab.scenario import RunOptions, Scenario

if TYPE_CHECKING:
    from bufferlab.results import Results


class ScenarioBuilder:
    """The dict of a scenario file, grown by method calls (see the module's docstring)."""

    def __init__(self, topology: Mapping[str, Any], duration: str, **top: Any) -> None:
        self._d: dict[str, Any] = {"duration": duration, **_clean(top)}
        self._d["topology"] = _clean(topology)
        self._d["links"] = {}
        self._d["flows"] = []

    def link(
        self, name: str, between: Sequence[str] | None = None, **fields: Any
    ) -> ScenarioBuilder:
        """Sets link ``name`` (or a template such as ``access`` / ``hop``): ``rate``, ``delay``,
        ``queue``, ``loss``, ... as in ``[links.NAME]``; ``between`` names its two ends in a
        custom topology. Calling it again for the same name updates the fields given."""
        entry = self._d["links"].setdefault(name, {})
        if between is not None:
            entry["between"] = list(between)
        entry.update(_clean(fields))
        return self

    def switch(
        self,
        node: str,
        buffer: str,
        policy: str,
        alpha: float | None = None,
        threshold: str | None = None,
        queues: Mapping[str, Mapping[str, Any]] | None = None,
        ecn_threshold: str | None = None,
        abm_saturation: str | None = None,
        abm_interval: str | None = None,
        abm_unscheduled_alpha: float | None = None,
        priorities: Sequence[Mapping[str, Any]] | None = None,
        scheduler: str | None = None,
        quantum: str | None = None,
    ) -> ScenarioBuilder:
        """Makes node ``node`` a shared-buffer switch, as ``[switches.NODE]``: its output
        queues draw from one ``buffer`` ("400p", "1MB") admitted by ``policy``
        (``complete_sharing``, ``static_threshold`` with ``threshold``,
        ``dynamic_threshold`` with ``alpha``, or ``abm`` with ``alpha`` and optionally
        ``abm_saturation`` / ``abm_interval`` / ``abm_unscheduled_alpha``, the alpha of
        packets a flow with ``tcp.unscheduled_bytes`` tags); ``ecn_threshold`` ("20p", "30KB") marks
        ECN-capable arrivals CE while a queue holds that much (DCTCP's K); ``queues`` gives one
        output queue's own ``alpha`` / ``threshold`` / ``ecn_threshold`` by the name of its
        link. ``priorities`` (one mapping per priority: ``alpha``, ``threshold``,
        ``ecn_threshold``, ``weight``) gives every port one queue per priority, a flow's
        ``class`` choosing it, served by ``scheduler`` (``priority``, ``drr`` with ``quantum``
        bytes per unit of weight, or ``wrr``); docs/models/shared_buffer.md."""
        entry: dict[str, Any] = {
            "buffer": buffer,
            "policy": policy,
            "alpha": alpha,
            "threshold": threshold,
            "ecn_threshold": ecn_threshold,
            "abm_saturation": abm_saturation,
            "abm_interval": abm_interval,
            "abm_unscheduled_alpha": abm_unscheduled_alpha,
            "scheduler": scheduler,
            "quantum": quantum,
        }
        if priorities is not None:
            entry["priorities"] = [_clean(p) for p in priorities]
        if queues is not None:
            entry["queues"] = {k: _clean(v) for k, v in queues.items()}
        self._d.setdefault("switches", {})[node] = _clean(entry)
        return self

    def routing(
        self, multipath: str | None = None, hash_seed: int | None = None
    ) -> ScenarioBuilder:
        """How nodes choose among equal-cost paths, as ``[routing]``: ``multipath="ecmp"``
        (a per-flow hash of the 5-tuple picks one; the default of ``leaf_spine`` and
        ``fat_tree``), ``"random_packet"`` (ns-3's ``RandomEcmpRouting``: every packet draws
        one uniformly, from the run's seed) or ``"none"`` (one path, ties by port order);
        ``hash_seed`` fixes the routers' hash secrets (default: drawn from the run's seed;
        ``ecmp`` only)."""
        self._d["routing"] = _clean({"multipath": multipath, "hash_seed": hash_seed})
        return self

    def flow(self, name: str, src: str, dst: str, **fields: Any) -> ScenarioBuilder:
        """Adds a flow from ``src`` to ``dst``: ``app``, ``tcp``, ``start``, ``stop``, ``count``,
        ... as in ``[[flows]]``."""
        self._d["flows"].append({"name": name, "src": src, "dst": dst, **_clean(fields)})
        return self

    def poisson_flows(
        self, hosts: Sequence[str], sizes: Any, load: float, **fields: Any
    ) -> ScenarioBuilder:
        """Adds flows arriving as a Poisson process at ``load`` of the hosts' links, sizes from
        ``sizes`` (``"web_search"``, ``"data_mining"``, ``"hadoop"``, ``{"file": ...}`` (a name
        relative to the scenario file's folder, inside it; the working folder when the scenario
        has no file) or ``{"points": [[size, p], ...]}``), as ``[[workloads]]`` of kind
        ``poisson``: ``name``, ``pairs``, ``link_rate``, ``start``, ``stop``, ``tcp``
        (docs/models/workloads.md)."""
        entry = {"kind": "poisson", "hosts": list(hosts), "sizes": sizes, "load": load}
        self._d.setdefault("workloads", []).append({**entry, **_clean(fields)})
        return self

    def incast(
        self, client: str, servers: Sequence[str], response: str, interval: str, **fields: Any
    ) -> ScenarioBuilder:
        """Adds incast queries: ``client`` asks each of ``servers`` for ``response`` bytes every
        ``interval``, as ``[[workloads]]`` of kind ``incast``: ``name``, ``arrivals``
        (``periodic`` or ``poisson``), ``start``, ``stop``, ``tcp``."""
        entry = {"kind": "incast", "client": client, "servers": list(servers),
                 "response": response, "interval": interval}  # fmt: skip
        self._d.setdefault("workloads", []).append({**entry, **_clean(fields)})
        return self

    def monitor(self, **fields: Any) -> ScenarioBuilder:
        """What to sample (``queue_interval``, ``cwnd_interval``, ``flow_interval``, ...), as in
        ``[monitor]``."""
        self._d.setdefault("monitor", {}).update(_clean(fields))
        return self

    def set(self, **fields: Any) -> ScenarioBuilder:
        """Top-level fields: ``name``, ``seed``, ``warmup``, ``description``, ``fairness``, ..."""
        self._d.update(_clean(fields))
        return self

    def to_dict(self) -> dict[str, Any]:
        """The scenario as the dict of its TOML file (a copy)."""
        d = copy.deepcopy(self._d)
        if not d["links"]:
            del d["links"]
        if not d["flows"] and d.get("workloads"):
            del d["flows"]
        return d

    def scenario(self, source: str = "<builder>") -> Scenario:
        """The scenario, read and checked by the core like a file (errors are raised when it is
        validated, resolved or run)."""
        return Scenario.from_dict(self.to_dict(), source=source)

    def run(self, seed: int | None = None, **options: Unpack[RunOptions]) -> Results:
        """Builds the scenario and runs it (the options of :func:`bufferlab.run`)."""
        return self.scenario().run(seed, None, **options)


def dumbbell(
    pairs: int,
    duration: str,
    access: Mapping[str, Any] | None = None,
    bottleneck: Mapping[str, Any] | None = None,
    sender_delays: Sequence[str] | None = None,
    receiver_delays: Sequence[str] | None = None,
    **top: Any,
) -> ScenarioBuilder:
    """Senders s0..s{pairs-1} -> r0 -> bottleneck -> r1 -> receivers d0..; ``access`` is the
    template of every access link, ``sender_delays`` gives each sender its own access delay."""
    b = ScenarioBuilder(
        {
            "kind": "dumbbell",
            "pairs": pairs,
            "sender_delays": _list(sender_delays),
            "receiver_delays": _list(receiver_delays),
        },
        duration,
        **top,
    )
    if access is not None:
        b.link("access", **access)
    if bottleneck is not None:
        b.link("bottleneck", **bottleneck)
    return b


def chain(
    hops: int,
    duration: str,
    hop: Mapping[str, Any] | None = None,
    side_nodes: bool | None = None,
    side: Mapping[str, Any] | None = None,
    **top: Any,
) -> ScenarioBuilder:
    """Nodes n0 - n1 - ... - n{hops} on links hop0.. from the ``hop`` template; with
    ``side_nodes``, each inner node n_i gets a side node x_i on link side{i} (``side``
    template)."""
    b = ScenarioBuilder({"kind": "chain", "hops": hops, "side_nodes": side_nodes}, duration, **top)
    if hop is not None:
        b.link("hop", **hop)
    if side is not None:
        b.link("side", **side)
    return b


def parking_lot(
    hops: int,
    duration: str,
    hop: Mapping[str, Any] | None = None,
    access: Mapping[str, Any] | None = None,
    **top: Any,
) -> ScenarioBuilder:
    """Routers r0 - ... - r{hops} on bottleneck links hop0.. (``hop`` template); host ``ls`` on
    r0 and ``ld`` on r{hops} for a path across every hop, hosts ``cs{i}`` / ``cd{i}`` on r_i /
    r_{i+1} for hop i's cross traffic; ``access`` is the template of every host link."""
    b = ScenarioBuilder({"kind": "parking_lot", "hops": hops}, duration, **top)
    if hop is not None:
        b.link("hop", **hop)
    if access is not None:
        b.link("access", **access)
    return b


def leaf_spine(
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    duration: str,
    host: Mapping[str, Any] | None = None,
    fabric: Mapping[str, Any] | None = None,
    oversubscription: float | None = None,
    **top: Any,
) -> ScenarioBuilder:
    """A two-tier Clos fabric: leaves leaf0.., each with hosts h{leaf}_{i}, and spines
    spine0.., every leaf joined to every spine. ``host`` is the template of the host links
    host{leaf}_{i}, ``fabric`` of the leaf-spine links fabric{leaf}_{spine};
    ``oversubscription`` (hosts' capacity over uplinks' at a leaf) can stand for the fabric's
    rate. Flows spread over the spines by ECMP."""
    b = ScenarioBuilder(
        {
            "kind": "leaf_spine",
            "leaves": leaves,
            "spines": spines,
            "hosts_per_leaf": hosts_per_leaf,
            "oversubscription": oversubscription,
        },
        duration,
        **top,
    )
    if host is not None:
        b.link("host", **host)
    if fabric is not None:
        b.link("fabric", **fabric)
    return b


def fat_tree(
    k: int,
    duration: str,
    host: Mapping[str, Any] | None = None,
    edge_agg: Mapping[str, Any] | None = None,
    agg_core: Mapping[str, Any] | None = None,
    **top: Any,
) -> ScenarioBuilder:
    """The k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge switches
    edge{pod}_{e} and k/2 aggregation switches agg{pod}_{a}, (k/2)^2 core switches core{c},
    k^3/4 hosts h{pod}_{edge}_{i}; ``host``, ``edge_agg`` and ``agg_core`` are the templates of
    the three tiers of links. Flows spread over the equal-cost paths by ECMP."""
    b = ScenarioBuilder({"kind": "fat_tree", "k": k}, duration, **top)
    for name, cfg in (("host", host), ("edge_agg", edge_agg), ("agg_core", agg_core)):
        if cfg is not None:
            b.link(name, **cfg)
    return b


def custom(nodes: Sequence[str], duration: str, **top: Any) -> ScenarioBuilder:
    """Nodes by name; add each link with ``.link(name, between=(a, b), rate=..., delay=...)``."""
    return ScenarioBuilder({"kind": "custom", "nodes": list(nodes)}, duration, **top)


def _list(v: Sequence[str] | None) -> list[str] | None:
    return None if v is None else list(v)


def _clean(d: Mapping[str, Any]) -> dict[str, Any]:
    """Leaves out the keys given as None: the file would not write them (TOML has no null)."""
    return {k: v for k, v in d.items() if v is not None}
