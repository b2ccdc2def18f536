"""ns-2.35's random number generator and its transforms, so that a script's own random numbers
are ns-2's.

Follows ns-2.35 ``tools/rng.cc`` and ``tools/rng.h`` (L'Ecuyer's MRG32k3a, "Good parameters and
implementations for combined multiple recursive random number generators", Operations Research
47(1), 1999, with the streams and substreams of L'Ecuyer, Simard, Chen and Kelton, 2002),
``tools/random.h`` (``ns-random``), ``tools/ranvar.cc`` (RandomVariable/*) and
``tcl/lib/ns-random.tcl`` (the RNG's ``uniform``, ``integer`` and ``exponential``, which ns-2
writes in Tcl and bufferlab's interpreter defines the same way). What ns-2 does that matters:

* Every RNG is a stream of one package: a new RNG starts where the package's next seed is, and
  the package moves on by 2^127 steps. ``$rng seed N`` (N > 0) sets the package's seed to six
  N's and makes the RNG start there, so it also moves where the next ``new RNG`` starts.
  At start-up ns-2 makes ``$defaultRNG`` and seeds it with 1.
* ``next-random`` is ``(int)(2^31 * u)`` for the next uniform ``u``; ``next-substream`` moves the
  substream start by 2^76 steps.
* ``normal`` is Marsaglia's polar method whose spare value ns-2 keeps in a static: it is shared
  by every RNG of the process (so here by every RNG of the script).
* A RandomVariable draws from the default RNG as it was when the variable was made, or from
  the one ``use-rng`` gives; ``value`` prints with ``%6e``.

The jump matrices (A^(2^76), A^(2^127)) are written out; `_two_pow` computes them from the
recurrences by squaring (the test checks the two agree).
"""

from __future__ import annotations

import math
import time

M1 = 4294967087
M2 = 4294944443
A12 = 1403580.0
A13N = 810728.0
A21 = 527612.0
A23N = 1370589.0
NORM = 1.0 / (M1 + 1.0)
MAXINT = 2147483647

Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]

# The two components' one-step transition matrices (x_n from x_{n-3}, x_{n-2}, x_{n-1}).
_A1: Matrix = ((0, 1, 0), (0, 0, 1), (-810728 % M1, 1403580, 0))
_A2: Matrix = ((0, 1, 0), (0, 0, 1), (-1370589 % M2, 0, 527612))


def _mat_mul(a: Matrix, b: Matrix, m: int) -> Matrix:
    rows = tuple(
        tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)) for i in range(3)
    )
    return rows  # type: ignore[return-value]


def _two_pow(a: Matrix, e: int, m: int) -> Matrix:
    """a^(2^e) mod m."""
    for _ in range(e):
        a = _mat_mul(a, a, m)
    return a


def _apply(a: Matrix, s: list[int], m: int) -> list[int]:
    return [sum(a[i][k] * s[k] for k in range(3)) % m for i in range(3)]


# A^(2^76) and A^(2^127) of each component: rng.cc's A1p76, A2p76, A1p127, A2p127, written
# out (squaring at every import cost 40 M instructions of a script's start-up);
# tests/test_ns2_rng.py checks them against _two_pow.
_A1P76: Matrix = (
    (82758667, 1871391091, 4127413238),
    (3672831523, 69195019, 1871391091),
    (3672091415, 3528743235, 69195019),
)
_A2P76: Matrix = (
    (1511326704, 3759209742, 1610795712),
    (4292754251, 1511326704, 3889917532),
    (3859662829, 4292754251, 3708466080),
)
_A1P127: Matrix = (
    (2427906178, 3580155704, 949770784),
    (226153695, 1230515664, 3580155704),
    (1988835001, 986791581, 1230515664),
)
_A2P127: Matrix = (
    (1464411153, 277697599, 1610723613),
    (32183930, 1464411153, 1022607788),
    (2824425944, 32183930, 2093834863),
)


class Package:
    """What ns-2 keeps in statics: the next stream's seed and normal()'s spare value."""

    def __init__(self) -> None:
        self.next_seed = [12345] * 6
        self.parity = 0
        self.spare = 0.0
        self.heuristics = 0

    def take_stream(self) -> list[int]:
        s = list(self.next_seed)
        self.next_seed = _apply(_A1P127, s[:3], M1) + _apply(_A2P127, s[3:], M2)
        return s


