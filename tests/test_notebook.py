"""notebooks/explore.ipynb runs headless on a small results table and redraws its figure."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from anonlab.runner import build_experiment, run_experiment

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # the engine in processes: a drill

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "explore.ipynb"
TINY = (
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0]",
    "grid.m=[1,8]",
    "reps=1",
    "n_jobs=1",
    "run_name=census_ir",
)  # a custom grid, asked into census_ir/


def parameters_cell(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return next(cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", []))


@pytest.fixture
def execute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run the notebook with its parameters cell replaced by ``source``.

    The ``python3`` kernel is pinned to this interpreter: a kernelspec written to a
    temporary ``JUPYTER_PATH`` (searched before any user or system kernelspec), so the
    notebook runs against the code under test on any machine, and nothing is installed."""
    from ipykernel.kernelspec import write_kernel_spec

    jupyter = tmp_path / "jupyter"
    write_kernel_spec(jupyter / "kernels" / "python3")  # argv: [sys.executable, ...]
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter))
    # the kernel imports anonlab from this checkout even if it is not installed
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    )
    workdir = tmp_path / "notebooks"
    workdir.mkdir()

    def _execute(source: str) -> nbformat.NotebookNode:
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        parameters_cell(notebook).source = source
        client = NotebookClient(
            notebook,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(workdir)}},
        )
        client.execute()  # raises CellExecutionError on any error in a cell
        return notebook

    return _execute


def outputs(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]


def stdout(notebook: nbformat.NotebookNode) -> str:
    return "".join(
        out.text
        for out in outputs(notebook)
        if out.output_type == "stream" and out.name == "stdout"
    )


def test_stored_notebook_is_clean_and_parameterised():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    assert outputs(notebook) == []
    assert all(
        cell.get("execution_count") is None for cell in notebook.cells if cell.cell_type == "code"
    )
    source = parameters_cell(notebook).source
    for line in ('results_dir = "results"', 'experiment = "census_ir"', "figure = None"):
        assert line in source


def test_notebook_redraws_a_tiny_run(tmp_path, compose_config, execute):
    results = tmp_path / "results"
    config = compose_config(*TINY, f"results_dir={results}")
    experiment = build_experiment(config)
    run_experiment(experiment, experiment.config, progress=False)

    notebook = execute(f'results_dir = {str(results)!r}\nexperiment = "census_ir"\nfigure = None\n')
    images = [out for out in outputs(notebook) if "image/png" in out.get("data", {})]
    assert len(images) == 1
    text = stdout(notebook)
    assert str(results / "census_ir") in text
    assert "grid.k: [2, 10]" in text and f"seed: {config['seed']}" in text
    assert "re: mean over repetitions" in text  # the first figure is figure1_re
    html = " ".join(
        out.data.get("text/html", "")
        for out in outputs(notebook)
        if out.output_type == "execute_result" or out.output_type == "display_data"
    )
    assert "figure1_jsd" in html and "ir_laplace" in html


def test_notebook_says_how_to_produce_missing_results(tmp_path, execute):
    missing = tmp_path / "nothing"
    notebook = execute(f'results_dir = {str(missing)!r}\nexperiment = "census_ir"\nfigure = None\n')
    assert f"python run.py +experiment=census_ir results_dir={missing}" in stdout(notebook)
    assert not any("image/png" in out.get("data", {}) for out in outputs(notebook))
