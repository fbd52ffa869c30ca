"""The example notebook (examples/attnviz_tour.ipynb) runs top to bottom in a real Jupyter
kernel (nbclient, offline), so it cannot rot: its figures come out as Plotly JSON, its export
writes the file it names, and its printed code is the scene's."""

from __future__ import annotations

import os
import re

import nbclient
import nbformat
import pytest

from tests.support.pages import ROOT

NOTEBOOK = ROOT / "examples" / "attnviz_tour.ipynb"
PLOTLY = "application/vnd.plotly.v1+json"


@pytest.mark.slow
def test_the_example_notebook_runs_and_shows_its_figures(tmp_path, monkeypatch):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    client = nbclient.NotebookClient(
        notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError naming the cell on any error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    # the heads grid, the model view, your own model's model view, the language model's head,
    # the residual patching sweep
    assert sum(PLOTLY in o.get("data", {}) for o in outputs) == 5
    exported = tmp_path / "text_view.html"
    assert exported.is_file() and exported.stat().st_size > 1_000_000  # plotly.js is inside
    head_view = (tmp_path / "my_head_view.html").read_text(encoding="utf-8")  # its own script
    assert '"tokens": ["[CLS]", "the", "cat", "sat"' in head_view
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "av.scene(\n    'text',\n    ta_text='The cat sat on the mat because it was tired.'" in (
        printed
    )
    assert "layer 2 is out of range: there are 2 (layer 0 to 1)" in printed
    assert "(9, 14, 14) ['When', '␣Mary', '␣and', '␣John'] (14, 49152)" in printed
    # the sweep's numbers are the interventions oracles' (tests/engine/test_patching_oracles.py)
    sweep = r"\(30, 14\) clean -?\d+\.\d\d, corrupted -?\d+\.\d\d: ␣Mary vs ␣John"
    assert re.search(sweep, printed)
    assert (tmp_path / "lm_head_view.html").is_file()
