"""The few patterns the ns-2 layer reads on every run, scanned by hand: a number as C's strtod
and ns-2's `bw_parse` read it, an identifier, Tcl's braced words.

Not regular expressions: importing `re` builds its flags with `enum`, 25 M instructions of a
script's start-up (docs/performance.md). Each function here matches exactly what the regular
expression in its docstring matches (Python's `\\d` is `str.isdecimal`, `\\w` `str.isalnum` or
`_`, `\\s` `str.isspace`); tests/test_ns2_scan.py checks each against it on generated text.
"""

from __future__ import annotations

from functools import lru_cache


def skip_space(s: str, i: int = 0) -> int:
    """The index of the first character at or after ``i`` that is not whitespace (``\\s*``)."""
    n = len(s)
    while i < n and s[i].isspace():
        i += 1
    return i


def _digits_end(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i].isdecimal():
        i += 1
    return i


def number_end(s: str, i: int = 0) -> int:
    """The end of ``[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?`` matched at ``i``, or -1."""
    n = len(s)
    if i < n and s[i] in "+-":
        i += 1
    j = _digits_end(s, i)
    if j > i:  # \d+ \.? \d*
        if j < n and s[j] == ".":
            j = _digits_end(s, j + 1)
    elif i < n and s[i] == ".":  # \.\d+
        j = _digits_end(s, i + 1)
        if j == i + 1:
            return -1
    else:
        return -1
    if j < n and s[j] in "eE":  # the exponent only with its digits
        k = j + 1
        if k < n and s[k] in "+-":
            k += 1
        e = _digits_end(s, k)
        if e > k:
            j = e
    return j


def integer_end(s: str, i: int = 0) -> int:
    """The end of ``[+-]?\\d+`` matched at ``i``, or -1."""
    if i < len(s) and s[i] in "+-":
        i += 1
    j = _digits_end(s, i)
    return j if j > i else -1


def is_word(ch: str) -> bool:
    """``\\w``: a letter or digit of any script, or ``_``."""
    return ch.isalnum() or ch == "_"


def _ascii_start(ch: str) -> bool:
    return ch == "_" or ("a" <= ch <= "z") or ("A" <= ch <= "Z")


@lru_cache(maxsize=4096)
def identifiers(s: str) -> frozenset[str]:
    """What ``re.findall(r"[A-Za-z_][\\w:]*", s)`` finds, as a set (a proc body is read once
    however many events name it)."""
    out = set()
    i, n = 0, len(s)
    while i < n:
        if _ascii_start(s[i]):
            j = i + 1
            while j < n and (is_word(s[j]) or s[j] == ":"):
                j += 1
            out.add(s[i:j])
            i = j
        else:
            i += 1
    return frozenset(out)


def calls_word(s: str, words: tuple[str, ...]) -> bool:
    """Whether ``s`` has one of ``words`` standing alone as a command or argument:
    ``re.search(r"(?<![\\w$:-])(w1|w2)(?![\\w-])", s)``."""
    for w in words:
        i = s.find(w)
        while i >= 0:
            before = s[i - 1] if i > 0 else ""
            after = s[i + len(w)] if i + len(w) < len(s) else ""
            if not (before and (is_word(before) or before in "$:-")) and not (
                after and (is_word(after) or after == "-")
            ):
                return True
            i = s.find(w, i + 1)
    return False


def without_braced(s: str) -> str:
    """``s`` with each braced word, nested ones too, replaced by a space: ``re.sub(r"\\{[^{}]*\\}",
    " ", s)`` applied until nothing changes (an unbalanced brace stays)."""
    while True:
        out, changed = _braced_once(s)
        if not changed:
            return out
        s = out


def _braced_once(s: str) -> tuple[str, bool]:
    out: list[str] = []
    i = 0
    changed = False
    while True:
        j = s.find("{", i)
        if j < 0:
            break
        close = s.find("}", j + 1)
        if close < 0:
            break
        inner = s.find("{", j + 1, close)
        if inner >= 0:  # no braced word starts at j: the next may start at that brace
            out.append(s[i:inner])
            i = inner
            continue
        out.append(s[i:j])
        out.append(" ")
        i = close + 1
        changed = True
    out.append(s[i:])
    return "".join(out), changed
