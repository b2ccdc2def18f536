"""The example notebooks (examples/*.ipynb) run top to bottom in a real Jupyter kernel, from the
examples folder as a reader opens them, so they never rot. Each notebook asserts what its prose
claims (determinism, goodput rising with the buffer, AQMs below DropTail's delay)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))


def test_there_are_three_notebooks() -> None:
    assert [p.name for p in NOTEBOOKS] == [
        "01_first_run.ipynb",
        "02_buffer_size_sweep.ipynb",
        "03_queue_disciplines.ipynb",
    ]


def test_notebooks_are_committed_without_outputs() -> None:
    """Outputs would be numbers nobody regenerates; the suite runs the notebooks instead."""
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.get("outputs"), f"{path.name}: clear the outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(EXAMPLES)}}
    )
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    kinds = {o.get("output_type") for c in nb.cells if c.cell_type == "code" for o in c.outputs}
    assert "error" not in kinds
    # The figures render (matplotlib inline: a PNG as a cell's result or displayed data).
    pngs = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert pngs, f"{path.name}: no figure was drawn"
