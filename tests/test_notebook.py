"""The designer's notebook in examples/ runs from top to bottom (nbclient, small sizes)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "designer.ipynb"


@pytest.mark.slow
def test_designer_notebook_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Executed with 400 games: every cell runs, the comparison is printed with its
    Holm line and variance reduction, and the plot is drawn."""
    monkeypatch.setenv("BIDLAB_NOTEBOOK_GAMES", "400")
    # the kernel imports this checkout's simulate (it starts in the repository root)
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.get("outputs", []) if o.get("output_type") == "stream")
    assert "[scoring] over" in text and "took - bid → took" in text
    assert "Holm's correction" in text and "variance reduction of pairing" in text
    assert "final score: B − A from" in text
    figures = [o for c in nb.cells for o in c.get("outputs", [])
               if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})]
    assert figures, "the plot cell drew nothing"
