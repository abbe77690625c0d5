"""Nothing meaningless is stored or drawn: non-finite results, bounds that overflow, a
control that is the training data, a figure against one value, a log axis of zeros; and
a method of numerical attributes runs on the numerical part of mixed data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.datasets import build_dataset
from anonlab.plotting import FigureSpec
from anonlab.plotting.curves import plot_curves
from anonlab.runner.fit import fit_methods
from anonlab.runner.grid import Cell, expand_grid
from anonlab.runner.store import finite_rows
from anonlab.runner.validate import figure_axes
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def test_non_finite_values_are_left_out_with_a_note():
    table = pd.DataFrame(
        {
            "method": ["laplace", "laplace", "ir", "ir"],
            "metric": ["sse", "sse", "sse", "re"],
            "value": [1.0, np.inf, np.nan, 0.5],
        }
    )
    kept, notes = finite_rows(table)
    assert kept["value"].tolist() == [1.0, 0.5]
    assert notes == [
        "metric 'sse' of method 'laplace' is inf in 1 of 2 rows (an overflow or an undefined "
        "value): left out of the results",
        "metric 'sse' of method 'ir' is NaN in 1 of 1 rows (an overflow or an undefined "
        "value): left out of the results",
    ]


@pytest.mark.parametrize("domains", ["data", {"x": [0.0, 1e308]}])
def test_bounds_that_overflow_the_mechanism_are_refused(domains):
    frame = pd.DataFrame({"x": [1.0, 2.0, 1e300]})
    with pytest.raises(ParameterError, match=r"bounds beyond ±2\^480"):
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=domains)


def test_a_control_that_holds_the_training_records_is_refused():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 100, 40), "y": rng.uniform(0, 100, 40)})
    train, control = frame.iloc[::2], frame.iloc[1::2]
    bounds = {"x": [0, 100], "y": [0, 100]}
    released = anonlab.protect(train, "laplace", epsilon=1.0, domains=bounds, seed=0)
    risk = anonlab.evaluate(train, released, ["linkability"], domains=bounds, control=control)
    assert np.isfinite(risk["linkability"])
    with pytest.raises(ParameterError, match=r"control shares 20 of its 20 records with original"):
        anonlab.evaluate(train, released, ["linkability"], domains=bounds, control=train)


def test_a_figure_against_an_axis_of_one_value_is_refused():
    with pytest.raises(ParameterError, match=r"figure_x='epsilon' has one value \[1.0\]"):
        figure_axes({"k": [2, 5], "epsilon": [1.0]}, {"k", "epsilon"}, "epsilon", 1)


def test_a_log_axis_of_zeros_is_drawn_linear():
    table = pd.DataFrame(
        {
            "method": "ir",
            "k": [2, 5, 10],
            "rep": 0,
            "metric": "re",
            "attribute": None,
            "value": 0.0,
        }
    )
    spec = FigureSpec(name="re", metric="re", x="k", logy=True)
    figure = plot_curves(table, spec)
    assert figure.axes[0].get_yscale() == "linear"
    assert "log scale" not in figure.axes[0].get_ylabel()


def test_a_numerical_method_runs_on_the_numerical_part_of_mixed_data():
    frame = pd.DataFrame(
        {"a": np.arange(12.0), "state": ["CA", "NY", "TX"] * 4, "b": np.arange(12.0) * 2}
    )
    data = build_dataset(
        "mixed", frame, ["a", "state", "b"], categorical=["state"], domains={"a": [0, 20]}
    )
    cells = expand_grid(["mdav", "laplace"], {"k": [3], "epsilon": [1.0]}, data)
    views = {cell.method: cell.view(data) for cell in cells}
    assert views["mdav"].protected == ("a", "b") and views["laplace"].protected == data.protected
    assert len({cell.view_key for cell in cells}) == 2

    def expand(methods, dataset):
        return expand_grid(methods, {"k": [3]}, dataset)

    # a preset's method runs on the numerical part, with a note
    kept, notes = fit_methods(["mdav"], [data], [{"loader": "frame"}], expand, False)
    assert kept == ("mdav",) and "runs on the numerical attributes of 'mixed'" in notes[0]
    # one the user named for these attributes is refused: never silently fewer of them
    with pytest.raises(ParameterError, match=r"numerical attributes only.*\['state'\]"):
        fit_methods(["mdav"], [data], [{"loader": "frame"}], expand, True)
    assert isinstance(cells[0], Cell)
