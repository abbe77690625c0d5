"""The command line starts worker processes only where they pay: early for a run that
declares many jobs and for a redraw of two figures or more, after the plan for a run whose
estimated work is large, and not at all for a small one, whose grid and figures then run
in this process."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from anonlab import cli
from anonlab.runner import pool


def declared(
    methods: tuple[str, ...],
    grid: dict[str, list[Any]],
    reps: int,
    figures: Any = (),
    study: bool = False,
    by_method: dict[str, dict[str, list[Any]]] | None = None,
    metrics: tuple[str, ...] = ("re", "jsd"),
) -> SimpleNamespace:
    """What :func:`~anonlab.cli.declared_jobs` and :func:`~anonlab.cli.declared_figures`
    read of a validated run."""
    return SimpleNamespace(
        methods=methods,
        grid=grid,
        grid_by_method=by_method or {},
        reps=reps,
        metrics=metrics,
        study=study,
        config={"figures": figures},
    )


#: census_ir as declared: k 2..100, three ε, three m, ten repetitions
CENSUS_IR = declared(
    ("laplace", "ir", "ir_laplace"),
    {"k": list(range(2, 101)), "epsilon": [0.1, 1.0, 10.0], "m": [1, 8, 13]},
    10,
    figures=({"name": "figure1_re"}, {"name": "figure1_jsd"}),
)
#: the README's study: three methods, four k, one ε, five repetitions, a figure per metric
STUDY = declared(
    ("ir", "ir_laplace", "mdav"), {"k": [2, 5, 10, 20], "epsilon": [1.0]}, 5, "auto", True
)


def test_declared_jobs_count_each_methods_own_axes():
    # laplace: 3 ε × 3 m; ir: 99 k × 3 m; ir_laplace: 99 × 3 × 3; each 10 repetitions
    assert cli.declared_jobs([CENSUS_IR]) == (9 + 297 + 891) * 10
    assert cli.declared_jobs([STUDY]) == (4 + 4 + 4) * 5
    own = declared(("ir", "mdav"), {"k": [2, 5]}, 3, by_method={"mdav": {"k": [3, 4, 5]}})
    assert cli.declared_jobs([own]) == (2 + 3) * 3


def test_declared_figures_of_a_study_are_one_per_metric():
    assert cli.declared_figures([CENSUS_IR]) == 2
    assert cli.declared_figures([STUDY]) == 2
    assert cli.declared_figures([declared(("ir",), {"k": [2]}, 1, figures=[])]) == 0


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(pool, "warm_up", lambda *args: calls.append(args))
    monkeypatch.setattr(pool, "running", lambda: bool(calls))
    return calls


def test_a_large_grid_starts_its_pool_before_it_is_built(started):
    cli.warm_pool({"n_jobs": 2}, [CENSUS_IR])
    assert started == [(2,)]


def test_a_small_grid_waits_for_its_plan_with_or_without_figures(started):
    cli.warm_pool({"n_jobs": 2}, [STUDY])
    cli.warm_pool({"n_jobs": 2, "figures": []}, [declared(STUDY.methods, STUDY.grid, 5)])
    assert started == []


def test_a_redraw_of_two_figures_starts_drawing_workers(started):
    cli.warm_pool({"n_jobs": 2, "plot_only": True}, [CENSUS_IR])
    assert started == [(2, pool.DRAWING_MODULES)]
    started.clear()
    one = declared(("ir",), {"k": [2]}, 1, figures=[{"name": "only"}])
    cli.warm_pool({"n_jobs": 2, "plot_only": True}, [one])
    assert started == []


@dataclass(frozen=True)
class Built:
    """What :func:`~anonlab.cli.sized` changes of a built experiment."""

    n_jobs: int
    notes: tuple[str, ...] = field(default_factory=tuple)


def test_small_work_runs_in_this_process_and_large_work_starts_the_pool(started):
    config = {"n_jobs": -1}
    small = cli.sized(config, [Built(-1), Built(1)], pool.POOL_SECONDS / 2)
    assert [e.n_jobs for e in small] == [1, 1] and started == []
    large = [Built(-1)]
    assert cli.sized(config, large, pool.POOL_SECONDS) == large
    assert len(started) == 1  # started now, with a run's modules
    assert cli.sized(config, large, pool.POOL_SECONDS * 10) == large
    assert len(started) == 1  # not twice


def test_a_redraw_and_a_dask_run_are_not_sized(started):
    built = [Built(-1)]
    assert cli.sized({"n_jobs": -1}, built, None) == built
    assert cli.sized({"runner": {"name": "dask"}}, built, 0.1) == built
    assert started == []
