"""OTcl's class system as ns-2 scripts use it: the class table and method resolution.

Follows OTcl 1.14 (``otcl.c``, the object system ns-2.35 is built on) and ns-2's
``tcl/lib/ns-lib.tcl`` (``new``, ``delete``); behaviours checked against ``ns`` itself:

* ``Class Foo -superclass {Bar ...}``: a class whose heritage is its superclasses' in
  depth-first, left-to-right order, a class kept at its last place (``Foo info heritage``);
  every heritage ends with ``Object``.
* ``Foo instproc m {args} {body}``: a Tcl proc whose first three arguments are ``self``,
  ``class`` (the class that defined it) and ``proc`` (its name), as OTcl's methods have them.
  ``$obj m ...`` runs the first ``m`` found on the object itself (``$obj proc``), then along
  its class's heritage; ``$self next ...`` runs the next one after ``$class`` (nothing when
  there is none).
* ``Foo set var value`` sets a variable of the class object. Objects of a pure OTcl class do
  not take it as a default (OTcl); ns-2's TclObjects do (``init-instvar``), so a user class
  that extends an ns-2 class gives its class variables to its objects' ns-2 variables.

The class table (``Classes``) answers which classes exist, in what order they are searched and
which proc defines what; ``ObjectSystem``, a part of the interpreter (``interp.py``), answers
the script's commands: ``new``, ``Class``, the methods of classes and objects (``info``,
``set``, ``instproc``, ``next``, ``instvar``, ``destroy``) and the variables of ns-2 objects.
"""

from __future__ import annotations

import _tkinter
import contextlib
from collections.abc import Iterable

from bufferlab.ns2 import telnet
from bufferlab.ns2.apps import CBR, CBR_LIVE, cbr_rate_changed
from bufferlab.ns2.classes import (
    LABELS,
    NS2_AGENT_DEFAULTS,
    NS_DEFAULTS,
    TCP_STATE,
    class_chain,
    is_a,
)
from bufferlab.ns2.errors import EvalInCaller, Ns2Error, TclScriptError
from bufferlab.ns2.model import (
    Agent,
    App,
    FlowDesc,
    FlowMon,
    Integrator,
    Link,
    Obj,
    Queue,
    QueueMonitor,
    Rng,
)
from bufferlab.ns2.units import bound_text, number, rate_bps, time_s

# OTcl's root classes: every object is an Object; ns-2's split objects are TclObjects.
ROOTS = ("TclObject", "Object")

# The roots of ns-2.35's class trees (ns-lib.tcl, ns-default.tcl): a script may declare a
# subclass of any of their classes (`Class MyFid -superclass Classifier/Hash/Fid`) whether
# bufferlab models it or not; only making an object of an unmodelled one is refused.
NS2_TREES = {
    "Agent",
    "Application",
    "Classifier",
    "Connector",
    "DelayLink",
    "ErrorModel",
    "Link",
    "LL",
    "Mac",
    "Node",
    "Phy",
    "Queue",
    "QueueMonitor",
    "RandomVariable",
    "SimpleLink",
    "Source",
    "Trace",
    "TrafficGenerator",
}


class UserClass:
    """A class the script made (`Class Foo -superclass Bar`) and its objects' handles."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.supers: list[str] = []
        self.instances: list[str] = []


class Proc:
    """An instproc or proc of the script's."""

    def __init__(self, tcl_name: str, params: str, body: str) -> None:
        self.tcl_name = tcl_name  # the Tcl proc that runs it
        self.params = params  # as the script wrote them (without self, class, proc)
        self.body = body


