"""TCM methods through the registry, metrics and table builders (TCM §8)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.experiments import tcm
from anonlab.methods import make_method
from anonlab.metrics import get_metric
from anonlab.runner import build_experiment, run_experiment

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


@pytest.mark.slow  # a paper experiment end to end
def test_tclose_sizes_runs_and_lays_out_the_three_tables(tmp_path, compose_config):
    cfg = compose_config(
        "+experiment=tclose_sizes",
        "grid.k=[5,30]",
        "grid.t=[0.05,0.25]",
        "n_jobs=2",
        f"results_dir={tmp_path}",
    )
    experiment = build_experiment(cfg)
    assert [d.name for d in experiment.datasets] == ["census_mcd", "census_hcd"]
    table = run_experiment(experiment, cfg, progress=False)
    values = table.pivot_table(
        index=["dataset", "method", "k", "t"], columns="metric", values="value"
    ).reset_index()
    assert (values["cluster_min"] >= values["k"]).all()
    # Algorithms 1 and 2 end with Algorithm 1's merging: t-close by construction
    merged = values[values["method"] != "tclose_tfirst"]
    assert (merged["max_emd"] <= merged["t"] + 1e-12).all()
    folder = experiment.out_dir / "tables"
    for number in (1, 2, 3):
        laid_out = pd.read_csv(folder / f"table{number}.csv")
        assert list(laid_out["k"]) == [2, 5, 10, 15, 20, 25, 30]
        assert laid_out.shape[1] == 15
    cells = tcm.compare(table, 3)
    run = cells.dropna(subset=["ours_min"])
    assert len(run) == 8 and run["match"].all()  # Table 3 is determined by n, k and t


def test_tcloseness_method_releases_centroids_and_keeps_the_confidential(compose_config):
    from anonlab.datasets import load_dataset

    data = load_dataset(compose_config("dataset=census_mcd")["dataset"])
    release = make_method("tclose_tfirst", {"k": 10, "t": 0.1}).protect(
        data, np.random.default_rng(0)
    )
    np.testing.assert_array_equal(release.frame["FEDTAX"], data.frame["FEDTAX"])
    labels = release.labels[:, 0]
    for column in ("TAXINC", "POTHVAL"):
        means = data.frame[column].groupby(labels).transform("mean")
        np.testing.assert_allclose(release.frame[column], means)
    assert get_metric("cluster_min").of_release(data, release) >= 10
    assert 0 < get_metric("sse_tcm").of_release(data, release) < 1


def test_t_out_of_range_is_named(compose_config):
    from anonlab.validation import ParameterError

    with pytest.raises(ParameterError, match="grid.t must be in \\(0, 1\\], got 1.5"):
        build_experiment(compose_config("+experiment=tclose_sizes", "grid.t=[1.5]"))


def test_tfirst_merged_is_t_close_where_algorithm_3_is_not():
    """Tied confidential values break Proposition 2 (TCM §7); merging afterwards restores
    t-closeness."""
    from anonlab.tcloseness import OrderedEMD
    from anonlab.tcloseness.tfirst import tclose_tfirst, tclose_tfirst_merged

    rng = np.random.default_rng(3)
    qi = rng.normal(size=(400, 3))
    confidential = rng.choice([1.0, 2.0, 3.0, 10.0], p=[0.6, 0.2, 0.15, 0.05], size=400)
    emd = OrderedEMD(confidential)
    plain = emd.of_partition(tclose_tfirst(qi, confidential, 2, 0.1)).max()
    merged = tclose_tfirst_merged(qi, confidential, 2, 0.1)
    assert plain > 0.1 >= emd.of_partition(merged).max() - 1e-12
    assert np.bincount(merged).min() >= 2
