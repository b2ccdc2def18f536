"""Error models and error modules of an ns-2 script, and their translation to a link's loss.

Follows ns-2.35 ``queue/errmodel.cc`` (ErrorModel, PeriodicErrorModel, ListErrorModel,
ErrorModule) and ``tcl/lib/ns-errmodel.tcl`` / ``ns-link.tcl`` (printed with ``ns`` itself:
``ErrorModule info instbody bind`` etc.):

* ``$link errormodule $em`` (and ``$ns lossmodel $em n1 n2``, which calls it) puts the module
  or model at the link's head, before the queue (``add-to-head``), its drop-target the link's
  drophead: a lost packet is a ``d`` line of the link's drop trace, counted before it was
  queued.
* ``new ErrorModule Fid`` classifies packets by their ``fid_`` (``Classifier/Hash/Fid``):
  ``$em insert $model`` chains a model to the module's target, ``$em bind $model fid ?last?``
  gives it the packets of those ids (a model bound to several counts them together; the last
  binding of an id wins), ``$em default pass|$model`` takes the others. Without a default, the
  first packet of an unbound id stops ns-2 (the classifier's ``no-slot`` handler); bufferlab
  refuses such a script before it runs.
* ``ErrorModel/Periodic`` (``offset_``, ``period_``, ``burstlen_``) and ``ErrorModel/List``
  (``droplist``) count packets, or bytes with ``unit byte``; ``markecn_ true`` marks instead of
  dropping; ``delay_pkt_ true`` holds the packet ``delay_`` seconds and then hands it to the
  model's target, past its module (``ErrorModel::recv``: ``Scheduler::schedule(target_, p,
  delay_)``). The rules are the core's ``net/error_module.rs``; a random ``ErrorModel`` is the
  core's Bernoulli loss (``net/loss.rs``).
* A second ``$link errormodule`` goes in front of the first (``add-to-head``: its target is
  the first module), so packets meet the last one put there first; the core chains them
  (``then``). ``$link errormodule`` with no argument answers the last one.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable

from bufferlab.ns2.errors import Ns2Error, TclScriptError
from bufferlab.ns2.model import Link, Obj
from bufferlab.ns2.scan import number_end, skip_space
from bufferlab.ns2.units import boolean, fmt_time, number

# typing is imported for type checkers only (docs/performance.md, "ns-2 scripts: start-up").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from bufferlab.ns2.model import Network

# The counting models the core has (net/error_module.rs).
COUNTING = ("ErrorModel/Periodic", "ErrorModel/List")


class ErrModule(Obj):
    """`new ErrorModule Fid`: the models inserted in it, the fid -> model bindings of its
    classifier, and its default (None: none, "pass", or a model)."""

    def __init__(self, handle: str, cls: str) -> None:
        super().__init__(handle, cls)
        self.models: list[Obj] = []
        self.bound: dict[int, Obj] = {}
        self.default: Obj | str | None = None


class ErrorModels:
    """The error model part of Interp (interp.py), a mixin of it."""

    def error_module_made(self, em: Obj, args: list[str]) -> None:
        """`new ErrorModule cltype`: only the flow-id classifier is modelled."""
        if args[:1] != ["Fid"]:
            kind = args[0] if args else "(none)"
            raise Ns2Error(f"ErrorModule {kind}: only `new ErrorModule Fid` is modelled")

    def link_errormodule(self, link: Link, args: list[str]) -> str:
        """SimpleLink errormodule: with no argument the module put there, else puts one at
        the link's head (add-to-head), its drop-target the link's drophead."""
        if not args:
            if link.loss is None or link.loss_after:
                raise TclScriptError('can\'t read "errmodule_": no such variable')
            return link.loss.handle
        em = self.objects.get(args[0])
        if em is None or not (em.cls.startswith("ErrorModel") or isinstance(em, ErrModule)):
            raise Ns2Error(f"$link errormodule {args[0]}: not an ErrorModule or ErrorModel")
        if self.runner is not None:
            self._not_while_running("$link errormodule")
        if link.loss is not None:
            if link.loss_after or not _counting(link.loss) or not _counting(em):
                raise Ns2Error(
                    f"a second error module on link {link.src.id}->{link.dst.id} ($link "
                    "errormodule or $ns lossmodel) is not modelled unless both are ErrorModule "
                    "Fid or ErrorModel/Periodic / List before the queue"
                )
            # add-to-head: the new one in front, its target the one that was there
            link.loss_chain.insert(0, link.loss)
        link.loss, link.loss_after = em, False
        self.net.drop_targets.pop(em.handle, None)
        return ""

    def error_module_method(self, em: ErrModule, method: str, args: list[str]) -> str:
        """ns-errmodel.tcl's ErrorModule instprocs."""
        if method in ("insert", "bind", "default") and self.runner is not None:
            self._not_while_running(f"$errmodule {method}")
        if method == "insert" and len(args) == 1:
            m = self._model(args[0], method)
            if m not in em.models:
                em.models.append(m)
            # the model's target and drop-target become the module's
            self.net.drop_targets.pop(m.handle, None)
            return ""
        if method == "bind" and len(args) in (2, 3):
            m = self._model(args[0], method)
            first = int(number(args[1], "flow id"))
            last = int(number(args[2], "flow id")) if len(args) == 3 else first
            for fid in range(first, last + 1):
                em.bound[fid] = m
            return ""
        if method == "default" and len(args) == 1:
            if args[0] == "pass":
                em.default = "pass"
                return ""
            m = self._model(args[0], method)
            if m not in em.bound.values():
                # ns-errmodel.tcl: findslot fails, the default stays as it was
                print(f"ErrorModule: couldn't find classifier entry for error model {args[0]}")
                return ""
            em.default = m
            return ""
        if method == "errormodels" and not args:
            if not em.models:
                raise TclScriptError('can\'t read "models_": no such variable')
            return self.tcl_list(*(m.handle for m in em.models))
        if method == "drop-target":
            return self._drop_target(em, args)
        if method == "target" and not args:
            return ""
        raise Ns2Error(f"ErrorModule method `{method}` is not modelled")

    def _model(self, h: str, method: str) -> Obj:
        m = self.objects.get(h)
        if m is None or not m.cls.startswith("ErrorModel"):
            raise Ns2Error(f"$errmodule {method} {h}: not an ErrorModel")
        return m

    def error_model_method(self, em: Obj, method: str, args: list[str]) -> str:
        """An error model's methods (errmodel.cc ErrorModel::command, ListErrorModel)."""
        if method == "drop-target":
            return self._drop_target(em, args)
        if method == "unit":
            if not args:  # eu_names[unit_]; STR2EU: any other name is packets
                return em.vars.get("unit_", "pkt")
            em.vars["unit_"] = args[0] if args[0] in ("time", "byte", "bit") else "pkt"
            return ""
        if method == "droplist" and em.cls == "ErrorModel/List":
            return str(self._droplist(em, args))
        if method == "ranvar" and args:
            rv = self.objects.get(args[0])
            if rv is None or not rv.cls.startswith("RandomVariable"):
                raise Ns2Error(f"ErrorModel ranvar {args[0]}: not a RandomVariable")
            em.ranvar = rv
            em.ranvar_on_default = rv.vars.get("rng") == self.default_rng.handle
            return ""
        if method in ("ranvar", "target"):
            return em.ranvar.handle if method == "ranvar" and em.ranvar else ""
        raise Ns2Error(f"{em.cls} method `{method}` is not modelled")

    def _droplist(self, em: Obj, args: list[str]) -> int:
        """ListErrorModel::parse_droplist: numbers in one or several arguments, sorted; a
        repeated number is an error (the list is then empty)."""
        words = [str(w) for a in args for w in str(a).split()]
        for w in words:
            if not w[0].isdigit():
                raise TclScriptError(
                    f"ListErrorModel({em.handle}): parse_droplist: unknown drop specifier "
                    f"starting at >>>{w}"
                )
        # atoi: the leading digits of each word
        values = sorted(int("".join(_leading_digits(w))) for w in words)
        dup = next((a for a, b in itertools.pairwise(values) if a == b), None)
        if dup is not None:
            em.droplist = []
            raise TclScriptError(f"ListErrorModel: error: dup {dup} in list")
        em.droplist = values
        return len(values)


