"""iDP data sets, metrics and experiments: Census and Wine with their classes, the α axis,
the mean SSE of Eq. (5), the random-forest F-measure, and the four experiments end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import f1_score

from anonlab.datasets import build_dataset, load_dataset
from anonlab.methods import make_method
from anonlab.metrics import get_metric
from anonlab.metrics.classification import train_size
from anonlab.plotting import curve_means
from anonlab.runner import build_experiment, run_experiment
from anonlab.runner.execute import plan_jobs
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

CENSUS_IDP = [
    "AFNLWGT",
    "AGI",
    "EMCONTRB",
    "FEDTAX",
    "STATETAX",
    "TAXINC",
    "POTHVAL",
    "INTVAL",
    "FICA",
]


def small(n: int = 40, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"a": rng.gamma(2.0, 10.0, n), "b": rng.uniform(1, 50, n), "y": rng.uniform(0, 10, n)}
    )


def test_census_idp_and_wine_as_the_paper_describes(compose_config):
    census = load_dataset(compose_config("dataset=census_idp")["dataset"])
    assert census.n == 1080 and list(census.protected) == CENSUS_IDP
    # iDP §4.2.1: ERNVAL ≤ 30,000 vs > 30,000; the class is not an attribute
    assert census.target.value_counts().to_dict() == {">30K": 644, "<=30K": 436}
    wine = load_dataset(compose_config("dataset=wine")["dataset"])
    assert (wine.n, len(wine.protected)) == (4898, 11) and "quality" not in wine.frame
    counts = wine.target.value_counts()
    # iDP §4.2.2: "Not Excellent" has about 3.5 times more records than "Excellent"
    assert counts["Excellent"] == 1060 and counts["Not Excellent"] == 3838
    for dataset in (census, wine):
        for attr in dataset.attributes:  # iDP §4.1: [0, 1.5 · max] by default
            values = dataset.frame[attr.name]
            assert attr.domain == (0.0, pytest.approx(1.5 * values.max()))


def test_alpha_rebuilds_rule_domains_and_keeps_declared_ones():
    dataset = build_dataset("s", small(), ["a", "b"], domains={"b": [0, 100]})
    wide = dataset.with_alpha(3.0)
    assert wide.attribute("a").domain == (0.0, pytest.approx(3.0 * small()["a"].max()))
    assert wide.attribute("b").domain == (0.0, 100.0)
    with pytest.raises(ParameterError, match="alpha must be a number >= 1"):
        dataset.with_alpha(0.5)
    declared = build_dataset("s", small(), ["a"], domains={"a": [0, 100]})
    with pytest.raises(ParameterError, match="declares every domain"):
        declared.with_alpha(2.0)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            {"column": "zz", "threshold": 1, "labels": ["lo", "hi"]},
            "column 'zz' is not in the data",
        ),
        ({"column": "y", "threshold": "x", "labels": ["lo", "hi"]}, "threshold must be a number"),
        ({"column": "y", "threshold": 1, "labels": ["lo", "lo"]}, "two distinct names"),
        ({"column": "y", "threshold": 1, "labels": ["lo", "hi"], "above": 2}, "unknown key"),
    ],
)
def test_bad_target_is_refused(target, message):
    with pytest.raises(ParameterError, match=message):
        build_dataset("s", small(), ["a", "b"], target=target)


def test_mean_sse_is_eq5_as_printed():
    dataset = build_dataset("s", small(), ["a", "b"])
    release = make_method("idp_ls", {"k": 4, "epsilon": 1.0}).protect(
        dataset, np.random.default_rng(0)
    )
    x, y = dataset.protected_values, release.values
    sigma2 = [np.var(x[:, j], ddof=1) for j in range(2)]
    # iDP Eq. (5), one record at a time: d = (1/m) sqrt(Σ_j (|x_j − y_j| / σ_j²)²)
    distances = [
        (1 / 2) * np.sqrt(sum((abs(x[i, j] - y[i, j]) / sigma2[j]) ** 2 for j in range(2)))
        for i in range(dataset.n)
    ]
    expected = np.mean(np.square(distances))  # iDP Eq. (4) divided by n
    assert get_metric("sse_idp").of_release(dataset, release) == pytest.approx(expected)


def test_f_measure_trains_on_first_66_percent_of_release_and_tests_on_original():
    frame = small(n=60)
    dataset = build_dataset(
        "s", frame, ["a", "b"], target={"column": "y", "threshold": 5, "labels": ["lo", "hi"]}
    )
    release = make_method("idp_cbls", {"k": 5, "epsilon": 1.0}).protect(
        dataset, np.random.default_rng(1)
    )
    metric = get_metric("f_measure")
    scores = metric.of_release(dataset, release, np.random.default_rng(9))
    split = train_size(60)
    assert split == 39
    seed = int(np.random.default_rng(9).integers(2**31 - 1))
    forest = RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=seed)
    labels = dataset.target.to_numpy()
    forest.fit(release.values[:split], labels[:split])
    expected = f1_score(
        labels[split:],
        forest.predict(dataset.protected_values[split:]),
        labels=["hi", "lo"],
        average=None,
    )
    assert scores == pytest.approx({"hi": expected[0], "lo": expected[1]})
    assert metric.of_release(dataset, release, np.random.default_rng(9)) == scores
    with pytest.raises(TypeError, match="randomized"):
        metric.of_release(dataset, release)
    unlabeled = build_dataset("s", frame, ["a", "b"])
    with pytest.raises(ParameterError, match="has no dataset.target"):
        metric.of_release(unlabeled, release, np.random.default_rng(0))


def test_rf_experiment_grid_repeats_the_original_bound(compose_config):
    cfg = compose_config("+experiment=census_idp_rf", "grid.k=[10]", "reps=3")
    experiment = build_experiment(cfg)
    jobs = plan_jobs(experiment.cells, experiment.reps, experiment.metrics)
    originals = [job for job in jobs if job[1].method == "original"]
    # the forest is random: the bound is averaged over repetitions like the masked data
    assert len(originals) == 2 * 3  # α ∈ {1.5, 3.0} × 3 repetitions
    assert {c.method for c in experiment.cells} == {"original", "idp_ls", "idp_cbls"}


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["grid.k=[2,5]"], "method 'idp_cbls' needs k >= 3"),
        (["grid.alpha=[0.5]"], "grid.alpha=0.5: alpha must be a number >= 1"),
    ],
)
def test_idp_grid_errors_before_work(compose_config, overrides, message):
    cfg = compose_config("+experiment=census_idp_sse", *overrides)
    with pytest.raises(ParameterError, match=message):
        build_experiment(cfg)


def test_the_idp_methods_run_on_the_numerical_attributes_of_mixed_data(compose_config):
    experiment = build_experiment(
        compose_config("+experiment=census_idp_sse", "dataset=adult", "grid.k=[5]")
    )
    said = [n for n in experiment.notes if "runs on the numerical attributes of 'adult'" in n]
    assert len(said) == len({c.method for c in experiment.cells}) and "'occupation'" in said[0]


def rf_run(tmp_path: Path, compose_config, n_jobs: int):
    cfg = compose_config(
        "+experiment=census_idp_rf",
        "grid.k=[5,30]",
        "grid.epsilon=[1.0]",
        "grid.alpha=[1.5]",
        "reps=2",
        f"n_jobs={n_jobs}",
        f"results_dir={tmp_path / str(n_jobs)}",
    )
    experiment = build_experiment(cfg)
    return experiment, run_experiment(experiment, cfg, progress=False)


@pytest.mark.slow  # 7 s: the pool's byte-identity is checked on census_ir in test_cli.py
def test_rf_experiment_is_identical_on_any_number_of_workers(tmp_path, compose_config):
    one, _ = rf_run(tmp_path, compose_config, 1)
    two, _ = rf_run(tmp_path, compose_config, 2)
    assert one.results_path.read_bytes() == two.results_path.read_bytes()


@pytest.mark.slow  # a paper experiment end to end
def test_rf_experiment_runs(tmp_path, compose_config):
    experiment, table = rf_run(tmp_path, compose_config, 1)
    assert set(table["attribute"]) == {"<=30K", ">30K"}
    assert table["alpha"].dtype == float and set(table["alpha"]) == {1.5}
    assert table["value"].between(0, 1).all()
    assert (experiment.out_dir / "figures" / "figure5_f_measure.png").stat().st_size > 1000
    per_class = curve_means(table, "f_measure", by_attribute=True)  # what the figure draws
    assert len(per_class) == 2 * 5  # per class: original + 2 methods × 2 k
    gaps = pd.read_csv(experiment.out_dir / "tables" / "f_measure_gaps.csv")
    assert set(gaps["class"]) == {"<=30K", ">30K"} and len(gaps) == 4


@pytest.mark.slow  # a paper experiment end to end
def test_sse_experiment_orders_methods_at_eps_1(tmp_path, compose_config):
    cfg = compose_config(
        "+experiment=census_idp_sse",
        "grid.k=[20,60]",
        "grid.epsilon=[1.0]",
        "reps=3",
        "n_jobs=1",
        f"results_dir={tmp_path}",
    )
    experiment = build_experiment(cfg)
    table = run_experiment(experiment, cfg, progress=False)
    means = table.groupby(["method", "alpha"])["value"].mean()
    for alpha in (1.5, 3.0):  # iDP §4.1: DP > DP-UM > iDP-LS > iDP-CBLS
        order = [means[(m, alpha)] for m in ("dp", "dp_um", "idp_ls", "idp_cbls")]
        assert order == sorted(order, reverse=True)
    for method in ("dp", "dp_um", "idp_ls"):  # smaller domains, less noise
        assert means[(method, 1.5)] < means[(method, 3.0)]
    assert (experiment.out_dir / "figures" / "figure3_sse.pdf").is_file()
