"""The fast path of the `bufferlab` command (bufferlab.cli.fast, issue #19): the same answers
as the typer app, without loading typer, rich or pydantic."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bufferlab.cli import fast
from conftest import ROOT, run_cli

HEAVY = ("typer", "rich", "pydantic", "click")
# What a run never needs: the sweep, results-store and figure libraries (the dependencies).
LIBRARIES = ("pandas", "numpy", "pyarrow", "duckdb", "matplotlib", "scipy", "jinja2",
             "distributed", "dask", "tomli_w")  # fmt: skip
NS2 = ROOT / "examples" / "ns2"

# `python -c` programs: the `bufferlab` command through main() (the fast path when it applies)
# or through the typer app alone, as before the fast path existed.
VIA_MAIN = "import sys; from bufferlab.cli import main; main(sys.argv[1:])"
VIA_TYPER = "import sys; from bufferlab.cli import typer_main; typer_main(sys.argv[1:])"


def _cli(program: str, *args: str, cwd: Path = ROOT) -> tuple[int, str, str]:
    env = dict(os.environ, COLUMNS="200")
    env.pop("BUFFERLAB_DEBUG", None)
    p = subprocess.run(
        [sys.executable, "-c", program, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return p.returncode, p.stdout, p.stderr


def _steady(text: str) -> str:
    """Output with the run's wall time (the one field that differs run to run) blanked."""
    text = re.sub(r'"wall_s": ?[0-9.eE+-]+', '"wall_s":0', text)
    return re.sub(r"simulated (\S+ \S+) in \S+ \S+", r"simulated \1 in T", text)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    p = tmp_path / "tiny.toml"
    p.write_text((ROOT / "examples" / "dumbbell_udp.toml").read_text())
    (tmp_path / "exit3.tcl").write_text(
        'set ns [new Simulator]\nputs "argv $argv"\nflush stdout\nexit 3\n'
    )
    (tmp_path / "wireless.tcl").write_text(
        "set ns [new Simulator]\n$ns node-config -adhocRouting DSDV\n"
    )
    return p


CASES = {
    "table": ["run", "{tiny}", "--set", "duration=3s"],
    "json": ["run", "{tiny}", "--json", "--set", "duration=3s"],
    "set_and_seed": [
        "run",
        "--seed",
        "9",
        "{tiny}",
        "-s",
        "duration=3s",
        "--set=flows.0.app.rate=2Mbps",
        "--json",
    ],
    "out_dir": ["run", "{tiny}", "--set", "duration=3s", "--json", "-o", "{tmp}/out"],
    "bad_field": ["run", "{tiny}", "--set", "links.bottleneck.rate=10Mbpz"],
    "bad_set_syntax": ["run", "{tiny}", "--set", "no-equals-sign"],
    "missing_file": ["run", "{tmp}/no-such.toml", "--json"],
    "directory": ["run", "{tmp}"],
    "max_wall_not_a_time": ["run", "{tiny}", "--max-wall", "3x"],
    "validate": ["validate", "{tiny}"],
    "validate_json": ["validate", "{tiny}", "--json", "--set", "duration=3s"],
    "validate_bad": ["validate", "{tiny}", "--set", "flows.0.dst=nowhere"],
    "schema": ["schema"],
    "version": ["version"],
    # ns-2 scripts (issue #20): the words after the script are its argv, --seed anywhere
    "ns2": ["run", "{ns2}/short_transfers.tcl", "4"],
    "ns2_seed_between": ["run", "{ns2}/dumbbell_reno.tcl", "3", "--seed", "5", "{tmp}/t.tr"],
    "ns2_exit_code": ["run", "{tmp}/exit3.tcl", "a", "b=1"],
    "ns2_bad_unsupported": ["run", "{tmp}/wireless.tcl"],
    "ns2_bad_scenario_option": ["run", "{ns2}/dynamic_apps.tcl", "--json"],
    "ns2_missing_file": ["run", "{tmp}/no-such.tcl", "1"],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_path_answers_as_the_typer_app(case, tiny, tmp_path):
    args = [a.format(tiny=tiny, tmp=tmp_path, ns2=NS2) for a in CASES[case]]
    assert fast.parse(args) is not None, "this invocation should take the fast path"
    quick = _cli(VIA_MAIN, *args)
    typer = _cli(VIA_TYPER, *args)
    assert quick[0] == typer[0], (quick, typer)
    assert _steady(quick[1]) == _steady(typer[1])
    assert quick[2] == typer[2]
    if "bad" in case or "missing" in case or case in ("directory", "max_wall_not_a_time"):
        assert quick[0] == 2 and quick[2].startswith("error: ") and len(quick[2].splitlines()) == 1
    elif case == "ns2_exit_code":
        assert quick == (3, "argv a b=1\n", ""), quick
    else:
        assert quick[0] == 0, quick[2]
    if case == "ns2":
        assert "done" in quick[1], quick[1]
    if case == "json":
        assert json.loads(quick[1])["scenario"] == "dumbbell-udp"


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--help"],
        ["run"],
        ["run", "--help"],
        ["run", "f.toml", "--help"],
        ["run", "f.toml", "--no-such-option"],
        ["run", "f.toml", "--seed", "minus-one"],
        ["run", "f.toml", "--seed", str(2**64)],
        ["run", "f.toml", "--seed", "1", "--seed", "2"],
        ["run", "f.toml", "--set"],
        ["run", "f.toml", "--set", "--json"],
        ["run", "f.toml", "--json=yes"],
        ["run", "f.toml", "-sduration=3s"],
        ["run", "f.toml", "--", "--json"],
        ["run", "f.toml", "extra"],
        ["run", "script.tcl", "-x"],
        ["run", "script.tcl", "--", "-x"],
        ["run", "script.tcl", ""],
        ["validate", "script.tcl"],
        ["run", "-"],
        ["validate", "f.toml", "--seed", "1"],
        ["schema", "extra"],
        ["version", "--help"],
        ["sweep", "s.toml"],
        ["import-ns2", "x.tcl"],
        ["study", "list"],
    ],
)
def test_anything_else_goes_to_typer(args):
    assert fast.parse(args) is None


