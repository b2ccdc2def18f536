"""The README's Python example runs as written, and the number it quotes is what it prints."""

from __future__ import annotations

import contextlib
import io
import os
import re

import matplotlib.pyplot as plt

from conftest import ROOT


def test_readme_python_example_runs_and_quotes_what_it_prints() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has a Python example"
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)  # the example names files relative to the repository
    try:
        with contextlib.redirect_stdout(out):
            for code in blocks:
                exec(compile(code, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
        plt.close("all")
    printed = out.getvalue().split()
    # The RTT the example quotes in a comment is the one it prints.
    quoted = re.search(r"# (\d+\.\d+): the network as the core built it", text)
    assert quoted and quoted[1] in printed, (quoted, printed[-3:])
    # The builder's run is the dict's run, as the comment says.
    assert re.search(r"print\(b\.run\(\)\.flows\.equals\(sc\.run\(\)\.flows\)\) +# True", text)
    assert printed[printed.index(quoted[1]) + 1] == "True", printed
