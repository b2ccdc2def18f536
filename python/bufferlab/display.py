"""A user's string shown on the terminal: literally, and without control characters.

Names and messages from a scenario, sweep or results file reach the terminal in tables, titles
and error lines. Two things could go wrong: an escape sequence in a name (``\\x1b]0;...\\x07``
sets the window title, ``\\x1b[2J`` clears the screen) would act on the terminal, and rich
would read ``[bold red]`` or ``[/bold]`` in a name as markup (and stop on an unmatched closing
tag). :func:`printable` writes every control character as a visible escape; :func:`markup`
also escapes rich markup, for text that goes into a markup string; :func:`text` gives a rich
``Text`` (never read as markup), for table cells and titles. :func:`literal_figure_text` does
the same for the names in figures (no mathtext).

No rich import at module level: the error boundary uses :func:`printable` on every command's
start-up path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rich.text import Text

# Characters that reorder how the text around them is displayed ("Trojan source"): shown as
# escapes too, so that a name cannot make a line read differently from what it holds.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _is_control(ch: str) -> bool:
    """Unicode's category Cc (C0, DEL and C1: a fixed set, so no unicodedata import, 1 ms
    of every command's start-up)."""
    n = ord(ch)
    return n < 0x20 or 0x7F <= n <= 0x9F


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    n = ord(ch)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def printable(value: object) -> str:
    """``str(value)`` with every control character (C0, DEL, C1) and bidirectional control
    written as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``); anything else unchanged."""
    s = str(value)
    if s.isprintable():  # the common case: nothing to replace (also no bidi control in it)
        return s
    return "".join(_escape(ch) if ch in _BIDI or _is_control(ch) else ch for ch in s)


def markup(value: object) -> str:
    """:func:`printable`, with rich markup escaped: for a name inside a markup string such as
    ``f"[bold]{markup(name)}[/bold]"``."""
    from rich.markup import escape

    return escape(printable(value))


def literal_figure_text() -> AbstractContextManager[object]:
    """A context in which the matplotlib text created is drawn as written, never as mathtext:
    a link named ``$\\frac{x$`` is a label, not a formula that stops the figure."""
    import matplotlib

    return matplotlib.rc_context({"text.parse_math": False})


def text(value: object, style: str = "") -> Text:
    """:func:`printable` as a rich ``Text``: shown as it is, never read as markup or emoji."""
    from rich.text import Text

    return Text(printable(value), style=style)