def test_parse_makes_the_call_typer_makes():
    call = fast.parse(
        ["run", "-s", "a=1", "s.toml", "--json", "--set=b=c=2", "--seed", "007", "-o", "out",
         "--trace-link", "x", "--trace-link", "y", "--max-memory", "4GB"]
    )  # fmt: skip
    assert call == fast.Call(
        "run",
        {
            "set_": ["a=1", "b=c=2"],
            "file": Path("s.toml"),
            "json_out": True,
            "seed": 7,
            "out": Path("out"),
            "trace_links": ["x", "y"],
            "max_memory": "4GB",
        },
    )


def test_parse_gives_an_ns2_script_its_argv():
    # the script's path stays a str (typer gives a Path): a script's run imports no pathlib
    call = fast.parse(["run", "s.tcl", "60", "--seed", "3", "time=10", "-o", "x"])
    assert call == fast.Call(
        "run",
        {"file": "s.tcl", "script_args": ["60", "time=10"], "seed": 3, "out": Path("x")},
    )  # run() refuses --out for a script, on either path
    assert fast.parse(["run", "s.tcl"]) == fast.Call("run", {"file": "s.tcl", "script_args": []})


def test_fast_options_are_the_typer_options():
    """Every option the fast path reads is one the typer declaration has, with the same
    parameter name, value kind (flag, one value, repeatable); the fast path's keyword
    arguments are parameters of the function both call."""
    import inspect

    import typer

    import bufferlab.cli.run as run_cmds
    from bufferlab.cli import app

    commands = {c.name: c for c in typer.main.get_command(app).commands.values()}
    for name, (options, _) in fast._COMMANDS.items():
        params = {o: p for p in commands[name].params for o in p.opts}
        body = inspect.signature(getattr(run_cmds, name)).parameters
        for opt, (key, kind, _convert) in options.items():
            p = params[opt]
            assert p.name == key and key in body, (name, opt)
            assert (kind == fast.FLAG) == bool(getattr(p, "is_flag", False)), (name, opt)
            assert (kind == fast.MANY) == p.multiple, (name, opt)


