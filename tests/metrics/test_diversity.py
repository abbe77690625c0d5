"""l-diversity (Machanavajjhala et al. 2007) and the t-closeness guarantee's levels per
unit (cluster, released equivalence class) and ground, against pandas and scipy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import entropy

import anonlab
from anonlab.datasets import build_dataset
from anonlab.methods.base import Release
from anonlab.metrics import get_metric
from anonlab.partition import class_labels, distinct_l, entropy_l, levels
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

PEOPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "people.csv"
QIS = ["age", "hours.week"]
ROLES = {"age": "quasi_identifier", "hours.week": "quasi_identifier", "balance.eur": "confidential"}
DOMAINS = {"age": [0, 120], "hours.week": [0, 100], "balance.eur": [-20000, 20000]}


def test_distinct_and_entropy_l_by_hand():
    groups = np.array([0, 0, 0, 1, 1, 1, 1])
    values = np.array([5.0, 5.0, 7.0, 1.0, 2.0, 3.0, 4.0])
    assert distinct_l(groups, [values]) == 2
    # group 0 has the least entropy, of (2/3, 1/3)
    assert entropy_l(groups, [values]) == pytest.approx(np.exp(entropy([2, 1])), rel=1e-15)
    # several confidential attributes: each alone, the least l
    other = np.array([1.0, 2.0, 3.0, 9.0, 9.0, 9.0, 9.0])
    assert distinct_l(groups, [values, other]) == 1
    assert entropy_l(groups, [values, other]) == 1.0


def test_levels_per_cluster_and_per_class_when_centroids_coincide():
    """Clusters 0 and 1 are released with the same centroid: one class of four records,
    whose k, distinct l and entropy l are at least, and t at most, the clusters'."""
    frame = pd.DataFrame({"q": [1.0, 3.0, 0.0, 4.0, 8.0, 9.0], "c": [1.0, 1.0, 4.0, 4.0, 2.0, 3.0]})
    view = build_dataset(
        "t", frame, ["q", "c"], roles={"q": "quasi_identifier", "c": "confidential"}
    )
    labels = np.repeat(np.array([0, 0, 1, 1, 2, 2])[:, None], 2, axis=1)
    released = np.column_stack([[2.0, 2.0, 2.0, 2.0, 8.5, 8.5], frame["c"]])
    np.testing.assert_array_equal(class_labels(view, released), [0, 0, 0, 0, 1, 1])
    by = {(x.unit, x.ground): x for x in levels(view, labels, released, ("rank", "distinct"))}
    cluster, group = by["cluster", "distinct"], by["class", "distinct"]
    assert (cluster.k, cluster.l, cluster.entropy_l) == (2, 1, 1.0)
    assert (group.k, group.l) == (2, 2)
    assert group.entropy_l == pytest.approx(2.0, rel=1e-15)
    # distinct ground, values 1..4 with CDF (1/3, 1/2, 2/3, 1): cluster {1, 1} has gaps
    # (2/3, 1/2, 1/3, 0) over m − 1 = 3, EMD 1/2; class {2, 3} gaps (1/3, 0, 1/3, 0), 2/9
    assert cluster.t == pytest.approx(0.5, rel=1e-15)
    assert group.t == pytest.approx(2 / 9, rel=1e-15)
    assert by["class", "rank"].t <= by["cluster", "rank"].t


def test_tclose_release_states_its_levels_on_both_units():
    """The class levels are those pandas reads off the released frame: smallest group,
    fewest distinct confidential values, least entropy of a group (scipy's)."""
    frame = pd.read_csv(PEOPLE)
    released = anonlab.protect(
        frame,
        "tclose_tfirst",
        ["age", "hours.week", "balance.eur"],
        domains=DOMAINS,
        roles=ROLES,
        k=4,
        t=0.3,
        ground="rank",
    )
    stated = released.attrs["guarantee"]
    assert stated["ground"] == "rank" and stated["ties"] == "record_order"
    by = {(x["unit"], x["ground"]): x for x in stated["levels"]}
    assert set(by) == {(u, g) for u in ("cluster", "class") for g in ("rank", "distinct")}
    cluster = by["cluster", "rank"]
    assert (cluster["k"], cluster["t"], cluster["l"]) == (stated["k"], stated["t"], stated["l"])
    groups = released.groupby(QIS)["balance.eur"]
    for ground in ("rank", "distinct"):
        group = by["class", ground]
        assert group["k"] == groups.size().min()
        assert group["l"] == groups.nunique().min()
        least = groups.apply(lambda v: entropy(v.value_counts().to_numpy())).min()
        assert group["entropy_l"] == pytest.approx(np.exp(least), rel=1e-13)
        assert group["t"] <= by["cluster", ground]["t"] + 1e-15


def test_l_metrics_measure_the_released_classes_or_the_clusters():
    frame = pd.read_csv(PEOPLE)
    view = build_dataset("people", frame, ["age", "hours.week", "balance.eur"], roles=ROLES)
    method = anonlab.methods.make_method("tclose_tfirst", {"k": 4, "t": 0.3})
    release = method.release(view, np.random.default_rng(0))
    for unit in ("class", "cluster"):
        stated = next(x for x in release.guarantee.levels if x.unit == unit)
        distinct = get_metric("l_distinct", {"unit": unit}).of_release(view, release)
        assert distinct == stated.l
        assert get_metric("l_entropy", {"unit": unit}).of_release(view, release) == (
            stated.entropy_l
        )
    per_column = Release(view, release.values, labels=np.arange(3 * view.n).reshape(-1, 3))
    with pytest.raises(ParameterError, match="unit 'cluster' needs a record-level partition"):
        get_metric("l_distinct", {"unit": "cluster"}).of_release(view, per_column)
    with pytest.raises(ParameterError, match="options.l_entropy.unit"):
        get_metric("l_entropy", {"unit": "record"})
