"""The engine, a pipeline of stages: validate (:mod:`~anonlab.runner.validate`), fit to the
data (:mod:`~anonlab.runner.fit`), plan (:mod:`~anonlab.runner.plan`), run
(:mod:`~anonlab.runner.execute`), store (:mod:`~anonlab.runner.store`), render
(:mod:`~anonlab.runner.render`); :mod:`~anonlab.runner.experiment` builds an experiment and
runs it through them.

The names below are imported on first use, so a worker that only runs jobs
(:mod:`anonlab.runner.execute`) does not import the figures and the claims checker."""

from importlib import import_module
from typing import Any

__all__ = [
    "Cell",
    "Declared",
    "Experiment",
    "build_experiment",
    "cell_id",
    "expand_grid",
    "render_experiment",
    "rng_for",
    "run_cells",
    "run_experiment",
]

_LAZY = {
    "run_cells": "execute",
    "Experiment": "experiment",
    "build_experiment": "experiment",
    "render_experiment": "render",
    "run_experiment": "experiment",
    "Declared": "validate",
    "Cell": "grid",
    "expand_grid": "grid",
    "cell_id": "seeds",
    "rng_for": "seeds",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"anonlab.runner.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'anonlab.runner' has no attribute {name!r}")
