"""Grid expansion, seeds, parallel execution, result store."""

from anonlab.runner.execute import run_cells
from anonlab.runner.experiment import (
    Experiment,
    build_experiment,
    render_experiment,
    run_experiment,
)
from anonlab.runner.grid import Cell, expand_grid
from anonlab.runner.seeds import cell_id, rng_for

__all__ = ["Cell", "Experiment", "build_experiment", "cell_id", "expand_grid",
           "render_experiment", "rng_for", "run_cells", "run_experiment"]
