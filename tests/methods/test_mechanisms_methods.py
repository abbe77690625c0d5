"""The Laplace mechanism and the laplace / ir / ir_laplace methods (DP-IR §2.2, §3.2–§3.3).

Checks that Algorithm 1 shares one Laplace draw per cluster and attribute, that the scales
are m·Δ(A_i)/(k·ε) and m·Δ(A_i)/ε (§3.3), that releases stay in the attribute domains
(§4.1), are reproducible from the seed and rounded for integer attributes (§4.3), and that
the mechanism's noise really has the Laplace distribution of scale Δ/ε.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from anonlab.datasets import Dataset, build_dataset
from anonlab.mechanisms import LaplaceMechanism
from anonlab.methods import make_method
from anonlab.microaggregation import individual_ranking
from anonlab.validation import ParameterError
from tests.properties import examples

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SETTINGS = settings(max_examples=examples(80))

LOWS = st.sampled_from([-50.0, 0.0, 3.25])
WIDTHS = st.sampled_from([1.0, 10.0, 250.5])
METHOD_NAMES = ("laplace", "ir", "ir_laplace")


def build(
    columns: dict[str, np.ndarray],
    domains: dict[str, list[float]] | None = None,
    protect: int | None = None,
    integer: list[str] | bool | None = None,
) -> Dataset:
    """A :class:`Dataset` of the given columns, protecting the first ``protect`` of them
    (``integer``: the columns declared whole-numbered)."""
    data = build_dataset(
        "t", pd.DataFrame(columns), list(columns), domains=domains, integer=integer
    )
    return data if protect is None else data.protect_first(protect)


def method(name: str, k: int = 2, epsilon: float = 1.0):
    return make_method(name, {"k": k, "epsilon": epsilon})


def protected_values(release, data: Dataset) -> np.ndarray:
    return release.frame[list(data.protected)].to_numpy(dtype=float)


@st.composite
def datasets(draw, interior: bool = False, max_n: int = 30) -> Dataset:
    """n records, 1..3 attributes with declared domains, the first m protected.

    Values are floats or whole numbers in the domain, with the bounds themselves among
    them; ``interior`` keeps float values in the middle half of the domain instead.
    """
    n = draw(st.integers(2, max_n))
    n_attributes = draw(st.integers(1, 3))
    columns, domains = {}, {}
    for a in range(n_attributes):
        low, width = draw(LOWS), draw(WIDTHS)
        high = low + width
        if interior:
            elements = st.floats(low + width / 4, high - width / 4, allow_nan=False)
        elif draw(st.booleans()) and math.ceil(low) <= math.floor(high):
            elements = st.integers(math.ceil(low), math.floor(high))
        else:
            bounds = st.sampled_from([low, high])
            elements = st.one_of(st.floats(low, high, allow_nan=False), bounds)
        columns[f"a{a}"] = np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=float)
        domains[f"a{a}"] = [low, high]
    return build(columns, domains, protect=draw(st.integers(1, n_attributes)))


def ks(data: Dataset) -> st.SearchStrategy[int]:
    return st.integers(1, data.n)


# --- DP-IR Algorithm 1: one draw per cluster and attribute ----------------------------


@SETTINGS
@given(st.data(), datasets(), st.sampled_from([1e-3, 0.5, 5.0, 1e4]), st.integers(0, 2**32))
def test_ir_laplace_releases_one_value_per_cluster(draw, data, epsilon, seed):
    """DP-IR Algorithm 1 step 2 and note: every record of a cluster gets the same noisy
    centroid, so an attribute takes at most ⌊n/k⌋ distinct released values; the clusters
    are those of individual ranking (§2.1)."""
    k = draw.draw(ks(data))
    release = method("ir_laplace", k, epsilon).protect(data, np.random.default_rng(seed))
    released = protected_values(release, data)
    expected = individual_ranking(data.protected_values, k).labels
    np.testing.assert_array_equal(release.cluster_labels, expected)
    for a in range(len(data.protected)):
        assert len(np.unique(released[:, a])) <= data.n // k
        for j in range(data.n // k):
            assert len(np.unique(released[release.cluster_labels[:, a] == j, a])) == 1


@SETTINGS
@given(st.data(), datasets(interior=True), st.integers(0, 2**32))
def test_ir_laplace_noise_is_one_independent_draw_per_cluster(draw, data, seed):
    """DP-IR Algorithm 1: released − centroid is one noise value per cluster, different
    for different clusters and attributes (independent draws, not one draw for all).
    ε is large enough that the noise never reaches the domain bounds, so clipping and
    rounding cannot hide it."""
    k = draw.draw(ks(data))
    m = len(data.protected)
    epsilon = 1000.0 * m
    release = method("ir_laplace", k, epsilon).protect(data, np.random.default_rng(seed))
    ranking = individual_ranking(data.protected_values, k)
    noise = protected_values(release, data) - ranking.release()
    per_cluster = []
    for a, attr in enumerate(data.protected_attributes):
        if attr.integer:  # whole-number data is rounded; covered by the rounding tests
            continue
        values = [np.unique(noise[ranking.labels[:, a] == j, a]) for j in range(data.n // k)]
        assert all(len(v) == 1 for v in values), "records of a cluster got different noise"
        column = np.array([v[0] for v in values])
        assert len(np.unique(column)) == data.n // k, "clusters share a noise draw"
        assert np.all(column != 0.0)
        assert np.all(np.abs(column) <= 60 * release.scale[a])
        per_cluster.append(column)
    for first in range(len(per_cluster)):
        for second in range(first + 1, len(per_cluster)):
            assert not np.array_equal(per_cluster[first], per_cluster[second])


def test_ir_laplace_per_cluster_noise_has_scale_m_delta_over_k_epsilon():
    """DP-IR Algorithm 1 with §3.3: the per-cluster noise actually added is Laplace of
    scale m·Δ(A_i)/(k·ε). Its mean absolute deviation over 2000 clusters per attribute is
    within 8% of that, which rules out Δ/(kε) (no m), mΔ/ε (no k) and mΔ/(k²ε)."""
    rng = np.random.default_rng(20240601)
    n, k, epsilon = 6000, 3, 200.0
    domains = {"x": [0.0, 10.0], "y": [-5.0, 995.0]}
    columns = {
        name: low + (high - low) * rng.uniform(0.3, 0.7, n) for name, (low, high) in domains.items()
    }
    data = build(columns, domains)
    release = method("ir_laplace", k, epsilon).protect(data, np.random.default_rng(7))
    ranking = individual_ranking(data.protected_values, k)
    noise = protected_values(release, data) - ranking.release()
    first_of_cluster = np.array(
        [np.flatnonzero(ranking.labels[:, a] == j)[0] for j in range(n // k) for a in range(2)]
    ).reshape(-1, 2)
    for a, width in enumerate([10.0, 1000.0]):
        scale = 2 * width / (k * epsilon)
        draws = noise[first_of_cluster[:, a], a]
        assert np.mean(np.abs(draws)) == pytest.approx(scale, rel=0.08)
        assert stats.kstest(draws, stats.laplace(scale=scale).cdf).pvalue > 1e-3
        for wrong in (scale / 2, scale * k, scale / k):
            assert abs(np.mean(np.abs(draws)) - wrong) > 0.1 * wrong


def test_laplace_method_noise_has_scale_m_delta_over_epsilon():
    """DP-IR §3.3 item 1: plain Laplace adds independent noise of scale m·Δ(A_i)/ε to
    every value; the empirical MAD over 2000 records per attribute is within 8% of it."""
    rng = np.random.default_rng(20240602)
    n, epsilon = 2000, 400.0
    domains = {"x": [0.0, 10.0], "y": [-5.0, 995.0]}
    columns = {
        name: low + (high - low) * rng.uniform(0.3, 0.7, n) for name, (low, high) in domains.items()
    }
    data = build(columns, domains)
    release = method("laplace", epsilon=epsilon).protect(data, np.random.default_rng(8))
    noise = protected_values(release, data) - data.protected_values
    for a, width in enumerate([10.0, 1000.0]):
        scale = 2 * width / epsilon
        assert np.mean(np.abs(noise[:, a])) == pytest.approx(scale, rel=0.08)
        assert stats.kstest(noise[:, a], stats.laplace(scale=scale).cdf).pvalue > 1e-3
        assert abs(np.mean(np.abs(noise[:, a])) - scale / 2) > 0.1 * scale / 2


# --- reported scales (DP-IR §3.3) -----------------------------------------------------


@SETTINGS
@given(st.data(), datasets(), st.floats(1e-3, 1e3))
def test_reported_scales_follow_section_3_3(draw, data, epsilon):
    """DP-IR §3.3: with m protected attributes, ir_laplace uses m·Δ(A_i)/(k·ε) (item 2,
    with Δ(A_i^M) = Δ(A_i)/k by Lemma 1) and laplace m·Δ(A_i)/ε (item 1); ir adds no
    noise. Unprotected attributes do not count in m."""
    k = draw.draw(ks(data))
    m = len(data.protected)
    widths = np.array([a.domain[1] - a.domain[0] for a in data.protected_attributes])
    rng = np.random.default_rng(0)
    ir_laplace = method("ir_laplace", k, epsilon).protect(data, rng)
    np.testing.assert_allclose(ir_laplace.scale, m * widths / (k * epsilon), rtol=1e-12)
    laplace = method("laplace", k, epsilon).protect(data, rng)
    np.testing.assert_allclose(laplace.scale, m * widths / epsilon, rtol=1e-12)
    assert laplace.labels is None
    ir = method("ir", k, epsilon).protect(data, rng)
    assert ir.scale is None
    assert ir.cluster_labels.shape == ir_laplace.cluster_labels.shape == (data.n, m)


# --- domain, unprotected columns, reproducibility -------------------------------------


@SETTINGS
@given(st.data(), datasets(), st.sampled_from([1e-3, 0.1, 1.0, 100.0]), st.integers(0, 2**32))
def test_every_release_lies_in_the_domain(draw, data, epsilon, seed):
    """DP-IR §4.1: noisy outputs are bounded to the attribute domains, even at ε = 1e-3
    where the noise is far wider than the domain; centroids lie in the domain because
    they are means of values in it. Unprotected attributes are released unchanged."""
    k = draw.draw(ks(data))
    low = np.array([a.domain[0] for a in data.protected_attributes])
    high = np.array([a.domain[1] for a in data.protected_attributes])
    for name in METHOD_NAMES:
        release = method(name, k, epsilon).protect(data, np.random.default_rng(seed))
        released = protected_values(release, data)
        assert released.shape == (data.n, len(data.protected))
        assert np.all(np.isfinite(released))
        assert np.all(released >= low), name
        assert np.all(released <= high), name
        pd.testing.assert_index_equal(release.frame.columns, data.frame.columns)
        others = [c for c in data.frame.columns if c not in data.protected]
        pd.testing.assert_frame_equal(release.frame[others], data.frame[others])


def test_ir_centroid_of_values_at_the_bound_stays_in_the_domain():
    """DP-IR §4.1: a constant column at the domain's upper bound is released at (not one
    ulp past) that bound, although the float mean of three 0.1 is 0.10000000000000002."""
    data = build({"x": np.full(3, 0.1)}, {"x": [0.0, 0.1]})
    release = method("ir", k=3).protect(data, np.random.default_rng(0))
    assert protected_values(release, data).max() <= 0.1


@SETTINGS
@given(datasets(interior=True), st.floats(50.0, 1e4), st.integers(0, 2**31))
def test_seed_determines_the_release(data, epsilon, seed):
    """Reproducibility: the same seed gives identical releases; a different seed gives a
    different release for the randomised methods and the same one for deterministic ir.
    ε ≥ 50·m keeps noise inside the domain, so two seeds cannot clip to equal frames."""
    assume(any(not a.integer for a in data.protected_attributes))
    epsilon *= len(data.protected)
    k = max(1, data.n // 3)
    for name in METHOD_NAMES:
        protector = method(name, k, epsilon)
        first = protector.protect(data, np.random.default_rng(seed)).frame
        again = protector.protect(data, np.random.default_rng(seed)).frame
        other = protector.protect(data, np.random.default_rng(seed + 1)).frame
        pd.testing.assert_frame_equal(first, again, check_exact=True)
        assert protector.randomized == (name != "ir")
        if protector.randomized:
            assert not first.equals(other), name
        else:
            pd.testing.assert_frame_equal(first, other, check_exact=True)


# --- integer attributes (DP-IR §4.3) --------------------------------------------------


@SETTINGS
@given(
    st.lists(st.integers(0, 120), min_size=4, max_size=30),
    st.data(),
    st.sampled_from([1e-3, 0.1, 1.0, 10.0, 1e3]),
    st.integers(0, 2**32),
)
def test_integer_attributes_are_rounded_after_noise(ages, draw, epsilon, seed):
    """DP-IR §4.3: attributes declared whole-numbered are released as whole numbers by the
    noisy methods (noise, then rounding); real-valued attributes are not rounded, and ir's
    centroids are released as computed."""
    n = len(ages)
    incomes = np.linspace(20000.5, 80000.25, n)
    data = build(
        {"age": np.array(ages, dtype=float), "income": incomes},
        {"age": [0, 120], "income": [0, 1e5]},
        integer=["age"],
    )
    assert [a.integer for a in data.attributes] == [True, False]
    k = draw.draw(st.integers(1, n))
    for name in ("laplace", "ir_laplace"):
        release = method(name, k, epsilon).protect(data, np.random.default_rng(seed))
        age = release.frame["age"].to_numpy()
        np.testing.assert_array_equal(age, np.round(age))
        assert np.all((age >= 0) & (age <= 120))
        if epsilon == 1e3:  # income noise scale ≤ 200, far from the bounds: no clipping
            income = release.frame["income"].to_numpy()
            assert np.any(income != np.round(income)), name
    ir = method("ir", k).protect(data, np.random.default_rng(seed)).frame["age"].to_numpy()
    np.testing.assert_allclose(ir, individual_ranking(np.array(ages, float), k).release()[:, 0])


def test_noise_changes_integer_attributes_before_rounding():
    """DP-IR §4.3: rounding is post-processing of a noisy value, not a replacement of
    the noise: at ε = 1 on a [0, 120] domain the rounded ages differ from the originals."""
    ages = np.arange(20.0, 80.0)
    data = build({"age": ages}, {"age": [0, 120]})
    for name in ("laplace", "ir_laplace"):
        age = method(name, 2, 1.0).protect(data, np.random.default_rng(3)).frame["age"]
        assert np.mean(age.to_numpy() != ages) > 0.5, name


def test_integer_attribute_stays_integer_with_a_non_integer_domain_bound():
    """DP-IR §4.1 domain [0, 1.5·max] with max = 7 gives the bound 10.5; an integer
    attribute released at ε = 1e-3 (clipped to the bounds) is still whole, at most 10."""
    data = build({"a": np.array([1.0, 3.0, 7.0] * 5)}, integer=True)
    assert data.attributes[0].integer and data.attributes[0].domain == (0.0, 10.5)
    for name in ("laplace", "ir_laplace"):
        a = method(name, 3, 1e-3).protect(data, np.random.default_rng(0)).frame["a"]
        np.testing.assert_array_equal(a, np.round(a))
        assert a.max() == 10.0


# --- parameter validation -------------------------------------------------------------


BAD_EPSILONS = [
    (0.0, ParameterError),
    (-1.0, ParameterError),
    (float("nan"), ParameterError),
    (float("inf"), ParameterError),
    (True, TypeError),
    ("1", TypeError),
    (None, TypeError),
]


@pytest.mark.parametrize(("epsilon", "error"), BAD_EPSILONS)
def test_bad_epsilon_is_rejected(epsilon, error):
    """ε must be a finite real number > 0 (bool is not a number here), for the mechanism
    and for both noisy methods."""
    with pytest.raises(error):
        LaplaceMechanism(1.0, epsilon)
    for name in ("laplace", "ir_laplace"):
        with pytest.raises(error):
            make_method(name, {"k": 2, "epsilon": epsilon})


@pytest.mark.parametrize(
    ("k", "error"), [(0, ParameterError), (-2, ParameterError), (1.5, TypeError), (True, TypeError)]
)
def test_bad_k_is_rejected(k, error):
    """k must be an integer ≥ 1."""
    for name in ("ir", "ir_laplace"):
        with pytest.raises(error):
            make_method(name, {"k": k, "epsilon": 1.0})


def test_k_larger_than_n_and_negative_sensitivity_are_rejected():
    """k ≤ n is checked against the data; a Laplace sensitivity must be ≥ 0; a method
    without its parameters is a TypeError."""
    data = build({"x": np.array([1.5, 2.5, 3.5])}, {"x": [0, 5]})
    for name in ("ir", "ir_laplace"):
        with pytest.raises(ParameterError):
            method(name, k=4).protect(data, np.random.default_rng(0))
    with pytest.raises(ParameterError):
        LaplaceMechanism(-1.0, 1.0)
    with pytest.raises(ParameterError):
        LaplaceMechanism(np.array([1.0, -0.5]), 1.0)
    with pytest.raises(TypeError):
        make_method("ir_laplace", {"k": 2})


@pytest.mark.parametrize("sensitivity", [float("nan"), float("inf"), [1.0, float("nan")]])
def test_non_finite_sensitivity_is_rejected(sensitivity):
    """A NaN or infinite sensitivity would release NaN or infinite noise."""
    with pytest.raises(ParameterError, match="sensitivity must be finite"):
        LaplaceMechanism(np.asarray(sensitivity), 1.0)


def test_infinite_declared_domain_is_rejected():
    """An infinite domain bound gives an infinite Δ(A) and so infinite noise scales."""
    with pytest.raises(ParameterError, match=r"dataset.domains.x=.*bounds must be finite"):
        build({"x": np.array([1.0, 2.0])}, {"x": [0, float("inf")]})


# --- the Laplace mechanism (DP-IR §2.2) -----------------------------------------------

N_DRAWS = 200_000


def test_laplace_noise_matches_its_scale_variance_and_distribution():
    """DP-IR §2.2: noise is Laplace(0, b) with b = Δ/ε: over 200k draws the mean absolute
    deviation is within 1% of b, the variance within 3% of 2b², the mean near 0, and a
    Kolmogorov–Smirnov test against Laplace(0, b) does not reject at 1e-3."""
    mechanism = LaplaceMechanism(2.5, 0.7)
    scale = 2.5 / 0.7
    assert mechanism.scale == pytest.approx(scale, rel=1e-15)
    assert mechanism.variance == pytest.approx(2 * scale**2, rel=1e-15)
    draws = mechanism.noise((N_DRAWS,), np.random.default_rng(12345))
    assert draws.shape == (N_DRAWS,)
    assert np.mean(np.abs(draws)) == pytest.approx(mechanism.scale, rel=0.01)
    assert np.var(draws) == pytest.approx(mechanism.variance, rel=0.03)
    assert abs(np.mean(draws)) < 5 * math.sqrt(2) * scale / math.sqrt(N_DRAWS)
    assert stats.kstest(draws, stats.laplace(scale=scale).cdf).pvalue > 1e-3


@pytest.mark.parametrize("wrong_factor", [0.5, 2.0])
def test_laplace_noise_rejects_wrong_scales(wrong_factor):
    """DP-IR §2.2: the draws do not fit Δ/(2ε) or 2Δ/ε: the MAD is more than 10% away
    from those scales and a KS test against them rejects at 1e-3."""
    mechanism = LaplaceMechanism(1.0, 0.5)
    draws = mechanism.noise((N_DRAWS,), np.random.default_rng(999))
    wrong = wrong_factor * 1.0 / 0.5
    assert abs(np.mean(np.abs(draws)) - wrong) > 0.1 * wrong
    assert stats.kstest(draws, stats.laplace(scale=wrong).cdf).pvalue < 1e-3


def test_laplace_scale_broadcasts_over_attributes():
    """DP-IR §3.3: one scale per attribute, broadcast over the last axis: each column's
    MAD is within 1% of its own Δ_a/ε, and randomise adds exactly that noise."""
    sensitivity = np.array([1.0, 10.0, 100.0])
    mechanism = LaplaceMechanism(sensitivity, 2.0)
    np.testing.assert_allclose(mechanism.scale, sensitivity / 2.0, rtol=1e-15)
    np.testing.assert_allclose(mechanism.variance, 2 * (sensitivity / 2.0) ** 2, rtol=1e-15)
    draws = mechanism.noise((N_DRAWS // 3, 3), np.random.default_rng(4))
    np.testing.assert_allclose(np.mean(np.abs(draws), axis=0), sensitivity / 2.0, rtol=0.01)
    values = np.arange(30.0).reshape(10, 3)
    noisy = mechanism.randomise(values, np.random.default_rng(5))
    noise = mechanism.noise(values.shape, np.random.default_rng(5))
    np.testing.assert_allclose(noisy, values + noise, rtol=1e-12, atol=1e-12)
    zero = LaplaceMechanism(0.0, 1.0).randomise(values, np.random.default_rng(6))
    np.testing.assert_array_equal(zero, values)


@pytest.mark.parametrize("rows", [0, 1, 4095, 4096, 4097, 10_000])
def test_randomise_into_out_draws_the_same_noise_in_chunks(rows):
    """Drawing into ``out`` (chunk by chunk, possibly in place) gives the same bits and
    leaves the generator in the same state as one full-size draw."""
    values = np.random.default_rng(1).normal(size=(rows, 3))
    mechanism = LaplaceMechanism(np.array([1.0, 2.0, 0.5]), 0.7)
    whole_rng, chunk_rng = np.random.default_rng(9), np.random.default_rng(9)
    whole = mechanism.randomise(values, whole_rng)
    in_place = values.copy()
    assert mechanism.randomise(in_place, chunk_rng, out=in_place) is in_place
    assert whole.tobytes() == in_place.tobytes()
    assert whole_rng.bit_generator.state == chunk_rng.bit_generator.state
