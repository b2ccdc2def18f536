"""Every command's `--help` reads well in an 80-column terminal: its prose wraps once, at the
terminal's width (typer keeps a docstring's own line breaks, which at 80 columns wrapped each
source line a second time: "Ctrl-C stops it" / "and prints ..."), and says what runs code."""

from __future__ import annotations

import pytest

from conftest import run_cli

COMMANDS = [
    ["run"],
    ["import-ns2"],
    ["validate"],
    ["schema"],
    ["version"],
    ["sweep"],
    ["results"],
    ["plot"],
    ["report"],
    ["advise"],
    ["study", "list"],
    ["study", "run"],
    ["study"],
    [],
]


def _prose_paragraphs(help_text: str) -> list[list[str]]:
    """The description's paragraphs (the lines between the usage line and the first box)."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.lstrip().startswith("╭")), len(lines))
    paragraphs: list[list[str]] = [[]]
    for line in lines[start:end]:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    return [p for p in paragraphs if p]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_prose_wraps_once_at_80_columns(command: list[str]) -> None:
    r = run_cli(*command, "--help", columns=80)
    assert r.code == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    # rich cuts a word longer than its column with an ellipsis: nothing may be cut
    assert "…" not in r.stdout, f"a truncated word in {command}:\n{r.stdout}"
    for paragraph in _prose_paragraphs(r.stdout):
        # Every line but a paragraph's last fills the width (less one word at most).
        for line in paragraph[:-1]:
            assert len(line) >= 60, f"a line broken early in {command}: {line!r}\n{r.stdout}"


@pytest.mark.parametrize("command", [["run"], ["import-ns2"]], ids=" ".join)
def test_help_says_an_ns2_script_runs_with_the_users_rights(command: list[str]) -> None:
    r = run_cli(*command, "--help", columns=80)
    prose = " ".join(" ".join(p) for p in _prose_paragraphs(r.stdout))
    assert "runs with your rights" in " ".join(prose.split())