def _strtod_prefix(text: str) -> float:
    """strtod: the number at the start of the text (0 if none)."""
    i = skip_space(text)
    j = number_end(text, i)
    return float(text[i:j]) if j >= 0 else 0.0


def _leading_digits(w: str) -> list[str]:
    out = []
    for c in w:
        if not c.isdigit():
            break
        out.append(c)
    return out


def _counting(em: Obj) -> bool:
    return isinstance(em, ErrModule) or em.cls in COUNTING


def loss_config(
    em: Obj,
    after_link: bool,
    net: Network,
    warn: Callable[[str], None],
    chain: list[Obj] | None = None,
) -> dict[str, Any] | None:
    """The scenario loss of one link direction from what the script put there: an
    ErrorModule (a `per_flow` loss), a counting model alone (a `per_flow` loss all flows go
    through), or a random ErrorModel (`bernoulli`); `chain`: the modules packets meet after
    it (a `per_flow` loss's `then`)."""
    position = "after_link" if after_link else "before_queue"
    if isinstance(em, ErrModule):
        out = _module_config(em, net, position)
    elif em.cls in COUNTING:
        cfg = _model_config(em, [])
        _check_marking(em, cfg, lambda fid: True, net)
        out = {"kind": "per_flow", "models": [cfg], "unbound": 0, "position": position}
    else:
        return _random_config(em, position, warn)
    then = []
    if chain and em.handle in net.drop_targets:
        raise Ns2Error(
            f"{em.cls} {em.handle}: a drop-target of its own on a module in front of another "
            "($link errormodule twice) is not modelled"
        )
    for m in chain or []:
        if m.handle in net.drop_targets:
            raise Ns2Error(
                f"{m.cls} {m.handle}: a drop-target of its own on a module behind another "
                "($link errormodule twice) is not modelled"
            )
        cfg = loss_config(m, after_link, net, warn)
        assert cfg is not None and cfg["kind"] == "per_flow"
        then.append({k: cfg[k] for k in ("models", "unbound") if k in cfg})
    if then:
        out["then"] = then
    return out


