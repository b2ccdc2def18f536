"""The ns-2 layer's hand-written scanners (ns2/scan.py and their users) against the regular
expressions they replace, on generated text: the same matches, so the same numbers, words,
writes and run ends."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bufferlab.ns2.agents import _atoi, scripted_writes
from bufferlab.ns2.errmodel import _strtod_prefix
from bufferlab.ns2.errors import Ns2Error
from bufferlab.ns2.scan import calls_word, identifiers, number_end, without_braced
from bufferlab.ns2.units import _split

# Text made of the characters the patterns care about, and a few others of other scripts.
PIECES = st.sampled_from([
    *"0123456789+-.eE \t\n{}$:_-/abcMbsKGxyz", "\u0663", "\u00e9", "\u00a0", "_o12",
    "exit", "halt", "send", "advance", "advanceby", "produce", "producemore", "-3",
])  # fmt: skip
TEXT = st.lists(PIECES, max_size=30).map("".join)

NUMBER = r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"


@settings(max_examples=3000)
@given(TEXT)
def test_number_end_is_the_number_pattern(s: str) -> None:
    m = re.match(NUMBER, s)
    assert number_end(s) == (m.end() if m else -1)


@settings(max_examples=3000)
@given(TEXT)
def test_split_is_the_unit_pattern(s: str) -> None:
    m = re.match(r"^\s*(" + NUMBER + r")\s*([A-Za-z/]*)\s*$", s)
    if m is None:
        with pytest.raises(Ns2Error):
            _split(s, "rate")
    else:
        assert _split(s, "rate") == (float(m.group(1)), m.group(4))


@settings(max_examples=2000)
@given(TEXT)
def test_strtod_and_atoi_read_the_leading_number(s: str) -> None:
    m = re.match(r"\s*" + NUMBER, s)
    assert _strtod_prefix(s) == (float(m.group(0)) if m else 0.0)
    m = re.match(r"\s*([+-]?\d+)", s)
    assert _atoi(s) == (int(m.group(1)) if m else 0)


SCRIPTED = re.compile(
    r"(?<![\w$])(_o\d+)\s+(send|advance|advanceby|produce|producemore)(?![\w-])(?:\s+(-?\d+))?"
)


@settings(max_examples=3000)
@given(TEXT)
def test_scripted_writes_are_the_pattern_matches(s: str) -> None:
    assert scripted_writes(s) == [m.groups() for m in SCRIPTED.finditer(s)]


@settings(max_examples=3000)
@given(TEXT)
def test_identifiers_and_stops_and_braces(s: str) -> None:
    assert identifiers(s) == frozenset(re.findall(r"[A-Za-z_][\w:]*", s))
    assert calls_word(s, ("exit", "halt")) == bool(
        re.search(r"(?<![\w$:-])(exit|halt)(?![\w-])", s)
    )
    want = s
    while (out := re.sub(r"\{[^{}]*\}", " ", want)) != want:
        want = out
    assert without_braced(s) == want


def test_examples_of_each() -> None:
    assert _split(" 10Mb ", "rate") == (10.0, "Mb")
    assert _split("1.5e3ms", "time") == (1500.0, "ms")
    assert scripted_writes('$ns at 1 "_o12 send 1000"; _o3 advanceby 5') == [
        ("_o12", "send", "1000"),
        ("_o3", "advanceby", "5"),
    ]
    assert without_braced("a {b {c} d} e {") == "a   e {"
    assert calls_word("if {$x} { exit 0 }", ("exit",)) and not calls_word("$exit", ("exit",))