def _loaded_after(
    program_args: list[str], tmp_path: Path, heavy: tuple[str, ...] = HEAVY
) -> set[str]:
    """The top-level packages of ``heavy`` in sys.modules after the command ran in a fresh
    interpreter."""
    code = (
        "import sys\n"
        "from bufferlab.cli import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "top = {m.split('.')[0] for m in sys.modules}\n"
        f"print(sorted(top & {set(heavy)!r}), file=sys.stderr)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, *program_args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    return set(json.loads(p.stderr.strip().splitlines()[-1].replace("'", '"')))


def test_a_fast_run_loads_neither_typer_nor_rich_nor_pydantic(tiny, tmp_path):
    assert _loaded_after(["run", str(tiny), "--json", "--set", "duration=3s"], tmp_path) == set()
    assert _loaded_after(["validate", str(tiny)], tmp_path) == set()
    # A table needs rich, and only rich.
    assert _loaded_after(["run", str(tiny), "--set", "duration=3s"], tmp_path) == {"rich"}
    # The check sees them when they are loaded: the typer path loads all of them.
    assert _loaded_after(["run", "--help"], tmp_path) >= {"typer", "rich", "pydantic"}


def test_python_dash_m_takes_the_fast_path_too(tiny):
    """`python -m bufferlab` (what the other CLI tests run) is the same entry point."""
    res = run_cli("run", str(tiny), "--json", "--set", "duration=3s")
    assert res.code == 0 and json.loads(res.stdout)["scenario"] == "dumbbell-udp"


def test_an_ns2_script_loads_neither_typer_nor_the_libraries(tmp_path):
    """`bufferlab run script.tcl` (issue #20: faster than ns-2 on small scripts) takes the
    fast path and loads only what a run needs: not typer, rich, pydantic or click, nor
    pandas, pyarrow, duckdb, matplotlib..., nor the standard library's modules that were most
    of a small script's start-up (docs/performance.md, "Faster than ns-2 on every script"):
    dataclasses with inspect, typing, tempfile with shutil. A regression guard without a
    timer."""
    heavy = HEAVY + LIBRARIES + ("dataclasses", "inspect", "typing", "tempfile", "shutil")
    script = tmp_path / "dynamic_apps.tcl"
    script.write_text((NS2 / "dynamic_apps.tcl").read_text())
    assert _loaded_after(["run", script.name], tmp_path, heavy) == set()
    # the same for a script whose trace-queue lines go through the engine's own trace file
    script = tmp_path / "link_traces.tcl"
    script.write_text((NS2 / "link_traces.tcl").read_text())
    assert _loaded_after(["run", script.name], tmp_path, heavy) == set()
    # and the check sees them when they are loaded
    assert _loaded_after(["sweep", "--help"], tmp_path, heavy) >= {
        "typer",
        "rich",
        "dataclasses",
        "typing",
    }


def test_an_ns2_scripts_run_loads_neither_pathlib_nor_json_nor_re(tmp_path):
    """What a script's run leaves out of its start-up (docs/performance.md, "ns-2's
    validation suites side by side"); `info vars PATTERN` would bring fnmatch, a counter read
    after the run json."""
    args = ["run", str(NS2 / "short_transfers.tcl"), "4"]
    lean = ("pathlib", "json", "fnmatch", "unicodedata", "re", "typing", "enum")
    assert _loaded_after(args, tmp_path, heavy=lean) == set()
    # the check sees them when they are loaded: a scenario's run takes its file as a Path
    assert "pathlib" in _loaded_after(["run", "--help"], tmp_path, heavy=lean)


def test_the_console_scripts_quick_exit_loses_nothing_a_script_wrote(tmp_path):
    """The process ends with os._exit once the script has (cli.fast.exit_after): a file the
    script left open, stdout without a final newline and the exit code are all there."""
    script = tmp_path / "open.tcl"
    script.write_text(
        "set ns [new Simulator]\n"
        "set f [open left_open.txt w]\n"
        "proc finish {} { global f; puts -nonewline $f {last line, not flushed}\n"
        "  puts -nonewline {no newline}; exit 3 }\n"
        "set a [$ns node]; set b [$ns node]\n"
        "$ns duplex-link $a $b 1Mb 10ms DropTail\n"
        '$ns at 0.5 "finish"\n'
        "$ns run\n"
    )
    p = subprocess.run(
        [sys.executable, "-m", "bufferlab", "run", str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (p.returncode, p.stdout) == (3, "no newline"), p.stderr
    assert (tmp_path / "left_open.txt").read_text() == "last line, not flushed"
