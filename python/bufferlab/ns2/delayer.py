"""ns-2's Delayer (queue/delayer.cc; tcl/lib/ns-queue.tcl `Simulator insert-delayer`,
`SimpleLink insert-delayer`) and the link changes a script makes while the run goes on.

* ``new Delayer``, ``$ns insert-delayer n1 n2 $d`` (``[$ns link n1 n2] insert-delayer $d``):
  the Delayer goes between the link's queue and its wire (its dequeue trace and DelayLink),
  a one-packet stage that can hold the link back; a second one on a link prints ns-2's
  "Delayer already inserted" and changes nothing. ``$d alloc $int $len`` (channel allocation
  delays), ``$d spike $int $len`` (delay spikes: the first starts ``[$int value]`` after the
  command, drawn then), ``$d block`` / ``$d unblock`` (at any time). The rules are the core's
  ``net/delayer.rs``; the random variables (Uniform, Exponential, Constant) must draw from
  the default RNG, as the engine's do.
* ``DelayLink set avoidReordering_ true`` (class default of the links made afterwards):
  delay.cc ``LinkDelay::recv`` then never lets a packet arrive before the one sent ahead of it
  after a delay or bandwidth change.

The engine learns these at ``$ns run`` (``start``, called by the runner); ``$ns delay``,
``$ns bandwidth`` and ``$ns queue-limit`` during the run are topology.py's.
"""

from __future__ import annotations

import sys

from bufferlab.ns2.errors import Ns2Error, TclScriptError
from bufferlab.ns2.model import Link, Obj
from bufferlab.ns2.rng import RANVAR_DEFAULTS, ranvar_value
from bufferlab.ns2.units import boolean, number

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# RandomVariable class -> the engine's word and the variables it reads (ranvar.cc).
_RANVARS = {
    "RandomVariable/Uniform": ("uniform", "min_", "max_"),
    "RandomVariable/Exponential": ("exponential", "avg_", None),
    "RandomVariable/Constant": ("constant", "val_", None),
}


class DelayerObj(Obj):
    """`new Delayer`: the link it was inserted into and what the script asked of it."""

    def __init__(self, handle: str, cls: str) -> None:
        super().__init__(handle, cls)
        self.link: Link | None = None
        self.alloc: tuple[Obj, Obj] | None = None
        self.spike: tuple[Obj, Obj, float] | None = None
        self.blocked = False
        # how many trace sets the link had when the Delayer went in
        self.traces_then = 0


