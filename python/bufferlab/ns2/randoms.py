"""ns-2's random numbers as a script uses them (rng.cc, ranvar.cc, ns-random.tcl): `RNG`
objects, `$rng seed`, `ns-random`, RandomVariable's `value`; the generator itself is rng.py.
"""

from __future__ import annotations

import math

from bufferlab.ns2.errors import Ns2Error, TclScriptError
from bufferlab.ns2.model import Obj, Rng
from bufferlab.ns2.rng import RANVAR_DEFAULTS, ranvar_value
from bufferlab.ns2.units import number


def _c_format(fmt: str, x: float) -> str:
    """C's printf of a double (Python's % follows it, inf and nan aside)."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return fmt % x


def _strtod(text: str) -> float:
    """A bound double as ns-2 reads it (units aside: RandomVariable's are plain numbers)."""
    try:
        return float(text)
    except ValueError:
        return number(text)


# ns-random.tcl's RNG procs, in Tcl as ns-2 has them: uniform, integer and exponential draw
# through next-random (so they are ns-2's values to the last digit); the global procs use
# $defaultRNG.
RNG_TCL = r"""
RNG instproc uniform {a b} {
    expr {$a + (($b - $a) * ([$self next-random] * 1.0 / 0x7fffffff))}
}
RNG instproc integer {k} {
    expr {[$self next-random] % abs($k)}
}
RNG instproc exponential {{mu 1.0}} {
    expr {- $mu * log(([$self next-random] + 1.0) / (0x7fffffff + 1.0))}
}
proc uniform {args} { global defaultRNG; $defaultRNG uniform {*}$args }
proc integer {args} { global defaultRNG; $defaultRNG integer {*}$args }
proc exponential {args} { global defaultRNG; $defaultRNG exponential {*}$args }
"""


class RandomNumbers:
    """The randoms part of Interp (interp.py), a mixin of it."""

    def seed_rng(self, r: Rng, text: str) -> str:
        """`$rng seed N` / `ns-random N`: N > 0 seeds the stream (and the package); 0 takes a
        seed from the clock, as ns-2 does. The default RNG's seed is also the scenario's
        (`--seed` replaces both)."""
        s = int(number(text, "seed"))
        if r is self.default_rng:
            if self.runner is not None:
                self._not_while_running("seeding defaultRNG")
            if self.seed is not None:
                s = self.seed
            if s == 0:
                self.warn(
                    "defaultRNG seed 0: the script's random numbers come from the clock (as in "
                    "ns-2); the engine's seed is 1 (give --seed N for both)"
                )
            self.net.seed = s if s > 0 else 1
        if s == 0:
            r.stream.seed_heuristically()
            return str(r.stream.current_seed())
        try:
            r.stream.seed(s)
        except ValueError as e:
            raise TclScriptError(str(e)) from None
        return str(s)

    def rng_method(self, r: Rng, m: str, a: list[str]) -> str:
        """The RNG's commands of rng.cc (uniform, integer and exponential are Tcl instprocs,
        RNG_TCL, as in ns-random.tcl)."""
        st = r.stream
        if m == "seed":
            if not a:
                return str(st.current_seed())
            if len(a) == 2 and a[0] in ("raw", "heuristic"):
                self.seed_rng(r, a[1] if a[0] == "raw" else "0")
                return ""
            if len(a) != 1:
                raise Ns2Error(f"RNG seed {' '.join(a)}: predefined seeds are not modelled")
            self.seed_rng(r, a[0])
            return ""
        if m == "next-random" and not a:
            return str(st.next_random())
        if m == "next-substream" and not a:
            st.next_substream()
            return ""
        if m == "reset-start-substream" and not a:
            st.reset_start_substream()
            return ""
        if m == "all-seeds" and not a:
            return " ".join(str(x) for x in st.all_seeds())
        if m == "default" and not a:
            self.default_rng = r
            return ""
        if m in ("normal", "lognormal") and len(a) == 2:
            f = st.normal if m == "normal" else st.lognormal
            return _c_format("%g", f(_strtod(a[0]), _strtod(a[1])))
        if m == "testint" and len(a) == 1:
            return str(st.integer(int(number(a[0]))))
        if m == "testdouble" and len(a) == 1:
            return _c_format("%6e", st.uniform(0.0, _strtod(a[0])))
        raise Ns2Error(f"RNG method `{m}` is not modelled")

    def ranvar_method(self, rv: Obj, m: str, a: list[str]) -> str:
        if m == "use-rng" and len(a) == 1:
            if not isinstance(self.objects.get(a[0]), Rng):
                raise TclScriptError(f"no such RNG {a[0]}")
            rv.vars["rng"] = a[0]
            return ""
        if m == "value" and not a:
            r = self.objects.get(rv.vars.get("rng", ""))
            stream = r.stream if isinstance(r, Rng) else self.default_rng.stream
            kind = rv.cls.split("/")[-1]
            names = RANVAR_DEFAULTS.get(rv.cls, {})
            bound = {k: _strtod(rv.vars.get(k, d)) for k, d in names.items()}
            return _c_format("%6e", ranvar_value(kind, bound, stream))
        if m == "test" and len(a) == 1:  # ns-random.tcl's RandomVariable instproc test
            for _ in range(int(number(a[0]))):
                self.tcl.call("puts", "stdout", self.ranvar_method(rv, "value", []))
            return ""
        raise Ns2Error(f"{rv.cls} method `{m}` is not modelled")
