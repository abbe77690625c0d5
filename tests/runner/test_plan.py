"""The plan stage: a run's cost known before it is spent, from each method's and metric's
declared cost; a run above ``max_hours`` refused before any job with nothing written; the
estimate said above a minute; a table computed for the cache announced before it starts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab import cli
from anonlab.config import CONF_DIR
from anonlab.cost import Cost
from anonlab.datasets import build_dataset
from anonlab.methods import METHODS
from anonlab.methods.multivariate import Mdav
from anonlab.metrics import METRICS
from anonlab.runner import plan
from anonlab.runner.experiment import Experiment
from anonlab.runner.grid import Cell
from anonlab.runner.render import render_experiment
from anonlab.runner.validate import DEFAULT_MAX_HOURS, validate
from anonlab.validation import ParameterError
from tests.conftest import run_command

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

QUICK = ["+experiment=census_ir", "profile=quick"]


@pytest.fixture
def quick(compose_config):
    """:data:`QUICK` composed (once per process: the fixture keeps compositions), the
    test's own copy to pass on."""
    return compose_config(*QUICK)


def _view(n: int, m: int = 2):
    values = np.random.default_rng(0).gamma(2.0, 10.0, size=(n, m)).round(1)
    names = [f"a{j}" for j in range(m)]
    frame = pd.DataFrame(values, columns=names)
    return build_dataset("x", frame, names, domains={c: [0.0, 1000.0] for c in names})


def test_the_estimate_scales_as_declared():
    """MDAV is quadratic in n: 10 times the records, 100 times the time; a linear
    method 10 times."""
    cell = Cell("mdav", (("k", 5),), "x", 1)
    small, *_ = plan.cell_seconds(_view(100), cell, cell.build(), [], [])
    large, *_ = plan.cell_seconds(_view(1000), cell, cell.build(), [], [])
    assert large / small == pytest.approx(100)
    laplace = Cell("laplace", (("epsilon", 1.0),), "x", 2)
    small, *_ = plan.cell_seconds(_view(100), laplace, laplace.build(), [], [])
    large, *_ = plan.cell_seconds(_view(1000), laplace, laplace.build(), [], [])
    assert large / small == pytest.approx(10)


def test_an_attack_metric_costs_the_methods_rerun_on_its_training_records():
    cell = Cell("mdav", (("k", 5),), "x", 1)
    view = _view(1000)
    attacks = [METRICS["linkability"], METRICS["singling_out"]]  # one training part
    release, rerun, spent = plan.cell_seconds(view, cell, cell.build(), attacks, [])
    assert rerun == pytest.approx(Mdav.cost.of(n=500, m=2, k=5))
    assert spent["linkability"] == pytest.approx(METRICS["linkability"].cost.of(n=1000, m=2))
    assert release == pytest.approx(Mdav.cost.of(n=1000, m=2, k=5))


def test_every_component_declares_a_cost_its_sizes_can_evaluate():
    """A method's formula names n, m and its own axes only; a metric's n and m (it is
    evaluated for every method, with or without k)."""
    for name, cls in METHODS.items():
        assert isinstance(cls.cost, Cost), name
        assert cls.cost.names <= {"n", "m", *cls.axes}, name
    for name, metric in METRICS.items():
        assert isinstance(metric.cost, Cost), name
        assert metric.cost.names <= {"n", "m"}, name


@pytest.mark.parametrize(
    "formula", ["n**k**import", "__import__('os')", "n.real", "n // k", "q*n", "open(n)"]
)
def test_a_cost_formula_is_arithmetic_on_the_sizes_only(formula):
    with pytest.raises(ValueError, match="cost formula"):
        Cost(formula, seconds=1.0)


def test_a_cost_evaluates_its_formula():
    cost = Cost("n^2/max(k,1/(2*t))*(m+20)", seconds=2.0, fixed=1.0)
    assert cost.of(n=10, m=2, k=5, t=0.01) == pytest.approx(1 + 2 * 100 / 50 * 22)
    assert Cost("n*log(n)", seconds=1.0).units(n=1) == 1.0  # log is at least 1
    with pytest.raises(KeyError, match="needs \\['k'\\]"):
        cost.units(n=10, m=2, t=0.1)


def test_a_run_above_max_hours_is_refused_before_any_job(tmp_path):
    out = run_command(*QUICK, "max_hours=1e-9", f"results_dir={tmp_path}")
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("error: this run would take about ")
    assert "above max_hours=1e-09" in line and "max_hours=0.0005" in line
    assert "(largest: " in line
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("value", ["0", "-1", "x", "nan"])
def test_max_hours_must_be_a_positive_number_on_the_command_line(compose_config, value):
    with pytest.raises(ParameterError, match=f"max_hours must be a number of hours > 0.*{value}"):
        validate(compose_config(*QUICK, f"max_hours={value}"))


@pytest.mark.parametrize("value", [0, -1, "x", True])
def test_max_hours_must_be_a_positive_number_in_python(value):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ParameterError, match="max_hours must be a number of hours > 0"):
        anonlab.study(frame, ["ir"], {"k": [2]}, ["re"], max_hours=value)


def test_the_python_study_is_refused_above_max_hours_in_its_own_words():
    frame = pd.DataFrame({"a": np.arange(40.0), "b": np.arange(40.0) % 7})
    with pytest.raises(ParameterError, match=r"above max_hours=1e-09.*grid values"):
        anonlab.study(frame, ["ir"], {"k": [2, 3]}, ["re"], max_hours=1e-9)


def test_the_default_limit_and_the_config_key_agree(compose_config, quick):
    assert quick["max_hours"] == DEFAULT_MAX_HOURS
    assert validate(compose_config(*QUICK, "max_hours=inf")).max_hours == float("inf")


def test_a_run_above_a_minute_says_its_estimate(quick, monkeypatch):
    """The estimate is said, with its largest contributors, once it exceeds a minute."""
    config = quick
    runs = cli.declared_runs(config, QUICK, CONF_DIR)
    experiments, _ = cli.prepare(config, runs, CONF_DIR)
    assert cli.planned(config, runs, experiments) == experiments  # seconds: nothing said
    monkeypatch.setattr(METHODS["ir_laplace"], "cost", Cost("n*m", seconds=1e-3))
    (said,) = set(cli.planned(config, runs, experiments)[0].notes) - set(experiments[0].notes)
    assert said.startswith("about ") and " min of work on " in said
    assert "(largest: ir_laplace on 'census' (" in said


def test_a_table_computed_for_the_cache_is_announced(tmp_path, capsys):
    def audit(table, n_jobs=1):
        return pd.DataFrame({"a": [1]})

    audit.data_independent = True
    audit.cost = Cost("1", seconds=600.0)
    experiment = Experiment(
        "fake",
        (),
        (),
        1,
        ("re",),
        (),
        0,
        1,
        tmp_path / "out",
        (),
        (("audit", audit),),
        {"cache_dir": str(tmp_path / "cache")},
    )
    assert plan.estimate(experiment).seconds == pytest.approx(600.0)
    render_experiment(experiment, pd.DataFrame())
    err = capsys.readouterr().err
    assert "note: table audit: computing (about 10 min; cached for later runs in" in err
    render_experiment(experiment, pd.DataFrame())  # cached now: nothing said, no cost
    assert "computing" not in capsys.readouterr().err
    assert plan.estimate(experiment).seconds == 0.0


def test_suggested_hours_leave_a_margin():
    assert plan.suggested_hours(3600) == 2.0
    assert plan.suggested_hours(11 * 60) == 0.5
    assert plan.suggested_hours(20 * 3600) == 50.0
