"""Grid expansion, seeds, determinism across workers, validation before work."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.runner import build_experiment, cell_id, expand_grid, rng_for, run_cells
from anonlab.runner.execute import plan_jobs
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SMALL = (
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0,10.0]",
    "grid.m=[1,13]",
    "reps=3",
)


@pytest.fixture
def small(compose_config):
    """:data:`SMALL` composed (once per process: the fixture keeps compositions), the
    test's own copy to edit."""
    return compose_config(*SMALL)


def test_methods_get_only_their_axes(small):
    exp = build_experiment(small)
    counts = pd.Series([c.method for c in exp.cells]).value_counts().to_dict()
    # laplace: eps × m, ir: k × m, ir_laplace: k × eps × m
    assert counts == {"laplace": 4, "ir": 4, "ir_laplace": 8}
    jobs = plan_jobs(exp.cells, exp.reps)
    assert len(jobs) == 4 * 3 + 4 * 1 + 8 * 3  # ir is deterministic: one repetition


def test_cell_ids_are_stable_and_distinct():
    a = cell_id({"dataset": "census", "method": "ir_laplace", "k": 2, "epsilon": 1.0, "m": 1})
    b = cell_id({"m": 1, "epsilon": 1.0, "k": 2, "method": "ir_laplace", "dataset": "census"})
    c = cell_id({"dataset": "census", "method": "ir_laplace", "k": 3, "epsilon": 1.0, "m": 1})
    assert a == b != c and 0 <= a < 2**63


def test_streams_are_independent_per_cell_and_rep():
    draws = {(cell, rep): rng_for(1, cell, rep).random() for cell in (5, 6) for rep in (0, 1)}
    assert len(set(draws.values())) == 4
    assert rng_for(1, 5, 0).random() == draws[(5, 0)]


def test_results_do_not_depend_on_n_jobs(small):
    exp = build_experiment(small)
    kwargs = dict(reps=exp.reps, master_seed=exp.seed, metrics=exp.metrics, progress=False)
    one = run_cells(exp.dataset, exp.cells, n_jobs=1, **kwargs)
    two = run_cells(exp.dataset, exp.cells, n_jobs=2, **kwargs)
    pd.testing.assert_frame_equal(one, two)
    assert {
        "dataset",
        "method",
        "k",
        "epsilon",
        "m",
        "rep",
        "seed",
        "cell_id",
        "metric",
        "value",
    } <= set(one.columns)
    assert one["value"].notna().all()


def test_master_seed_changes_noise_not_ir(compose_config, small):
    a = build_experiment(small)
    b = build_experiment(compose_config(*SMALL, "seed=1"))
    runs = [
        run_cells(
            e.dataset,
            e.cells,
            reps=1,
            master_seed=e.seed,
            metrics=("re",),
            n_jobs=1,
            progress=False,
        )
        for e in (a, b)
    ]
    ir = [r[r.method == "ir"]["value"].to_numpy() for r in runs]
    noisy = [r[r.method == "ir_laplace"]["value"].to_numpy() for r in runs]
    assert (ir[0] == ir[1]).all() and (noisy[0] != noisy[1]).all()


@pytest.mark.parametrize(
    ("override", "error", "message"),
    [
        (
            "grid.epsilon=[1.0,-0.5]",
            ParameterError,
            "grid.epsilon must be > 0 and finite, got -0.5",
        ),
        ("grid.epsilon=[0]", ParameterError, "grid.epsilon must be > 0"),
        ("grid.k=[0]", ParameterError, "grid.k must be >= 1, got 0"),  # before the data
        ("grid.k=[1081]", ParameterError, "grid.k must be in 1..1080, got 1081"),
        ("grid.k=[2.5]", TypeError, "grid.k must be an integer, got 2.5"),
        ("grid.m=[14]", ParameterError, "grid.m must be in 1..13, got 14"),
        ("methods=[laplace,mdav9]", ParameterError, "unknown method 'mdav9'"),
        ("metrics=[re,rmse]", ParameterError, "unknown metric 'rmse'"),
        ("dataset.loader=nope", ParameterError, "unknown dataset.loader 'nope'"),
        ("reps=0", ParameterError, "reps must be >= 1, got 0"),
        ("n_jobs=0", ParameterError, "n_jobs must be a positive number"),
        ("grid.epsilon=[abc]", TypeError, "grid.epsilon must be a real number, got 'abc'"),
    ],
)
def test_bad_parameters_fail_when_built(compose_config, override, error, message):
    with pytest.raises(error, match=message):
        build_experiment(compose_config(*SMALL, override))


def test_method_needs_its_axis(small):
    del small["grid"]["epsilon"]
    with pytest.raises(ParameterError, match="method 'laplace' needs grid axis grid.epsilon"):
        build_experiment(small)


def test_expand_grid_accepts_sdcmicro_alias(small):
    exp = build_experiment(small)
    cells = expand_grid(["onedims"], {"k": [3]}, exp.dataset)
    assert [c.method for c in cells] == ["ir"]


@pytest.mark.parametrize(
    ("experiment", "protected"),
    [
        ("adult_uni_sse", 2),
        ("adult_ir", 4),
        ("adult_ir_vs_mdav", 4),
    ],
)
def test_experiments_without_m_protect_every_attribute(compose_config, experiment, protected):
    """A default grid.m would be merged into every experiment and silently protect only
    the first attribute(s)."""
    exp = build_experiment(compose_config(f"+experiment={experiment}", "grid.k=[2]"))
    assert all("m" not in cell.param_dict for cell in exp.cells)
    assert len(exp.dataset.protected) == protected


def test_census_experiments_sweep_m(compose_config):
    for name, ms in [
        ("census_ir", {1, 8, 13}),
        ("census_ir_vs_mdav", {1, 8, 13}),
        ("census_variance", {8}),
    ]:
        exp = build_experiment(compose_config(f"+experiment={name}", "grid.k=[2]"))
        assert {cell.param_dict["m"] for cell in exp.cells} == ms


def test_a_key_set_on_the_command_line_wins_over_the_profile(compose_config):
    from anonlab.config import OVERRIDES_KEY

    overrides = ["+experiment=census_ir", "profile=quick", "reps=2"]
    config = compose_config(*overrides)
    experiment = build_experiment({**config, OVERRIDES_KEY: overrides})
    assert experiment.reps == 2  # the quick profile's reps give way
    quick = build_experiment({**config, OVERRIDES_KEY: overrides[:2]})
    assert quick.reps == compose_config("+experiment=census_ir")["profiles"]["quick"]["reps"]
