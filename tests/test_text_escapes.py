"""The two hand-written escapers on the start-up path: the terminal's (display.printable, whose
control test replaced unicodedata) and TOML's basic strings (toml_value.toml_string, which
replaced json.dumps)."""

from __future__ import annotations

import tomllib
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from bufferlab.display import _is_control, printable
from bufferlab.toml_value import toml_inline, toml_string


def test_is_control_is_unicodes_category_cc_everywhere() -> None:
    wrong = [
        n for n in range(0x110000) if _is_control(chr(n)) != (unicodedata.category(chr(n)) == "Cc")
    ]
    assert wrong == []


def test_printable_escapes_controls_and_keeps_the_rest() -> None:
    assert printable("a\x1b[2Jb\x85é") == "a\\x1b[2Jb\\x85é"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_toml_string_reads_back_as_the_same_text(text: str) -> None:
    assert tomllib.loads(f"v = {toml_string(text)}")["v"] == text


def test_toml_string_escapes_as_toml_does() -> None:
    assert toml_string('a"b\\c\n\t\x7f\x01') == '"a\\"b\\\\c\\n\\t\\u007f\\u0001"'
    # beyond U+FFFF as it is: json.dumps wrote a surrogate pair, which TOML rejects
    assert toml_string("\U0001f600") == '"\U0001f600"'
    assert toml_inline({"name": "x\u00e9"}) == '{ name = "x\u00e9" }'
