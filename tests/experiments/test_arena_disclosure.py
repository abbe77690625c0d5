"""The arena's disclosure experiment (conf/experiment/arena_disclosure.yaml) composes and
builds, runs the arena's methods on the arena's data and Wine, states no paper claim, and
leaves the arena's own config as it was."""

from __future__ import annotations

import pytest

from anonlab import catalog
from anonlab.runner import build_experiment

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def test_it_builds_with_the_arenas_methods_data_and_a_classic_sweep(compose_config, tmp_path):
    config = compose_config(
        "+experiment=arena_disclosure", "profile=quick", "n_jobs=1", f"results_dir={tmp_path}"
    )
    arena = compose_config("+experiment=arena", f"results_dir={tmp_path}")
    experiment = build_experiment(config)
    assert [d.name for d in experiment.datasets] == [
        "census_arena",
        "adult_arena",
        "wine_arena",
    ]
    assert config["datasets"]["census"] == arena["datasets"]["census"]
    assert config["datasets"]["adult"] == arena["datasets"]["adult"]
    assert config["methods"] == arena["methods"]  # every method of the arena, classic ones too
    for method, options in arena["options"].items():  # the discrete sampler, as there
        assert config["options"][method] == options
    for method, axes in arena["grid_by_method"].items():  # k per method, as there
        assert config["grid_by_method"][method] == axes
    # the classic methods ignore ε: each gets six settings of its own axis, as ε has six
    wine = experiment.cells_of(experiment.datasets[2])
    settings = {m: [c.param_dict for c in wine if c.method == m] for m in ("rank_swap",)}
    assert settings == {"rank_swap": [{"p": p} for p in (1.0, 2.0, 5.0, 10.0, 15.0, 30.0)]}
    noise = {10.0, 25.0, 50.0, 100.0, 150.0, 250.0}
    for method in ("additive_noise", "correlated_noise"):
        assert {c.param_dict["noise"] for c in wine if c.method == method} == noise
    assert [c.param_dict["epsilon"] for c in wine if c.method == "laplace"] == [0.1, 1.0, 10.0]
    assert [name for name, _ in experiment.tables] == ["disclosure"]
    for attack in ("singling_out", "linkability", "attribute_inference"):
        assert experiment.metric_options[attack]["report"] == "rates"
        # the arena keeps one risk row per attack, which its Figure 3 reads
        assert "report" not in (arena["options"].get(attack) or {})


def test_it_is_its_own_experiment_left_out_of_all(compose_config, tmp_path):
    """At the papers' grid it would add about half an hour to ``+experiment=all``: it is
    an experiment of its own (no paper, no claim), run by name."""
    assert "arena_disclosure" not in catalog.experiment_names()
    config = compose_config("+experiment=arena_disclosure", f"results_dir={tmp_path}")
    assert config["experiment"]["paper"] is None and not config.get("claims")
    assert [t["tables"] for t in config["experiment"]["targets"]] == [["disclosure"]]


def test_the_categorical_table_sweeps_pram_beside_the_methods_for_text_columns(
    compose_config, tmp_path
):
    """PRAM needs declared categories, which the arena's data sets lack: its table of its
    own runs it on Adult's taxonomy attributes beside every method that releases them."""
    assert "arena_disclosure_categorical" not in catalog.experiment_names()
    config = compose_config(
        "+experiment=arena_disclosure_categorical", "n_jobs=1", f"results_dir={tmp_path}"
    )
    experiment = build_experiment(config)
    (adult,) = experiment.datasets
    assert adult.name == "adult"
    assert set(config["dataset"]["categorical"]) == {"occupation", "native-country"}
    cells = experiment.cells_of(adult)
    assert [c.param_dict["pd"] for c in cells if c.method == "pram"] == [
        0.5, 0.6, 0.7, 0.8, 0.9, 0.95
    ]  # fmt: skip
    assert [c.param_dict["epsilon"] for c in cells if c.method == "mst"] == [
        0.1, 0.5, 1.0, 2.0, 5.0, 10.0
    ]  # fmt: skip
    assert "record_linkage" not in config["metrics"]  # numerical attributes only
    assert [name for name, _ in experiment.tables] == ["disclosure"]