class Stream:
    """One ns-2 RNG (MRG32k3a stream), its state as ns-2 keeps it: Cg (now), Bg (the start of
    the substream), Ig (the start of the stream)."""

    def __init__(self, package: Package):
        self.package = package
        self._init()

    def _init(self) -> None:
        s = self.package.take_stream()
        self.ig, self.bg = list(s), list(s)
        self.cg = [float(x) for x in s]

    # -- seeding -------------------------------------------------------------------------------

    def seed(self, n: int) -> None:
        """`$rng seed N`, N > 0: the package's seed becomes six N's and this stream starts
        there (RNG::set_seed(long))."""
        if n <= 0 or n >= MAXINT:
            raise ValueError("Setting random number seed to known bad value.")
        self.package.next_seed = [n] * 6
        self._init()

    def seed_heuristically(self) -> None:
        """`$rng seed 0`: a seed from the clock, then 128 values thrown away (as ns-2)."""
        p = self.package
        p.heuristics += 1
        now = time.time()
        sec, usec = int(now), int((now % 1) * 1e6)
        n = (sec ^ usec ^ (p.heuristics << 8)) & 0x7FFFFFFF
        self.seed(max(1, n))
        for _ in range(128):
            self.next_random()

    def current_seed(self) -> int:
        return int(self.cg[0])

    def all_seeds(self) -> list[int]:
        return [int(x) for x in self.cg]

    def next_substream(self) -> None:
        self.bg = _apply(_A1P76, self.bg[:3], M1) + _apply(_A2P76, self.bg[3:], M2)
        self.cg = [float(x) for x in self.bg]

    def reset_start_substream(self) -> None:
        self.cg = [float(x) for x in self.bg]

    # -- draws ---------------------------------------------------------------------------------

    def u01(self) -> float:
        """The next uniform in (0, 1): the same double operations as RNG::U01."""
        c = self.cg
        p1 = A12 * c[1] - A13N * c[0]
        p1 -= int(p1 / M1) * M1
        if p1 < 0.0:
            p1 += M1
        c[0], c[1], c[2] = c[1], c[2], p1
        p2 = A21 * c[5] - A23N * c[3]
        p2 -= int(p2 / M2) * M2
        if p2 < 0.0:
            p2 += M2
        c[3], c[4], c[5] = c[4], c[5], p2
        return (p1 - p2) * NORM if p1 > p2 else (p1 - p2 + M1) * NORM

    def next_random(self) -> int:
        """uniform_positive_int: rand_int(0, MAXINT)."""
        return int(float(MAXINT + 1) * self.u01())

    def uniform(self, a: float = 0.0, b: float = 1.0) -> float:
        return a + (b - a) * self.u01()

    def integer(self, k: int) -> int:
        """RNG::uniform(int k), as `testint` and Random::integer give it."""
        return self.next_random() % k

    def exponential(self, mean: float = 1.0) -> float:
        return mean * -math.log(self.u01())

    def pareto(self, scale: float, shape: float) -> float:
        return scale * (1.0 / math.pow(self.u01(), 1.0 / shape))

    def pareto2(self, scale: float, shape: float) -> float:
        return scale * ((1.0 / math.pow(self.u01(), 1.0 / shape)) - 1)

    def normal(self, avg: float, std: float) -> float:
        p = self.package
        if std == 0:
            return avg
        if p.parity == 0:
            while True:
                s1 = 2 * self.u01() - 1
                s2 = 2 * self.u01() - 1
                rad = s1 * s1 + s2 * s2
                if rad < 1:
                    break
            rad = math.sqrt((-2 * math.log(rad)) / rad)
            p.spare = s2 * rad
            p.parity = 1
            return s1 * rad * std + avg
        p.parity = 0
        return p.spare * std + avg

    def lognormal(self, avg: float, std: float) -> float:
        return math.exp(self.normal(avg, std))


def ranvar_value(kind: str, v: dict[str, float], s: Stream) -> float:
    """RandomVariable/<kind> value (ranvar.cc); v holds its bound variables."""
    if kind == "Uniform":
        return s.uniform(v["min_"], v["max_"])
    if kind == "Exponential":
        return s.exponential(v["avg_"])
    if kind == "Pareto":
        shape = v["shape_"]
        return s.pareto(v["avg_"] * (shape - 1) / shape, shape)
    if kind == "ParetoII":
        shape = v["shape_"]
        return s.pareto2(v["avg_"] * (shape - 1), shape)
    if kind == "Normal":
        return s.normal(v["avg_"], v["std_"])
    if kind == "LogNormal":
        return s.lognormal(v["avg_"], v["std_"])
    if kind == "Constant":
        return v["val_"]
    if kind == "Erlang":
        return sum(s.exponential(v["lambda_"]) for _ in range(int(v["k_"])))
    raise KeyError(kind)


# The bound variables of each RandomVariable and their ns-2.35 defaults (ns-default.tcl,
# checked with `ns`: `[new RandomVariable/Pareto] set shape_` is 1.5).
RANVAR_DEFAULTS: dict[str, dict[str, str]] = {
    "RandomVariable/Uniform": {"min_": "0", "max_": "1"},
    "RandomVariable/Exponential": {"avg_": "1"},
    "RandomVariable/Pareto": {"avg_": "1", "shape_": "1.5"},
    "RandomVariable/ParetoII": {"avg_": "10", "shape_": "1.2"},
    "RandomVariable/Normal": {"avg_": "0", "std_": "1"},
    "RandomVariable/LogNormal": {"avg_": "1", "std_": "1"},
    "RandomVariable/Constant": {"val_": "1"},
    "RandomVariable/Erlang": {"lambda_": "1", "k_": "1"},
}
