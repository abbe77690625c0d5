"""sdcMicro's addNoise as methods additive_noise and correlated_noise: the noise's variance
and covariance as sdcMicro draws them (noise/100 · σ_j per attribute; noise/100 · Σ), the
noise level checked, the guarantee stated as none with what the method is."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.datasets import build_dataset
from anonlab.guarantee import NONE
from anonlab.methods import make_method
from anonlab.methods.guarantees import guarantee
from anonlab.methods.noise import AdditiveNoise, CorrelatedNoise, noise_factor
from anonlab.validation import ParameterError

N = 20_000
WIDE = {"a": [-1e6, 1e6], "b": [-1e6, 1e6], "c": [-1e6, 1e6]}  # no value is ever clipped


def correlated_frame(n: int = N, seed: int = 5) -> pd.DataFrame:
    """Three correlated attributes of different scales."""
    rng = np.random.default_rng(seed)
    mix = np.array([[3.0, 0.0, 0.0], [1.5, 2.0, 0.0], [-4.0, 1.0, 10.0]])
    values = rng.standard_normal((n, 3)) @ mix.T + [50.0, -20.0, 300.0]
    return pd.DataFrame(values, columns=list("abc"))


@pytest.fixture(scope="module")
def data():
    return build_dataset("noise", correlated_frame(), list("abc"), domains=WIDE)


def drawn(name: str, dataset, noise: float, seed: int = 0) -> np.ndarray:
    """The noise a release of ``dataset`` added (released minus original values)."""
    release = make_method(name, {"noise": noise}).protect(dataset, np.random.default_rng(seed))
    return release.values - dataset.protected_values


@pytest.mark.parametrize("noise", [10.0, 150.0])
def test_additive_noise_has_variance_noise_percent_of_each_sd_squared(data, noise):
    added = drawn("additive_noise", data, noise)
    sd = data.frame[list("abc")].std(ddof=1).to_numpy()  # R's sd
    expected = (noise / 100.0 * sd) ** 2
    # the sample variance of N normal draws has relative sd sqrt(2/N) ≈ 1 %
    assert added.var(axis=0, ddof=1) == pytest.approx(expected, rel=0.05)
    assert (np.abs(added.mean(axis=0)) < 4 * np.sqrt(expected / N)).all()
    # uncorrelated across attributes, though the data are correlated
    assert np.abs(np.corrcoef(added, rowvar=False)[np.triu_indices(3, 1)]).max() < 0.05


def test_correlated_noise_has_covariance_noise_percent_of_the_datas(data):
    noise = 40.0
    added = drawn("correlated_noise", data, noise)
    sigma = np.cov(data.protected_values, rowvar=False, ddof=1)
    expected = noise / 100.0 * sigma  # sdcMicro: mvrnorm(Sigma = noise/100 · cov(x))
    assert np.cov(added, rowvar=False, ddof=1) == pytest.approx(expected, abs=0.05 * 40.0)
    # the noise's correlations are the data's (∝ Σ); additive noise's are not
    data_r = np.corrcoef(data.protected_values, rowvar=False)
    assert np.corrcoef(added, rowvar=False) == pytest.approx(data_r, abs=0.03)
    independent = drawn("additive_noise", data, noise)
    assert np.abs(np.corrcoef(independent, rowvar=False) - data_r).max() > 0.3


def test_correlated_noise_of_one_attribute_is_its_variance_scaled(data):
    one = data.protect_first(1)
    added = drawn("correlated_noise", one, 50.0)
    assert added.var(ddof=1) == pytest.approx(0.5 * one.protected_variance[0], rel=0.05)


def test_a_singular_covariance_is_taken():
    """A constant attribute and a copy of another: Σ is singular, the factor exists and
    the constant attribute gets no noise."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    frame = pd.DataFrame({"a": x, "b": 2 * x, "c": np.full(200, 3.0)})
    data = build_dataset("singular", frame, list("abc"), domains=WIDE)
    added = drawn("correlated_noise", data, 100.0)
    assert np.all(added[:, 2] == 0.0)
    assert np.allclose(added[:, 1], 2 * added[:, 0])
    covariance = np.cov(data.protected_values, rowvar=False)
    factor = noise_factor(covariance)
    assert factor @ factor.T == pytest.approx(covariance, abs=1e-9)


@pytest.mark.parametrize("name", ["additive_noise", "correlated_noise"])
def test_releases_are_clipped_to_the_domain_and_rounded_where_whole(name):
    frame = pd.DataFrame({"a": np.arange(100) % 10, "b": np.arange(100) % 7})
    data = build_dataset(
        "small", frame, ["a", "b"], domains={"a": [0, 9], "b": [0, 6]}, integer=True
    )
    released = make_method(name, {"noise": 300.0}).protect(data, np.random.default_rng(2)).values
    assert released.min(axis=0).tolist() == [0, 0] and released.max(axis=0).tolist() == [9, 6]
    assert np.array_equal(released, np.round(released))


@pytest.mark.parametrize("name", ["additive_noise", "correlated_noise"])
@pytest.mark.parametrize("bad", [0, 0.0, -5.0, float("inf"), float("nan")])
def test_a_noise_level_not_above_zero_is_one_error_naming_it(name, bad):
    with pytest.raises(ParameterError, match="noise") as error:
        make_method(name, {"noise": bad})
    assert f"noise={bad!r}" in str(error.value)


@pytest.mark.integration  # the Python API (scikit-learn's import)
def test_the_python_api_names_the_noise_level_before_any_work():
    frame = correlated_frame(50)
    with pytest.raises(ParameterError, match=r"noise=-1\.0: noise must be a number > 0"):
        anonlab.protect(frame, "additive_noise", ["a", "b"], noise=-1.0)


@pytest.mark.integration  # the Python API (scikit-learn's import)
def test_the_library_draws_fresh_noise_unless_seeded():
    frame = correlated_frame(50)
    first, second = (anonlab.protect(frame, "additive_noise", ["a"], noise=20) for _ in "12")
    assert not first["a"].equals(second["a"])
    seeded = [anonlab.protect(frame, "correlated_noise", ["a", "b"], seed=3) for _ in "12"]
    assert seeded[0].equals(seeded[1])
    assert not seeded[0]["a"].equals(frame["a"])


@pytest.mark.parametrize("cls", [AdditiveNoise, CorrelatedNoise])
def test_the_guarantee_is_none_and_says_what_the_method_is(cls):
    stated = guarantee(cls(noise=50.0), 3)
    assert stated.claimed == stated.notion == NONE
    assert "depends on every record" in stated.reason
    assert "no differential privacy" in stated.reason
    assert "seed" in stated.caveat
    assert stated.epsilon_total is None


@pytest.mark.parametrize("name", ["additive_noise", "correlated_noise"])
def test_categorical_attributes_and_a_single_record_are_refused(name):
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "c": ["x", "y", "x"]})
    mixed = build_dataset("mixed", frame, ["a", "c"], categorical=["c"])
    with pytest.raises(ParameterError, match=r"numerical attributes only.*'c'"):
        make_method(name, {}).check(mixed)
    one = build_dataset("one", frame.head(1), ["a"], domains={"a": [0, 5]})
    with pytest.raises(ParameterError, match="at least 2 records"):
        make_method(name, {}).check(one)


def test_the_default_noise_level_is_sdcmicros():
    assert make_method("additive_noise", {}).noise == 150.0
    assert make_method("correlated_noise", {}).noise == 150.0
