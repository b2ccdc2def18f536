#!/usr/bin/env python3
"""The module graph of bufferlab, drawn from the sources and checked against the layer rules.

Rust core: an edge A -> B for every `crate::B` a file under `src/A` names. Python package: an
edge for every import of `bufferlab.B` (or relative import) in a module of `bufferlab/A`.
Rules (docs/architecture.md, ../shared/DESIGN.md): no cycle between folders, and a Rust module
imports only from its own layer or a lower one.

    python3 tools/module_graph.py            # print both graphs as Mermaid
    python3 tools/module_graph.py --check    # exit 1 on a cycle, a layer breach, or a stale doc
    python3 tools/module_graph.py --write    # regenerate the graphs in docs/architecture.md
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "crates" / "bufferlab-core" / "src"
PYPKG = ROOT / "python" / "bufferlab"
DOC = ROOT / "docs" / "architecture.md"

# Lowest first. A module may use its own layer and the ones below, never one above.
RUST_LAYERS = [
    ("foundations", ["units", "ids", "ns2_rng", "rng", "packet", "clock", "sched", "guard", "drop_reason"]),
    ("models", ["monitor", "qdisc", "net", "tcp", "traffic", "udp", "endpoint", "ext"]),
    ("engine", ["sim", "report", "resolved", "notes"]),
    ("scenario", ["scenario"]),
    ("entry point", ["api", "session"]),
]
IGNORED_RUST = {"lib"}


def rust_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for f in sorted(CORE.rglob("*.rs")):
        top = f.relative_to(CORE).parts[0].removesuffix(".rs")
        if top in IGNORED_RUST:
            continue
        text = re.sub(r"//[^\n]*", "", f.read_text())  # comments and doc links do not count
        for dep in re.findall(r"\bcrate::([a-z_0-9]+)", text):
            if dep != top and dep not in IGNORED_RUST:
                edges.setdefault(top, set()).add(dep)
        edges.setdefault(top, set())
    return edges


def python_edges(depth: int = 1) -> dict[str, set[str]]:
    """Edges between the package's modules, named by their first ``depth`` dotted parts below
    ``bufferlab`` (1: top-level modules and packages; 9: every module)."""
    edges: dict[str, set[str]] = {}
    for f in sorted(PYPKG.rglob("*.py")):
        parts = f.relative_to(PYPKG).with_suffix("").parts
        if parts[0] in ("__init__", "__main__"):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        top = ".".join(parts[:depth])
        edges.setdefault(top, set())
        pkg = ["bufferlab", *f.relative_to(PYPKG).parts[:-1]]
        for node in ast.walk(ast.parse(f.read_text())):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg[: len(pkg) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                # `from pkg import name`: the package, and `pkg.name` when that is a module.
                names = [mod] if node.module else []
                for a in node.names:
                    sub = PYPKG.joinpath(*f"{mod}.{a.name}".split(".")[1:])
                    if sub.with_suffix(".py").exists() or sub.is_dir():
                        names.append(f"{mod}.{a.name}")
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for n in names:
                p = n.split(".")
                if p[0] != "bufferlab" or len(p) < 2 or p[1] == "_core":
                    continue
                dep = ".".join(p[1 : 1 + depth])
                if dep and dep != top and not top.startswith(dep + "."):
                    edges[top].add(dep)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def layer_breaches(edges: dict[str, set[str]]) -> list[str]:
    level = {m: i for i, (_, mods) in enumerate(RUST_LAYERS) for m in mods}
    bad = []
    for a, deps in sorted(edges.items()):
        if a not in level:
            bad.append(f"{a}: not in any layer of tools/module_graph.py")
            continue
        for b in sorted(deps):
            if b in level and level[b] > level[a]:
                bad.append(f"{a} ({RUST_LAYERS[level[a]][0]}) imports {b} ({RUST_LAYERS[level[b]][0]})")
    return bad


def mermaid(edges: dict[str, set[str]], layers: list[tuple[str, list[str]]] | None) -> str:
    lines = ["```mermaid", "flowchart BT"]
    if layers:
        for name, mods in layers:
            present = [m for m in mods if m in edges]
            if present:
                lines.append(f'  subgraph layer_{name.replace(" ", "_")}["{name}"]')
                lines += [f"    {m}" for m in present]
                lines.append("  end")
    for a in sorted(edges):
        for b in sorted(edges[a]):
            lines.append(f"  {a} --> {b}")
    lines.append("```")
    return "\n".join(lines)


def generated() -> dict[str, str]:
    return {
        "rust": mermaid(rust_edges(), RUST_LAYERS),
        "python": mermaid(python_edges(), None),
    }


def splice(doc: str, name: str, body: str) -> str:
    start, end = f"<!-- module-graph:{name}:start -->", f"<!-- module-graph:{name}:end -->"
    pat = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pat.search(doc):
        raise SystemExit(f"{DOC}: markers {start} ... {end} missing")
    return pat.sub(lambda _: f"{start}\n{body}\n{end}", doc)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    graphs = generated()
    problems = []
    graphs_to_check = (
        ("Rust core", rust_edges()),
        ("Python package", python_edges()),
        ("Python modules", python_edges(depth=9)),
    )
    for name, edges in graphs_to_check:
        problems += [f"{name}: import cycle between {' <-> '.join(c)}" for c in cycles(edges)]
    problems += [f"Rust core: {b}" for b in layer_breaches(rust_edges())]
    if args.write or args.check:
        doc = DOC.read_text()
        new = doc
        for name, body in graphs.items():
            new = splice(new, name, body)
        if args.write:
            DOC.write_text(new)
        elif new != doc:
            problems.append(f"{DOC.relative_to(ROOT)}: module graph is stale (tools/module_graph.py --write)")
    else:
        for name, body in graphs.items():
            print(f"## {name}\n{body}\n")
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if (problems and (args.check or args.write)) else 0


if __name__ == "__main__":
    sys.exit(main())