class Classes:
    """The classes a script can name: ns-2's (modelled by bufferlab) and its own."""

    def __init__(self, builtin: Iterable[str]):
        self.builtin = set(builtin)
        self.user: dict[str, UserClass] = {}
        # (key, method) -> Proc; key is ("c", class) for instprocs, ("o", handle) for procs
        # of one object (a class object's procs included)
        self.procs: dict[tuple[tuple[str, str], str], Proc] = {}
        self.labels: dict[str, str] = {}  # Tcl proc -> "Foo instproc m", for messages
        self._n = 0

    # -- classes ------------------------------------------------------------------------------

    def exists(self, name: str) -> bool:
        return name in self.user or name in self.builtin or name in ROOTS

    def define(self, name: str, supers: list[str]) -> UserClass:
        if name in self.builtin or name in ROOTS:
            raise Ns2Error(
                f"Class {name}: {name} is an ns-2 class; give your class another name and "
                f"make {name} its superclass (Class My{name.split('/')[-1]} -superclass {name})"
            )
        cls = self.user.get(name) or UserClass(name)
        self.user[name] = cls
        self.set_supers(cls, supers)
        return cls

    def set_supers(self, cls: UserClass, supers: list[str]) -> None:
        for s in supers:
            if not self.exists(s) and s.split("/")[0] not in NS2_TREES:
                raise Ns2Error(f"Class {cls.name} -superclass {s}: {s} is not a class")
            if s == cls.name or cls.name in self.heritage(s):
                raise Ns2Error(f"Class {cls.name} -superclass {s}: a class cycle")
        cls.supers = list(supers)
        self.builtin_base(cls.name)  # at most one line of ns-2 classes

    def heritage(self, name: str) -> list[str]:
        """The classes searched after ``name`` itself, in order (OTcl's `info heritage`)."""
        if name in ROOTS:
            return list(ROOTS[ROOTS.index(name) + 1 :])
        if name not in self.user:  # ns-2's (Node, Link, QueueMonitor are made, never named)
            return [*class_chain(name)[1:], *ROOTS]
        order: list[str] = []
        for s in self.user[name].supers:
            order += [s, *self.heritage(s)]
        # depth first, left to right; a class shared by several lines keeps its last place
        out = [c for i, c in enumerate(order) if c not in order[i + 1 :]]
        if not out or out[-1] != "Object":
            out = [c for c in out if c != "Object"] + ["Object"]
        return out

    def mro(self, name: str) -> list[str]:
        return [name, *self.heritage(name)]

    def builtin_base(self, name: str) -> str | None:
        """The ns-2 class an object of ``name`` is made as (None for a pure OTcl class)."""
        found = [c for c in self.mro(name) if c in self.builtin]
        if not found:
            return None
        base = found[0]
        for c in found[1:]:
            if c not in class_chain(base):
                raise Ns2Error(
                    f"Class {name} inherits from two ns-2 classes ({base} and {c}): an object "
                    "is made as one ns-2 class"
                )
        return base

    def subclasses(self, name: str) -> list[str]:
        return [c.name for c in self.user.values() if name in c.supers]

    # -- procs --------------------------------------------------------------------------------

    def define_proc(self, key: tuple[str, str], method: str, params: str, body: str) -> Proc:
        old = self.procs.get((key, method))
        if old is None:
            self._n += 1
            tcl_name = f"::ns2::ip::m{self._n}"
        else:
            tcl_name = old.tcl_name
        p = Proc(tcl_name, params, body)
        self.procs[(key, method)] = p
        self.labels[tcl_name] = (
            f"{key[1]} instproc {method}" if key[0] == "c" else f"{key[1]} proc {method}"
        )
        return p

    def find(
        self, handle: str, cls: str, method: str, after: str | None = None
    ) -> tuple[Proc, str] | None:
        """The proc ``$obj method`` runs and the class that defined it ("" for the object's own
        proc); with ``after``, the next one after that class (``$self next``)."""
        keys: list[tuple[str, str]] = [("o", handle)] + [("c", c) for c in self.mro(cls)]
        if after is not None:
            start = ("c", after) if after else ("o", handle)
            if start not in keys:
                return None
            keys = keys[keys.index(start) + 1 :]
        for key in keys:
            p = self.procs.get((key, method))
            if p is not None:
                return p, key[1] if key[0] == "c" else ""
        return None

    def bodies(self, method: str) -> list[str]:
        """The bodies of every proc named ``method`` (to see whether an event ends the run)."""
        return [p.body for (_, m), p in self.procs.items() if m == method]

    def forget_class(self, name: str) -> None:
        """`Class Foo` once more: OTcl makes the class anew, without its procs."""
        for k in [k for k in self.procs if k[0] in (("c", name), ("o", name))]:
            del self.procs[k]

    def forget_object(self, handle: str) -> None:
        for k in [k for k in self.procs if k[0] == ("o", handle)]:
            del self.procs[k]


