"""Per-method grid axes (config ``grid_by_method``), metrics left out where undefined
(config ``inapplicable: skip``) and the risk–utility map figure."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.config import compose_config
from anonlab.plotting.curves import FigureSpec
from anonlab.plotting.maps import map_points
from anonlab.runner.experiment import build_experiment, run_grid
from anonlab.runner.render import draw_figure
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SMALL = (
    "methods=[laplace,ir_laplace,dp_um]",
    "grid.k=[3]",
    "grid.epsilon=[1.0]",
    "reps=1",
    "figures=[]",
    "n_jobs=1",
)


def test_grid_by_method_replaces_one_methods_axes(tmp_path):
    experiment = build_experiment(
        compose_config(*SMALL, "+grid_by_method={dp_um: {k: [5, 7]}}", f"results_dir={tmp_path}")
    )
    ks = {(c.method, c.param_dict.get("k")) for c in experiment.cells}
    assert ks == {("laplace", None), ("ir_laplace", 3), ("dp_um", 5), ("dp_um", 7)}


@pytest.mark.parametrize(
    "value, message",
    [
        ("{mdav: {k: [5]}}", "grid_by_method.mdav"),
        ("{dp_um: {k: [0]}}", "grid_by_method.dp_um.k must be >= 1"),
    ],
)
def test_grid_by_method_bad_input(tmp_path, value, message):
    with pytest.raises(ParameterError, match=message):
        build_experiment(
            compose_config(*SMALL, f"+grid_by_method={value}", f"results_dir={tmp_path}")
        )


def test_undefined_metrics_refuse_the_run_or_are_left_out(tmp_path):
    """f_measure on data without a class refuses the run, unless inapplicable=skip; then
    the jobs leave it out and keep the other metrics."""
    metrics = "metrics=[jsd,f_measure]"
    with pytest.raises(ParameterError, match="f_measure"):
        build_experiment(compose_config(*SMALL, metrics, f"results_dir={tmp_path}"))
    with pytest.raises(ParameterError, match="inapplicable"):
        build_experiment(
            compose_config(*SMALL, metrics, "inapplicable=sometimes", f"results_dir={tmp_path}")
        )
    experiment = build_experiment(
        compose_config(*SMALL, metrics, "inapplicable=skip", f"results_dir={tmp_path}")
    )
    table = run_grid(experiment, progress=False)
    assert set(table["metric"]) == {"jsd"}
    assert set(table["method"]) == {"laplace", "ir_laplace", "dp_um"}


def test_risk_utility_map_is_drawn(tmp_path):
    """A point per method and ε (a line through them), a star for a method without ε; a
    figure naming a metric the run does not compute is refused."""
    rows = [
        {
            "dataset": "d",
            "method": method,
            "epsilon": epsilon,
            "k": 3,
            "rep": 0,
            "seed": 0,
            "cell_id": 0,
            "attribute": None,
            "metric": metric,
            "value": value * (1 + (epsilon or 0)),
        }
        for method, epsilon in (("ir_laplace", 0.5), ("ir_laplace", 2.0), ("ir", None))
        for metric, value in (("jsd", 0.1), ("record_linkage", 0.01))
    ]
    spec = FigureSpec("map", "record_linkage", x_metric="jsd", facet="dataset", series="epsilon")
    points = map_points(pd.DataFrame(rows), spec)
    assert len(points) == 3 and set(points.columns) >= {"x", "y", "method"}
    paths = draw_figure(pd.DataFrame(rows), spec, tmp_path)
    assert [p.name for p in paths] == ["map.png", "map.pdf"]
    assert all(p.stat().st_size > 0 for p in paths)
    with pytest.raises(ParameterError, match="'re'"):
        build_experiment(
            compose_config(
                *SMALL[:-2],
                "metrics=[jsd]",
                "n_jobs=1",
                f"results_dir={tmp_path}",
                "figures=[{name: map, metric: jsd, x_metric: re}]",
            )
        )
