"""The layout rules of docs/architecture.md, checked on the sources (tools/module_graph.py).

Python: no import cycle between the package's modules or sub-packages, and the library never
imports the CLI (the CLI calls the library, never the reverse). Rust: no cycle between the core's
folders, each folder imports only its own layer or lower ones, and the graphs drawn in
docs/architecture.md are the current ones.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from conftest import ROOT

spec = importlib.util.spec_from_file_location("module_graph", ROOT / "tools" / "module_graph.py")
assert spec and spec.loader
module_graph = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module_graph)


def test_python_modules_have_no_import_cycle():
    for depth in (1, 9):
        assert module_graph.cycles(module_graph.python_edges(depth)) == []


def test_the_library_never_imports_the_cli():
    edges = module_graph.python_edges(9)
    offenders = {
        m: sorted(d for d in deps if d == "cli" or d.startswith("cli."))
        for m, deps in edges.items()
        if not (m == "cli" or m.startswith("cli."))
    }
    assert {m: d for m, d in offenders.items() if d} == {}


def test_the_cycle_check_finds_a_cycle():
    assert module_graph.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]
    ]


def test_module_graph_check_passes():
    """Rust folders acyclic and layered, and docs/architecture.md's graphs current."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "module_graph.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