def not_modelled_class(cls: str) -> str:
    root = cls.split("/")[0]
    what = {
        "Mac": "wireless and LAN MAC layers are not modelled",
        "Phy": "wireless physical layers are not modelled",
        "Antenna": "wireless nodes are not modelled",
        "LL": "link layers (LAN) are not modelled",
        "Classifier": "custom classifiers are not modelled",
        "Trace": "custom trace objects are not modelled",
        # queue-monitor.cc: one made by hand, e.g. for its RTT and sequence-number histograms
        "QueueMonitor": "queue monitors made by hand (new QueueMonitor) are not modelled; "
        "$ns monitor-queue and $ns makeflowmon make theirs",
    }.get(root)
    if what:
        return f"{cls}: {what}"
    return f"ns-2 class {cls} is not modelled; see docs/ns2-scripts.md for what is"


class ObjectSystem:
    """The OTcl part of Interp (interp.py), a mixin of it: `new`, `Class`, the methods of
    classes and objects, instvars and the variables of ns-2 objects."""

    def _chain(self, obj_or_cls: Obj | str) -> list[str]:
        """The classes whose variables an ns-2 object takes as defaults: its user classes
        (ns-2's init-instvar searches the object's whole heritage), then its ns-2 classes."""
        if isinstance(obj_or_cls, str):
            return class_chain(obj_or_cls)
        obj = obj_or_cls
        mro = self.classes.mro(obj.ucls) if obj.ucls else []
        users = [c for c in mro if c in self.classes.user]
        return [*users, *class_chain(obj.cls)]

    def default(self, cls: Obj | str, var: str) -> str | None:
        for c in self._chain(cls):
            if var in self.class_vars.get(c, {}):
                return self.class_vars[c][var]
            if var in NS_DEFAULTS.get(c, {}):
                return NS_DEFAULTS[c][var]
        return None

    def init_vars(self, obj: Obj) -> None:
        """OTcl instvar initialisation: the class defaults as they are now."""
        names: set[str] = set()
        for c in self._chain(obj):
            names |= set(NS_DEFAULTS.get(c, {})) | set(self.class_vars.get(c, {}))
        for n in names:
            value = self.default(obj, n)
            if value is not None:
                obj.vars[n] = value

    def new(self, cls: str, args: list[str], handle: str | None = None) -> str:
        """`new Class args` (ns-lib.tcl): makes the object, then runs the first `init` of its
        heritage with args; with none, OTcl's Object init takes `-method value` options."""
        if not self.classes.exists(cls):
            raise Ns2Error(not_modelled_class(cls))
        if handle is not None and (
            handle in self.objects or self.tcl.call("info", "commands", handle)
        ):
            raise TclScriptError(f'cannot create "{handle}": a command of that name exists')
        user = self.classes.user.get(cls)
        base = self.classes.builtin_base(cls) if user is not None else None
        if user is not None:
            unmodelled = [
                c
                for c in self.classes.mro(cls)
                if c.split("/")[0] in NS2_TREES and not self.classes.exists(c)
            ]
            if unmodelled:
                raise Ns2Error(
                    f"{cls} is made as ns-2's {unmodelled[0]}, which is not modelled; see "
                    "docs/ns2-scripts.md for what is"
                )
        if user is None and cls not in ROOTS:
            obj = self._make(cls, handle or self._handle())
            if cls == "ErrorModule":
                self.error_module_made(obj, args)  # type: ignore[attr-defined]
        elif base is None:  # a pure OTcl object: its variables live in a Tcl namespace
            self._spaces += 1
            obj = Obj(handle or self._handle(), "Object", ucls=cls, ns=f"::ns2::o::v{self._spaces}")
            self.tcl.eval(f"namespace eval {obj.ns} {{}}")
            self._register(obj)
        else:
            obj = self._make(base, handle or self._handle(), ucls=cls)
        if user is not None:
            user.instances.append(obj.handle)
        h = obj.handle
        found = self.classes.find(h, obj.klass, "init")
        if found is not None:
            p, where = found
            call = self.tcl_list(p.tcl_name, h, where, "init", *args)
            raise EvalInCaller(self.tcl_list("::ns2::construct", h, call))
        if obj.ns is not None and args:
            raise EvalInCaller(self.tcl_list("::ns2::construct", h, self._configure(h, args)))
        return h

    def _configure(self, h: str, args: list[str]) -> str:
        """OTcl's Object init: `-name a b -other c` calls `$obj name a b` and `$obj other c`."""
        cmds: list[list[str]] = []
        for a in args:
            if a[:1] == "-" and len(a) > 1 and (a[1] == "_" or (a[1].isascii() and a[1].isalpha())):
                cmds.append([h, a[1:]])
            elif not cmds:
                raise TclScriptError(f"{h}: unable to dispatch method {a}")
            else:
                cmds[-1].append(a)
        return "\n".join(self.tcl_list(*c) for c in cmds)

    def make_class(self, a: list[str]) -> str:
        """`Class Foo ?-superclass {Bar ...}?` (also `Class create Foo ...`)."""
        if a[:1] == ["create"]:
            a = a[1:]
        if not a or a[0].startswith("-"):
            raise Ns2Error("usage: Class Name ?-superclass {Super ...}?")
        name, opts = a[0], a[1:]
        supers: list[str] | None = None
        while opts:
            if opts[0] == "-superclass" and len(opts) >= 2:
                supers = [str(w) for w in self.tcl.splitlist(opts[1])]
                opts = opts[2:]
            else:
                raise Ns2Error(f"Class {name} {opts[0]}: only -superclass is modelled")
        known = name in self.classes.user
        if known:  # `Class Foo` again makes it anew, as OTcl does: no procs, no variables
            self.classes.forget_class(name)
            self.class_vars.pop(name, None)
        self.classes.define(name, supers if supers is not None else ["Object"])
        if not known:
            self.tcl.call("interp", "alias", "", name, "", "::ns2::dispatch", "class", name)
        return name

    def _site(self, where: str) -> str:
        """`file:line` of a frame ::ns2::where names; `@proc:N` is line N of a method's body,
        counted from the line of the instproc that gave it."""
        # `@(.+):(\d+)` (no newline in the name, the line's digits after its last colon)
        name, colon, num = where[1:].rpartition(":")
        if not (where[:1] == "@" and colon and name and "\n" not in name and num.isdecimal()):
            return where
        site = self.proc_sites.get(name)
        if site is None:
            return self.classes.labels.get(name, name)
        file, line = site.rsplit(":", 1)
        if num == "0":  # somewhere in the method: its instproc's line, and its name
            return f"{file}:{line} (in {self.classes.labels.get(name, name)})"
        return f"{file}:{int(line) + int(num) - 1}"

    def _define_proc(self, key: tuple[str, str], a: list[str], usage: str) -> str:
        if len(a) != 3:
            raise Ns2Error(f"usage: {usage} name args body")
        name, params, body = a
        if params == "" and body == "":  # OTcl: empty arguments and body delete the method
            gone = self.classes.procs.pop((key, name), None)
            if gone is not None:
                self.tcl.call("rename", gone.tcl_name, "")
            return ""
        p = self.classes.define_proc(key, name, params, body)
        here = [str(w) for w in self.tcl.splitlist(self.tcl.eval("::ns2::where"))]
        if here and not here[0].startswith("@"):
            self.proc_sites[p.tcl_name] = here[0]
        # OTcl's methods take self, class (the one that defines it) and proc (its name)
        self.tcl.call("proc", p.tcl_name, f"self class proc {params}", body)
        return ""

    def class_method(self, cls: str, method: str, args: list[str]) -> str:
        user = self.classes.user.get(cls)
        if method == "set":
            if len(args) == 1:
                v = self.default(cls, args[0]) if user is None else None
                if v is None:
                    v = self.class_vars.get(cls, {}).get(args[0])
                if v is None:
                    if user is not None or cls in ROOTS:
                        raise TclScriptError(f'can\'t read "{args[0]}": no such variable')
                    raise Ns2Error(f"{cls} has no class variable {args[0]}")
                return v
            if len(args) != 2:
                raise Ns2Error(f"usage: {cls} set var_ ?value?")
            if self.runner is not None and user is None:
                self._not_while_running(f"{cls} set {args[0]}")
            self.class_vars.setdefault(cls, {})[args[0]] = args[1]
            return args[1]
        if method == "unset" and len(args) == 1:
            self.class_vars.get(cls, {}).pop(args[0], None)
            return ""
        if method == "instproc":
            return self._define_proc(("c", cls), args, f"{cls} instproc")
        if method == "proc":
            return self._define_proc(("o", cls), args, f"{cls} proc")
        if method == "create":
            if not args:
                raise Ns2Error(f"usage: {cls} create name ?args?")
            return self.new(cls, args[1:], handle=args[0])
        if method == "superclass":
            if user is None:
                raise Ns2Error(f"{cls} superclass: the heritage of ns-2's classes is fixed")
            if not args:
                return self.tcl_list(*user.supers)
            self.classes.set_supers(user, [str(w) for w in self.tcl.splitlist(args[0])])
            return ""
        if method == "info":
            return self.class_info(cls, args)
        p = self.classes.procs.get((("o", cls), method))
        if p is not None:
            raise EvalInCaller(self.tcl_list(p.tcl_name, cls, "", method, *args))
        if user is not None or cls in ROOTS:
            raise TclScriptError(f"{cls}: unable to dispatch method {method}")
        raise Ns2Error(f"{cls} {method}: not an ns-2 class method bufferlab models")

    def class_info(self, cls: str, a: list[str]) -> str:
        """OTcl's `$class info ...` (otcl.c ClassInfoMethod); the lists of procs and
        instances take an optional glob pattern, as there."""
        what = a[0] if a else ""
        user = self.classes.user.get(cls)
        pattern = a[1] if len(a) == 2 else "*"
        instprocs = {m: p for (k, m), p in self.classes.procs.items() if k == ("c", cls)}
        if what == "superclass":
            if user is not None:
                return self.tcl_list(*user.supers)
            h = self.classes.heritage(cls)
            return h[0] if h else ""
        if what == "heritage":
            return self.tcl_list(*self.classes.heritage(cls))
        if what == "subclass":
            return self._subclass(cls, a[1:])
        if what == "instances":
            alive = [h for h in (user.instances if user else []) if h in self.objects]
            return self.tcl_list(*self._matching(alive, pattern))
        if what == "instprocs" and len(a) <= 2:
            return self.tcl_list(*self._hash_order(self._matching(instprocs, pattern)))
        if what in ("instargs", "instbody") and len(a) == 2 and a[1] in instprocs:
            p = instprocs[a[1]]
            if what == "instbody":
                return p.body
            return self.tcl_list(*[str(w) for w in self.tcl.call("info", "args", p.tcl_name)][3:])
        if what == "procs" and len(a) <= 2:
            procs = [m for (k, m) in self.classes.procs if k == ("o", cls)]
            return self.tcl_list(*self._hash_order(self._matching(procs, pattern)))
        if what == "class":
            return "Class"
        if what == "vars":
            return self.tcl_list(*self.class_vars.get(cls, {}))
        raise TclScriptError(f"{cls} info {what}: not an OTcl class query bufferlab models")

    def _subclass(self, cls: str, a: list[str]) -> str:
        """`$class info subclass`: its direct subclasses; `$class info subclass $other`: 1 when
        $other is $class or inherits from it, else 0 (otcl.c: $other among the classes
        ComputeOrder(cl, Sub) lists, $class first), an error when $other is no class."""
        if not a:
            return self.tcl_list(*self.classes.subclasses(cls))
        if len(a) > 1:
            raise TclScriptError(f"wrong # args: should be {{{cls} info subclass ?class?}}")
        if not self.classes.exists(a[0]):
            raise TclScriptError(f"expected a class but got {a[0]}")
        return "1" if cls in self.classes.mro(a[0]) else "0"

    def _matching(self, names: Iterable[str], pattern: str) -> list[str]:
        """The names that match a glob pattern as Tcl's `string match` does, in order."""
        names = list(names)
        if pattern == "*" or not names:
            return names
        found = self.tcl.call("lsearch", "-all", "-inline", "-glob", tuple(names), pattern)
        return [str(w) for w in self.tcl.splitlist(found)]

    def _hash_order(self, names: list[str]) -> list[str]:
        """The order OTcl lists a class's procs in: that of its Tcl hash table, which a Tcl
        array given the same names in the same order has too (checked with `ns`)."""
        if len(names) < 2:
            return names
        order = self.tcl.call(
            "apply", "{names} {foreach n $names {set a($n) {}}; array names a}", tuple(names)
        )
        return [str(w) for w in self.tcl.splitlist(order)]

    def method(self, obj: Obj, method: str, args: list[str]) -> str:
        found = self.classes.find(obj.handle, obj.klass, method)
        if found is not None:
            p, where = found
            raise EvalInCaller(self.tcl_list(p.tcl_name, obj.handle, where, method, *args))
        return self.builtin_method(obj, method, args)

    def next_method(self, h: str, after: str, method: str, args: list[str]) -> str:
        """`$self next args` in the method `method` that class `after` defines."""
        obj = self.objects.get(h)
        if obj is None:
            raise Ns2Error(f"{h} has been deleted")
        found = self.classes.find(h, obj.klass, method, after=after)
        if found is not None:
            p, where = found
            raise EvalInCaller(self.tcl_list(p.tcl_name, h, where, method, *args))
        if method == "init":  # past the script's constructors: ns-2's object is made already
            return self._configure_now(obj, args) if obj.ns is not None else ""
        return self.builtin_method(obj, method, args)

    def _configure_now(self, obj: Obj, args: list[str]) -> str:
        script = self._configure(obj.handle, args)
        if script:
            raise EvalInCaller(script)
        return ""

    def var_name(self, h: str, var: str) -> str:
        """The global name `$obj instvar var` links to: the variable itself for a pure OTcl
        object; for an ns-2 object, a variable traced to bufferlab's (::ns2::vtrace)."""
        obj = self.objects.get(h)
        if obj is None:
            raise Ns2Error(f"{h} has been deleted")
        if obj.ns is not None:
            return f"{obj.ns}::{var}"
        space = f"::ns2::b::{h.replace(':', '_')}"
        fq = f"{space}::{var}"
        if (h, var) not in self.linked:
            self.linked.add((h, var))
            self.tcl.eval(f"namespace eval {space} {{}}")
            with contextlib.suppress(Ns2Error):  # not set yet: `info exists` says 0, as in ns-2
                self.tcl.call("set", fq, self.get_var(obj, var))
            self.tcl.call(
                "trace", "add", "variable", fq, "read write", ("::ns2::vtrace", h, var, fq)
            )
        return fq

    def obj_info(self, obj: Obj, a: list[str]) -> str:
        what = a[0] if a else ""
        if what == "class":
            if len(a) == 2:  # `$obj info class Foo`: is it a Foo (or a subclass of Foo)?
                return "1" if a[1] in self.classes.mro(obj.klass) else "0"
            return obj.klass
        if what == "vars":
            pattern = a[1] if len(a) > 1 else "*"
            if obj.ns is not None:
                names = self.tcl.splitlist(self.tcl.call("info", "vars", f"{obj.ns}::{pattern}"))
                return self.tcl_list(*[str(n).rsplit("::", 1)[-1] for n in names])
            import fnmatch  # `info vars PATTERN` alone needs it

            return self.tcl_list(*[v for v in obj.vars if fnmatch.fnmatchcase(v, pattern)])
        own = {m: p for (k, m), p in self.classes.procs.items() if k == ("o", obj.handle)}
        if what == "procs":
            return self.tcl_list(*own)
        if what in ("args", "body") and len(a) == 2 and a[1] in own:
            p = own[a[1]]
            if what == "body":
                return p.body
            return self.tcl_list(*[str(w) for w in self.tcl.call("info", "args", p.tcl_name)][3:])
        raise TclScriptError(f"{obj.handle} info {what}: not an OTcl object query bufferlab models")

    def _destroy(self, obj: Obj) -> None:
        """OTcl's Object destroy: the object, its command and its variables go away (an ns-2
        object made as part of a user class stays in the network it was built into)."""
        if obj.ns is None:
            return
        del self.objects[obj.handle]
        self.tcl.call("interp", "alias", "", obj.handle, "")
        self.tcl.call("namespace", "delete", obj.ns)
        self.classes.forget_object(obj.handle)

    def _not_while_running(self, what: str) -> None:
        raise Ns2Error(
            f"{what} after $ns run has started is not supported yet; set it before $ns run"
        )

    def obj_set(self, obj: Obj, args: list[str]) -> str:
        if obj.ns is not None:  # a pure OTcl object: a Tcl variable of its own
            fq = f"{obj.ns}::{args[0]}" if args else ""
            if len(args) == 1:
                try:  # eval gives the value as Tcl has it (call would make a list a tuple)
                    return str(self.tcl.eval(self.tcl_list("set", fq)))
                except _tkinter.TclError:
                    raise TclScriptError(f'can\'t read "{args[0]}": no such variable') from None
            if len(args) != 2:
                raise TclScriptError(f'wrong # args: should be "{obj.handle} set var ?value?"')
            self.tcl.call("set", fq, args[1])
            return args[1]
        if len(args) == 1:
            return self.get_var(obj, args[0])
        if not args:
            raise Ns2Error("usage: $obj set var_ ?value?")
        # an ns-2 object's `set` reads only var and value: tclcl ignores what follows, as in
        # test-suite-rem.tcl's `$remq set phi_ 5 # This is just for fun.` (checked with `ns`:
        # phi_ becomes 5; a pure OTcl object's `set` refuses extra arguments, above)
        var, value = args[0], args[1]
        # a variable of the script's own (a class that extends an ns-2 class) is not ns-2's
        own = obj.ucls is not None and var not in obj.vars and var not in LABELS
        own = own or (obj.ucls is not None and var in self.own_vars.get(obj.handle, ()))
        if own:
            self.own_vars.setdefault(obj.handle, set()).add(var)
            obj.vars[var] = value
            return value
        if isinstance(obj, Integrator):
            state = self.integral(obj)
            state[self._integrator_var(var)] = number(value, var)
            self.set_integral(obj, state)
            return value
        if self.runner is not None and isinstance(obj, Agent) and self.runner.resets(obj, var):
            self.runner.reset(obj, var, value)
            return value
        if (
            self.runner is not None
            and not isinstance(obj, Rng | Integrator)
            and not (obj.cls.startswith("RandomVariable"))
            # telnet.cc reads interval_ at each draw (telnet.py)
            and not (obj.cls == "Application/Telnet" and var == "interval_")
            # cbr_traffic.cc next_interval reads rate_ and size_ at each packet (apps.py)
            and not (isinstance(obj, App) and var in CBR_LIVE and is_a(obj.cls, CBR))
        ):
            self._not_while_running(f"setting {var} of {obj.cls}")
        if isinstance(obj, Queue) and var == "limit_":
            obj.limit_set = True
        if isinstance(obj, App):
            var, value = self._traffic_set(obj, var, value)
        # ns-2's own variables are checked at $ns run (scenario.unmodelled_variables)
        ns2_own = any(var in NS2_AGENT_DEFAULTS.get(c, {}) for c in class_chain(obj.cls))
        if isinstance(obj, Agent) and var not in obj.vars and var not in LABELS and not ns2_own:
            self.warn(f"{obj.cls} {var} is not modelled; ignored")
        if isinstance(obj, Link):
            if var == "bandwidth_":
                obj.rate = rate_bps(value)
            elif var == "delay_":
                obj.delay = time_s(value)
            elif var in ("drpT_", "enqT_", "deqT_", "rcvT_"):
                pass  # trace targets: the engine's trace-all covers them
            else:
                raise Ns2Error(f"link variable {var} is not modelled")
        if isinstance(obj, Agent) and var in TCP_STATE:
            self.warn(f"setting {var} (engine state) before the run is ignored")
        if isinstance(obj, Agent) and var in ("class_", "fid_"):
            # agent.cc binds both names to the one field fid_
            obj.vars["class_"] = obj.vars["fid_"] = value
        obj.vars[var] = value
        if (
            self.runner is not None
            and isinstance(obj, App)
            and var in CBR_LIVE
            and is_a(obj.cls, CBR)
        ):
            cbr_rate_changed(self.runner, obj)
        live_telnet = self.runner is not None and isinstance(obj, App) and obj.telnet_engine
        if live_telnet and var == "interval_":
            telnet.interval_changed(self.runner, obj)
        return value

    def get_var(self, obj: Obj, var: str) -> str:
        if var in self.own_vars.get(obj.handle, ()):
            return obj.vars[var]
        if isinstance(obj, Integrator):
            # a bound double of ns-2's, as Tcl prints it with tcl_precision 17
            return f"{self.integral(obj)[self._integrator_var(var)]:.17g}"
        if isinstance(obj, FlowMon | FlowDesc):
            got = self.flowmon_read(obj, var)
            if got is not None:
                return got
        if self.runner is not None:
            v = self.runner.read(obj, var)
            if v is not None:
                return v
        if isinstance(obj, Link):
            if var == "bandwidth_":
                return f"{obj.rate:g}"
            if var == "delay_":
                return f"{obj.delay:g}"
        if isinstance(obj, QueueMonitor):
            if self.runner is None:
                return "0"  # nothing has arrived before the run (ns-2's initial values)
            raise Ns2Error(
                f"{obj.cls} {var} is read from the run's report: it is available in the proc "
                "that ends the run (finish), not before"
            )
        if isinstance(obj, App) and is_a(obj.cls, "Application/Traffic"):
            if var == "packet_size_":
                var = "packetSize_"
            elif var == "interval_" and is_a(obj.cls, "Application/Traffic/CBR"):
                # Application/Traffic/CBR instproc set: `expr $packetSize_ * 8.0/$rate_`
                rate = rate_bps(obj.vars["rate_"])
                if rate == 0:
                    raise TclScriptError("divide by zero")
                return f"{number(obj.vars['packetSize_']) * 8.0 / rate:.17g}"
        if var in obj.vars:
            default = self.ns_default(obj, var)
            return obj.vars[var] if default is None else bound_text(default, obj.vars[var])
        for c in class_chain(obj.cls):
            # a variable ns-2 binds and the translation reads only when it is set
            # (`$tcp set bugFix_` reads its default, as `ns` prints it)
            if var in NS2_AGENT_DEFAULTS.get(c, {}):
                return NS2_AGENT_DEFAULTS[c][var]
        raise Ns2Error(f"{obj.cls} {obj.handle} has no variable {var}")

    def ns_default(self, obj: Obj, var: str) -> str | None:
        """ns-2's own default of a variable of obj's class (ns-default.tcl): there is one for
        each variable ns-2 binds to C++."""
        for c in self._chain(obj):
            if var in NS_DEFAULTS.get(c, {}):
                return NS_DEFAULTS[c][var]
        return None
