"""ns-2's ways of writing rates, delays and times (tcl/lib/ns-lib.tcl `bw_parse`,
`delay_parse`, `time_parse`) and bufferlab's ways of writing them back."""

from __future__ import annotations

from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.scan import number_end, skip_space

_RATE = {
    "": 1.0,
    "b": 1.0,
    "bps": 1.0,
    "k": 1e3,
    "kb": 1e3,
    "kbps": 1e3,
    "m": 1e6,
    "mb": 1e6,
    "mbps": 1e6,
    "g": 1e9,
    "gb": 1e9,
    "gbps": 1e9,
}
_TIME = {"": 1.0, "s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}


def _split(text: str, what: str) -> tuple[float, str]:
    """A number and its unit: ``^\\s*(NUMBER)\\s*([A-Za-z/]*)\\s*$`` (scan.py)."""
    s = str(text)
    i = skip_space(s)
    j = number_end(s, i)
    if j < 0:
        raise Ns2Error(f"{text!r} is not a {what}")
    k = u = skip_space(s, j)
    while k < len(s) and (s[k] == "/" or ("a" <= s[k] <= "z") or ("A" <= s[k] <= "Z")):
        k += 1
    if skip_space(s, k) != len(s):
        raise Ns2Error(f"{text!r} is not a {what}")
    return float(s[i:j]), s[u:k]


def rate_bps(text: str) -> float:
    """``10Mb`` -> 1e7; ``1.5Mb``, ``100Kb``, ``64kb``, ``1000`` (bit/s); a trailing capital B
    means bytes (``1MB`` = 8e6 bit/s), as ns-2's bw_parse reads it."""
    value, unit = _split(text, "rate (like 10Mb, 1.5Mb, 100Kb)")
    factor = 1.0
    if len(unit) > 0 and unit.endswith("B") and unit.lower() not in ("bps",):
        factor, unit = 8.0, unit[:-1] + "b"
    mult = _RATE.get(unit.lower())
    if mult is None:
        raise Ns2Error(f"{text!r} is not a rate (like 10Mb, 1.5Mb, 100Kb)")
    return value * mult * factor


# Times already read: a timer's interval or a packet's size is read again at every expiry
# (a Telnet's `interval_`, once per packet). Bounded: emptied when full.
_TIMES: dict[str, float] = {}
_TIMES_MAX = 4096


def time_s(text: str) -> float:
    """``20ms`` -> 0.02; ``0.02`` and ``2s`` are seconds; ``us``, ``ns``, ``ps`` too."""
    known = _TIMES.get(text)
    if known is not None:
        return known
    value, unit = _split(text, "time (like 20ms or 0.02)")
    mult = _TIME.get(unit.lower())
    if mult is None:
        raise Ns2Error(f"{text!r} is not a time (like 20ms or 0.02)")
    if len(_TIMES) >= _TIMES_MAX:
        _TIMES.clear()
    if isinstance(text, str):
        _TIMES[text] = value * mult
    return value * mult


def number(text: str, what: str = "number") -> float:
    try:
        return float(text)
    except ValueError:
        raise Ns2Error(f"{text!r} is not a {what}") from None


def boolean(text: str) -> bool:
    t = str(text).strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    return number(t, "boolean (0/1, true/false)") != 0


def fmt_rate(bps: float) -> str:
    """A rate as the scenario format writes it: ``10Mbps``, ``1.5Mbps``, ``448000bps``."""
    for unit, mult in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        x = bps / mult
        if x >= 1 and abs(x * 1000 - round(x * 1000)) < 1e-6:
            return f"{round(x * 1000) / 1000:.15g}{unit}"  # every digit (%g keeps 6)
    return f"{bps:.0f}bps"


def fmt_time(seconds: float) -> str | float:
    """A time as the scenario format writes it: ``20ms``, ``1.5s``, ``100us`` (else seconds)."""
    if seconds == 0:
        return "0s"
    for unit, mult in (("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)):
        x = seconds * mult
        if abs(x - round(x, 6)) < 1e-9 and abs(x) >= 1:
            return f"{round(x, 6):.15g}{unit}"  # 3.027648s, not %g's 3.02765s
    return seconds


def same_value(value: str, default: str) -> bool:
    """Whether a value is ns-2's default, as a bound variable reads it (a number, or a
    boolean: true/false, 1/0)."""
    if value == default:
        return True
    try:
        return float(value) == float(default)
    except ValueError:
        pass
    try:
        return boolean(value) == boolean(default)
    except Ns2Error:
        return False


def bound_text(default: str, value: str) -> str:
    """A variable ns-2 binds to C++ (TclObject `bind`, `bind_bw`, `bind_time`, `bind_bool`)
    reads back as the C++ value prints, not as the script wrote it: `448Kb` reads `448000`,
    `.5` reads `0.5`, `100ms` reads `0.10000000000000001`, `true` reads `1`. Its kind is its
    ns-2 default's; a value of another kind (or not a number) reads as written."""
    try:
        d = default.strip().lower()
        if d in ("true", "false"):
            return "1" if boolean(value) else "0"
        unit = _split(d, "default")[1]
        if unit in _TIME and unit not in _RATE:
            return f"{time_s(value):.17g}"
        if unit:
            return f"{rate_bps(value):.17g}"
        return f"{number(value):.17g}"
    except Ns2Error:
        return value