def _module_config(em: ErrModule, net: Network, position: str) -> dict[str, Any]:
    models: list[Obj] = []
    flows: dict[str, list[int]] = {}
    for fid, m in sorted(em.bound.items()):
        if m not in em.models:
            raise Ns2Error(
                f"ErrorModule {em.handle}: {m.cls} {m.handle} is bound to fid {fid} but not "
                "inserted ($em insert): ns-2 passes its packets nowhere; insert it"
            )
        if m not in models:
            models.append(m)
        flows.setdefault(m.handle, []).append(fid)
    if em.default is None:
        _no_unbound_flow(em, net)
    configs = [_model_config(m, flows[m.handle]) for m in models]
    for m, cfg in zip(models, configs, strict=True):
        _check_marking(m, cfg, _sees(em, m, set(flows[m.handle])), net)
    out: dict[str, Any] = {"kind": "per_flow", "models": configs, "position": position}
    if isinstance(em.default, Obj):
        out["unbound"] = models.index(em.default)
    return out


def _sees(em: ErrModule, m: Obj, fids: set[int]) -> Callable[[int], bool]:
    """Whether model m of module em sees the packets of a fid: bound to it, or its default."""
    return lambda f: f in fids or (em.default is m and f not in em.bound)


def _model_config(m: Obj, flows: list[int]) -> dict[str, Any]:
    """One counting model (net/error_module.rs); its `enable_` is not read (Periodic and List
    replace ErrorModel::corrupt, which is what reads it)."""
    if m.cls not in COUNTING:
        raise Ns2Error(
            f"{m.cls} in an ErrorModule: only ErrorModel/Periodic and ErrorModel/List are "
            "modelled there"
        )
    v = m.vars
    unit = v.get("unit_", "pkt")
    if unit not in ("pkt", "byte"):
        raise Ns2Error(f"{m.cls} unit {unit}: only unit pkt and unit byte are modelled")
    out: dict[str, Any] = {"flows": flows, "unit": "bytes" if unit == "byte" else "packets"}
    if m.cls == "ErrorModel/Periodic":
        if number(v.get("default_drop_", "0")) != 0:
            raise Ns2Error("ErrorModel/Periodic default_drop_ other than 0 is not modelled")
        # int(offset_), int(period_) in PeriodicErrorModel::corrupt; a count below
        # burstlen_ (a double) is one below its ceiling
        out["kind"] = "periodic"
        out["offset"] = max(0, int(number(v.get("offset_", "0"), "offset_")))
        out["period"] = max(0, int(number(v.get("period_", "1"), "period_")))
        burst = number(v.get("burstlen_", "0"), "burstlen_")
        if burst > 0:
            out["burst"] = math.ceil(burst)
    else:
        out["kind"] = "list"
        out["drop"] = list(m.droplist or [])
    if boolean(v.get("markecn_", "false")):
        out["mark_ecn"] = True
    elif boolean(v.get("delay_pkt_", "false")):
        # ErrorModel::recv: markecn_ first, then delay_pkt_; delay_ is a plain bound double
        # (bind, not bind_time: `50ms` reads 50, checked with `ns`), default 0
        out["delay"] = fmt_time(max(0.0, _strtod_prefix(str(v.get("delay_", "0")))))
    return out


