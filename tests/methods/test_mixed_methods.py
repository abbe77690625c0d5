"""Methods on mixed numerical and categorical data (DP-IR §3.4, Algorithm 2) on Adult."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset, load_dataset
from anonlab.methods import METHODS, make_method
from anonlab.metrics import get_metric
from anonlab.semantics import marginality_centroids
from anonlab.validation import ParameterError


@pytest.fixture(scope="module")
def adult_sample(request):
    """2,000 Adult records with the four DP-IR attributes (m = 4)."""
    config = {
        "name": "adult",
        "loader": "adult",
        "discrete": True,
        "attributes": ["age", "hours-per-week", "occupation", "native-country"],
        "categorical": {"occupation": "adult_occupation", "native-country": "adult_native_country"},
    }
    full = load_dataset(config)
    frame = full.frame.sample(2000, random_state=0).reset_index(drop=True)
    return build_dataset(
        "adult",
        frame,
        config["attributes"],
        discrete=True,
        categorical=config["categorical"],
        integer=True,  # age and hours per week are whole numbers (adult.yaml)
    )


def test_adult_mixed_loads_every_record():
    config = {
        "loader": "adult",
        "attributes": ["occupation", "native-country"],
        "categorical": {"occupation": "adult_occupation", "native-country": "adult_native_country"},
    }
    data = load_dataset(config)
    assert data.n == 30_162
    assert [a.kind for a in data.attributes] == ["categorical", "categorical"]
    assert len(np.unique(data.protected_values[:, 0])) == 14
    assert len(np.unique(data.protected_values[:, 1])) == 41


def test_unknown_category_is_named():
    frame = pd.DataFrame({"occupation": ["Sales", "Astronaut"]})
    with pytest.raises(ParameterError, match="holds 'Astronaut' at row 1"):
        build_dataset("t", frame, ["occupation"], categorical={"occupation": "adult_occupation"})


@pytest.mark.parametrize(
    "name", [n for n, c in METHODS.items() if "record-aligned" in c.tags() and not c.numeric_only]
)
def test_releases_are_taxonomy_concepts_and_numbers_in_domain(adult_sample, name):
    release = make_method(name, {"k": 25, "epsilon": 1.0}).protect(
        adult_sample, np.random.default_rng(0)
    )
    for attr in adult_sample.protected_attributes:
        column = release.frame[attr.name]
        if attr.categorical:
            known = set(attr.taxonomy.labels) | set(attr.taxonomy.nodes)
            assert set(column) <= known
        else:
            assert column.between(*attr.domain).all()
            if name != "ir" and name != "imdav":
                assert (column == column.round()).all()


def test_ir_laplace_draws_one_category_per_cluster(adult_sample):
    """DP-IR Algorithm 2: one exponential-mechanism centroid per cluster, shared by it."""
    release = make_method("ir_laplace", {"k": 40, "epsilon": 1.0}).protect(
        adult_sample, np.random.default_rng(1)
    )
    for j in (2, 3):
        labels, values = release.cluster_labels[:, j], release.values[:, j]
        for cluster in range(labels.max() + 1):
            assert len(np.unique(values[labels == cluster])) == 1
        assert np.bincount(labels).min() >= 40


def test_ir_categorical_centroids_are_marginality_centroids(adult_sample):
    release = make_method("ir", {"k": 40}).protect(adult_sample, np.random.default_rng(0))
    j = 2
    taxonomy = adult_sample.protected_attributes[j].taxonomy
    codes = adult_sample.protected_values[:, j].astype(int)
    labels = release.cluster_labels[:, j]
    expected = marginality_centroids(taxonomy, codes, labels, labels.max() + 1)[labels]
    np.testing.assert_array_equal(release.values[:, j], expected)


def test_large_epsilon_exponential_mechanism_finds_the_centroid(adult_sample):
    """With ε huge the exponential mechanism picks the least marginal concept of τ(A),
    whose marginality is at most that of the Eq. 5 centroid."""
    private = make_method("ir_laplace", {"k": 100, "epsilon": 1e6}).protect(
        adult_sample, np.random.default_rng(0)
    )
    plain = make_method("ir", {"k": 100}).protect(adult_sample, np.random.default_rng(0))
    re = get_metric("re")
    attrs = adult_sample.protected_attributes[2:]
    original = adult_sample.protected_values[:, 2:]
    assert (
        re.evaluate(original, private.values[:, 2:], attrs)
        <= re.evaluate(original, plain.values[:, 2:], attrs) + 1e-12
    )


def test_categorical_relative_error_is_semantic_distance(adult_sample):
    attr = adult_sample.protected_attributes[2]
    codes = adult_sample.protected_values[:, 2]
    moved = np.full_like(codes, attr.taxonomy.index[attr.taxonomy.root])
    expected = attr.taxonomy.distances[codes.astype(int), attr.taxonomy.index[attr.taxonomy.root]]
    value = get_metric("re").per_attribute(codes[:, None], moved[:, None], [attr])[0]
    assert value == pytest.approx(expected.mean()) and value > 0


def test_variance_change_refuses_categorical(adult_sample):
    with pytest.raises(ParameterError, match="not defined for the categorical"):
        get_metric("variance_change").evaluate(
            adult_sample.protected_values,
            adult_sample.protected_values,
            adult_sample.protected_attributes,
        )


def test_mdav_refuses_categorical(adult_sample):
    with pytest.raises(ParameterError, match="numerical attributes only"):
        make_method("mdav", {"k": 5}).protect(adult_sample, np.random.default_rng(0))