class Delayers:
    """The Delayer part of Interp (interp.py), a mixin of it."""

    def sim_insert_delayer(self, m: str, a: list[str]) -> str:
        """ns-queue.tcl `Simulator insert-delayer {src dst delayer}`."""
        if len(a) != 3:
            raise TclScriptError('wrong # args: should be "$ns insert-delayer src dst delayer"')
        link = self.net.link(self.node(a[0]), self.node(a[1]))
        return self.link_insert_delayer(link, a[2:])

    def link_insert_delayer(self, link: Link, args: list[str]) -> str:
        """`SimpleLink insert-delayer`: `$delayer target [$queue_ target]; $queue_ target
        $delayer`, once per link."""
        d = self.objects.get(args[0]) if args else None
        if not isinstance(d, DelayerObj):
            raise Ns2Error(f"insert-delayer {args[:1]}: not a Delayer")
        if self.runner is not None:
            self._not_while_running("insert-delayer")
        if link.delayer is not None:
            print("Delayer already inserted", file=sys.stderr)
            return ""
        if d.link is not None:
            raise Ns2Error(f"Delayer {d.handle} inserted into a second link is not modelled")
        link.delayer, d.link, d.traces_then = d, link, len(link.traces)
        return ""

    def delayer_method(self, d: DelayerObj, method: str, args: list[str]) -> str:
        """delayer.cc `Delayer::command`."""
        if method in ("block", "unblock") and not args:
            if method == "block" and d.spike is not None:
                # `block` only without spike_len; else Connector::command knows no `block`
                raise Ns2Error(f"Delayer {d.handle} block after spike is not modelled")
            d.blocked = method == "block"
            if self.runner is not None and d.link is not None:
                self._delayer_engine(d, "delayer_block", d.blocked)
            return ""
        if method in ("alloc", "spike") and len(args) == 2:
            if self.runner is not None:
                self._not_while_running(f"$delayer {method}")
            rvs = [self._delayer_ranvar(h, method) for h in args]
            if method == "alloc":
                d.alloc = (rvs[0], rvs[1])
            else:
                # st_.sched(int->value()): the first spike's timer, drawn now
                d.spike = (rvs[0], rvs[1], self._now() + self._draw(rvs[0]))
            return ""
        raise Ns2Error(f"Delayer method `{method}` is not modelled")

    def _draw(self, rv: Obj) -> float:
        """`$rv value` as the double ranvar.cc returns (not as it prints)."""
        names = RANVAR_DEFAULTS[rv.cls]
        bound = {k: number(rv.vars.get(k, v)) for k, v in names.items()}
        return float(ranvar_value(rv.cls.split("/")[-1], bound, self.default_rng.stream))

    def _now(self) -> float:
        return 0.0 if self.runner is None else float(self.runner.now)

    def _delayer_ranvar(self, h: str, method: str) -> Obj:
        rv = self.objects.get(h)
        if rv is None or rv.cls not in _RANVARS:
            raise Ns2Error(
                f"$delayer {method} {h}: only RandomVariable/Uniform, /Exponential and "
                "/Constant are modelled there"
            )
        if rv.vars.get("rng") != self.default_rng.handle:
            raise Ns2Error(
                f"$delayer {method} {h}: a random variable with an RNG of its own (use-rng) is "
                "not modelled there; the Delayer draws from the default RNG"
            )
        return rv

    def _delayer_engine(self, d: DelayerObj, what: str, *args: Any) -> None:
        link = d.link
        assert link is not None
        name = self.net.link_names.get((link.src.id, link.dst.id))
        if name is None:
            raise Ns2Error(
                f"Delayer {d.handle}: the engine has no link {link.src.id}->{link.dst.id}"
            )
        getattr(self.runner.session, what)(name, link.src.name, link.dst.name, *args)

    def links_to_engine(self, session: Any) -> None:
        """At `$ns run`: the Delayers and the links that avoid reordering, to the engine."""
        for link in self.net.links.values():
            name = self.net.link_names.get((link.src.id, link.dst.id))
            if name is None:
                continue
            if link.avoid_reordering:
                session.set_link(name, link.src.name, link.dst.name, "avoid_reordering", 1.0)
            d = link.delayer
            if d is None:
                continue
            if len(link.traces) != d.traces_then:
                raise Ns2Error(
                    f"link {link.src.id}->{link.dst.id} traced after its Delayer went in (its "
                    "dequeue trace then comes before the Delayer): not modelled"
                )
            alloc = None if d.alloc is None else (_words(d.alloc[0]), _words(d.alloc[1]))
            spike = None
            if d.spike is not None:
                spike = (_words(d.spike[0]), _words(d.spike[1]), d.spike[2])
            session.add_delayer(name, link.src.name, link.dst.name, alloc, spike)
            if d.blocked:
                session.delayer_block(name, link.src.name, link.dst.name, True)


def _words(rv: Obj) -> tuple[str, float, float]:
    kind, a, b = _RANVARS[rv.cls]
    names = RANVAR_DEFAULTS[rv.cls]
    x = number(rv.vars.get(a, names[a]))
    y = number(rv.vars.get(b, names[b])) if b is not None else 0.0
    return (kind, x, y)


def delay_link_default(ip: Any) -> bool:
    """A link made now avoids reordering (`DelayLink set avoidReordering_`)."""
    return boolean(ip.default("DelayLink", "avoidReordering_") or "false")