def _random_config(em: Obj, position: str, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """errmodel.cc CorruptPkt: a packet is lost when `u < rate_`, u the ranvar's value or the
    default RNG's next (`Random::uniform()`); a disabled model (`enable_ 0`) draws nothing.
    `$ns lossmodel` puts it at the link's head, before the queue (SimpleLink errormodule);
    `$ns link-lossmodel` after the link's delay, where it decides as the packet arrives
    (SimpleLink insert-linkloss)."""
    if em.cls not in ("ErrorModel", "ErrorModel/Uniform"):
        raise Ns2Error(f"{em.cls} on a link is not modelled")
    unit = em.vars.get("unit_", "pkt")
    if unit not in ("pkt", "packet", "pkts"):
        raise Ns2Error(f"ErrorModel unit {unit}: only packet units (unit pkt) are modelled")
    for var in ("markecn_", "delay_pkt_"):
        if boolean(em.vars.get(var, "false")):
            raise Ns2Error(f"a random ErrorModel with {var} true is not modelled")
    rv = em.ranvar
    if rv is not None:
        bounds = (number(rv.vars.get("min_", "0")), number(rv.vars.get("max_", "1")))
        if rv.cls != "RandomVariable/Uniform" or bounds != (0.0, 1.0):
            raise Ns2Error(
                f"ErrorModel ranvar {rv.cls}: only a RandomVariable/Uniform from 0 to 1 is "
                "modelled (the loss rate is then rate_); drop the ranvar line"
            )
        if not em.ranvar_on_default:
            warn(
                f"ErrorModel {em.handle}: its ranvar draws from an RNG of its own; bufferlab "
                "draws from the default RNG (the same loss rate, other packets lost)"
            )
    if not boolean(em.vars.get("enable_", "1")):
        return None
    return {"kind": "bernoulli", "rate": number(em.vars.get("rate_", "0")), "position": position}


def _check_marking(m: Obj, cfg: dict[str, Any], sees: Callable[[int], bool], net: Network) -> None:
    """A marking model (markecn_ true) sets the CE bit of the packets it selects whether they
    are ECN-capable or not (ErrorModel::recv); bufferlab's packets carry CE only with ECT. So
    the model must see one ECN-capable TCP flow's data only (not its ACKs) and must not select
    its opening packet (seqno 0, sent without ECT)."""
    if not cfg.get("mark_ecn"):
        return
    link = next(
        (
            lk
            for lk in net.links.values()
            if any(x is m or _holds(x, m) for x in [lk.loss, *lk.loss_chain])
        ),
        None,
    )
    if link is None:
        return
    seen = []
    for ag in _senders(net):
        fid = int(number(ag.vars.get("fid_", "0"), "fid_"))
        if not sees(fid):
            continue
        assert ag.node is not None and ag.peer is not None and ag.peer.node is not None
        s, d = ag.node.id, ag.peer.node.id
        tcp = ag.cls.startswith("Agent/TCP")
        if tcp and _on_shortest_path(net, d, s, link.src.id, link.dst.id):
            seen.append(f"fid {fid}'s ACKs")
        elif _on_shortest_path(net, s, d, link.src.id, link.dst.id):
            if not (tcp and boolean(ag.vars.get("ecn_", "0"))):
                seen.append(f"fid {fid} (no ecn_)")
            elif boolean(ag.vars.get("syn_", "true")) and _selects_first(cfg):
                seen.append(f"fid {fid}'s opening packet")
            else:
                seen.append("")
    why = [w for w in seen if w] or (["packets of several flows"] if len(seen) > 1 else [])
    if why:
        raise Ns2Error(
            f"{m.cls} {m.handle} markecn_ true would mark {why[0]}, not ECN-capable: ns-2 sets "
            "their CE bit alone, which bufferlab's packets cannot carry; not modelled"
        )


def _holds(loss: Obj | None, m: Obj) -> bool:
    return isinstance(loss, ErrModule) and m in loss.models


def _selects_first(cfg: dict[str, Any]) -> bool:
    """Whether the model selects the first packet it sees (40 bytes when it is an opening
    packet)."""
    first = 40 if cfg["unit"] == "bytes" else 1
    if cfg["kind"] == "periodic":
        return bool(cfg["offset"] <= first)
    drop = cfg["drop"]
    return bool(drop) and drop[0] <= (first if cfg["unit"] == "bytes" else 0)


def _senders(net: Network) -> list[Any]:
    """The connected sending agents that may send (an application, or the script writes)."""
    return [
        ag
        for ag in net.agents
        if ag.peer is not None
        and ag.node is not None
        and ag.peer.node is not None
        and (ag.app is not None or ag.scripted)
        and (ag.cls.startswith("Agent/TCP") or ag.cls.startswith("Agent/UDP"))
    ]


def _no_unbound_flow(em: ErrModule, net: Network) -> None:
    """Without a default, ns-2 stops at the first packet of an unbound fid (Classifier
    no-slot): refuses a script where a flow's packets (its data, a TCP flow's ACKs too) of an
    unbound fid take a shortest path (static routing) through the module's link."""
    link = next((lk for lk in net.links.values() if lk.loss is em or em in lk.loss_chain), None)
    if link is None:
        return
    for ag in _senders(net):
        fid = int(number(ag.vars.get("fid_", "0"), "fid_"))
        if fid in em.bound:
            continue
        ends = [(ag.node.id, ag.peer.node.id)]
        if ag.cls.startswith("Agent/TCP"):
            ends.append((ag.peer.node.id, ag.node.id))
        for s, d in ends:
            if _on_shortest_path(net, s, d, link.src.id, link.dst.id):
                raise Ns2Error(
                    f"ErrorModule {em.handle} on link {link.src.id}->{link.dst.id} has no "
                    f"model bound to fid {fid} ({ag.cls} {ag.handle}) and no default: ns-2 "
                    "stops at its first packet there (Classifier no-slot); add "
                    "`$em default pass` or bind the fid"
                )


def _on_shortest_path(net: Network, src: int, dst: int, a: int, b: int) -> bool:
    def hops(start: int, reverse: bool) -> dict[int, int]:
        out, todo = {start: 0}, deque([start])
        while todo:
            n = todo.popleft()
            for x, y in net.links:
                nxt = x if reverse and y == n else y if not reverse and x == n else None
                if nxt is not None and nxt not in out:
                    out[nxt] = out[n] + 1
                    todo.append(nxt)
        return out

    from_src, to_dst = hops(src, False), hops(dst, True)
    if dst not in from_src or a not in from_src or b not in to_dst:
        return False
    return from_src[a] + 1 + to_dst[b] == from_src[dst]
