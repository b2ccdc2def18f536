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

The interpreter (``interp``) keeps the objects, their variables and the Tcl side; this module
only answers which classes exist, in what order they are searched and which proc defines what.
"""

from __future__ import annotations

from collections.abc import Iterable

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.model import class_chain

# OTcl's root classes: every object is an Object; ns-2's split objects are TclObjects.
ROOTS = ("TclObject", "Object")


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
            if not self.exists(s):
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
