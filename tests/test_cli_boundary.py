"""The CLI boundary in-process: bugs become exit code 3 and one line, never a traceback."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bufferlab
from bufferlab import SimulationPanic, cli
from bufferlab.scenario import normalise_overrides


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        cli.main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_simulation_panic_exits_3(monkeypatch, capsys, example):
    def boom(*_args, **_kwargs):
        raise SimulationPanic("the simulator panicked: index out of bounds")

    monkeypatch.setattr(bufferlab, "run", boom)
    code, out, err = run_main(capsys, "run", str(example))
    assert code == 3
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("error: the simulator panicked") and "report" in err


def test_unexpected_exception_exits_3(monkeypatch, capsys, example):
    monkeypatch.delenv("BUFFERLAB_DEBUG", raising=False)

    def boom(*_args, **_kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(bufferlab, "run", boom)
    code, _, err = run_main(capsys, "run", str(example), "--json")
    assert code == 3
    assert len(err.splitlines()) == 1 and "internal error" in err and "Traceback" not in err


def test_multiline_messages_become_one_line():
    assert cli._app._one_line("a\n  |\nb\n\n") == "a | b"


@given(
    st.dictionaries(
        st.from_regex(r"[a-z][a-z0-9_]{0,8}(\.[a-z0-9_]{1,8}){0,3}", fullmatch=True),
        st.one_of(st.integers(), st.booleans(), st.from_regex(r"[0-9]{1,4}(ms|s|Mbps|KB|p)")),
    )
)
def test_override_dicts_keep_their_paths(d):
    specs = normalise_overrides(d)
    assert [s.split("=", 1)[0] for s in specs] == list(d)
