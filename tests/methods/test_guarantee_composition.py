"""A release's privacy notion is composed from the noise mechanisms its method declares
(anonlab.mechanisms.measurements, as OpenDP pairs a measurement with its privacy map): it
holds only if every one is declared and exact; each privacy map gives back the loss the
mechanism's code is calibrated to."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset
from anonlab.guarantee import DP, NONE, Guarantee
from anonlab.mechanisms import LaplaceMechanism, accounting
from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.mechanisms.measurements import (
    DISCRETE_LAPLACE,
    EXPONENTIAL,
    EXPONENTIAL_EXACT,
    EXPONENTIAL_GUMBEL,
    GAUSSIAN_FLOAT,
    GAUSSIAN_NUMPY,
    LAPLACE,
    LAPLACE_NUMPY,
    MEASUREMENTS,
    PURE_DP,
    ZCDP,
    Measurement,
)
from anonlab.methods import make_method
from anonlab.methods.base import Method, Release
from anonlab.methods.guarantees import (
    CATEGORICAL_UNDECLARED,
    EXPONENTIAL_FLOAT,
    UNDECLARED,
    before_release,
    guarantee,
    of_release,
)

EPS = 0.8


@dataclass(frozen=True)
class GaussianStandIn(Method):
    """A stand-in that claims ε-DP and adds numpy's floating-point Gaussian noise; it
    declares ``drawn`` as its mechanisms (``None``: it declares none)."""

    epsilon: float
    drawn: tuple[Measurement, ...] | None = None
    name: ClassVar[str] = "gaussian_stand_in"
    axes: ClassVar[tuple[str, ...]] = ("epsilon",)

    def claim(self, m: int) -> Guarantee:
        return Guarantee(DP, DP, self.epsilon / m, self.epsilon)

    def mechanisms(self) -> tuple[Measurement, ...] | None:
        return self.drawn

    def protect(self, dataset, rng):
        values = dataset.protected_values
        return Release(dataset, values + rng.normal(0.0, 1.0 / self.epsilon, values.shape))


@pytest.fixture(scope="module")
def view():
    frame = pd.DataFrame({"a": np.linspace(0.0, 9.0, 10), "b": np.arange(10.0)})
    return build_dataset("t", frame, ["a", "b"], domains={"a": [0, 10], "b": [0, 10]})


def test_declared_floating_point_gaussian_gives_none_with_its_reason(view):
    method = GaussianStandIn(EPS, drawn=(GAUSSIAN_NUMPY,))
    stated = guarantee(method, 2)
    assert stated.claimed == DP and stated.notion == NONE
    assert stated.reason == GAUSSIAN_FLOAT
    released = method.release(view, np.random.default_rng(0))
    assert released.guarantee.notion == NONE and released.guarantee.reason == GAUSSIAN_FLOAT


@pytest.mark.parametrize("drawn", [None, ()], ids=["none", "empty"])
def test_undeclared_mechanisms_give_none(view, drawn):
    method = GaussianStandIn(EPS, drawn=drawn)
    stated = guarantee(method, 2)
    assert stated.claimed == DP and stated.notion == NONE and stated.reason == UNDECLARED
    assert "declares no noise mechanism" in UNDECLARED
    planned = before_release(method, view, seeded=False)
    assert planned.notion == NONE and planned.notion_epsilon is None


@pytest.mark.parametrize("exact", [DISCRETE_LAPLACE, EXPONENTIAL_EXACT])
def test_exact_declared_mechanisms_keep_the_claimed_notion(view, exact):
    method = GaussianStandIn(EPS, drawn=(exact,))
    stated = guarantee(method, 2)
    assert stated.notion == DP and stated.reason is None and stated.notion_epsilon == EPS
    released = of_release(method, method.protect(view, np.random.default_rng(0)), seeded=False)
    assert released.notion == DP and released.notion_epsilon == EPS


def test_one_inexact_mechanism_among_exact_ones_voids_the_notion():
    method = GaussianStandIn(EPS, drawn=(DISCRETE_LAPLACE, EXPONENTIAL_GUMBEL, GAUSSIAN_NUMPY))
    stated = guarantee(method, 2)
    assert stated.notion == NONE
    assert stated.reason == f"{EXPONENTIAL_GUMBEL.reason}; {GAUSSIAN_FLOAT}"


# Every method that claims a privacy notion declares its mechanisms, with each choice of
# its sampler, built from its own test parameters: tests/test_conformance.py
# (anonlab.conformance, check privacy_claims_declare_mechanisms).


@pytest.mark.parametrize("sampler", ["numpy", "discrete"])
def test_a_laplace_method_declares_the_sampler_it_draws_with(sampler):
    method = make_method("laplace", {"epsilon": EPS}, {"sampler": sampler})
    assert method.mechanisms() == (LAPLACE[sampler],)
    assert method.categorical_mechanisms() == (EXPONENTIAL[sampler],)
    assert LAPLACE[sampler].exact == EXPONENTIAL[sampler].exact == (sampler == "discrete")


def test_categorical_attributes_add_the_exponential_mechanisms_facts():
    frame = pd.DataFrame({"a": np.arange(6.0), "city": list("xyzxyz")})
    mixed = build_dataset("t", frame, ["a", "city"], domains={"a": [0, 10]}, categorical=["city"])
    floating = before_release(make_method("laplace", {"epsilon": EPS}), mixed, seeded=False)
    assert floating.notion == NONE and EXPONENTIAL_FLOAT in floating.caveat
    assert EXPONENTIAL_GUMBEL.reason in EXPONENTIAL_FLOAT
    exact = make_method("laplace", {"epsilon": EPS}, {"sampler": "discrete"})
    assert before_release(exact, mixed, seeded=False).notion == DP

    @dataclass(frozen=True)
    class FloatingCategories(GaussianStandIn):
        """Exact noise for numbers, numpy's Gumbel-max for categories."""

        name: ClassVar[str] = "floating_categories"

        def categorical_mechanisms(self) -> tuple[Measurement, ...]:
            return (EXPONENTIAL_GUMBEL,)

    method = FloatingCategories(EPS, drawn=(DISCRETE_LAPLACE,))
    assert guarantee(method, 2).notion == DP  # no categorical attribute, no Gumbel draw
    planned = before_release(method, mixed, seeded=False)
    assert planned.notion == NONE and planned.reason == EXPONENTIAL_FLOAT
    # exact noise for numbers, and categorical values drawn by nothing it declares
    silent = before_release(GaussianStandIn(EPS, drawn=(DISCRETE_LAPLACE,)), mixed, seeded=False)
    assert silent.notion == NONE and silent.reason == f"{CATEGORICAL_UNDECLARED} ('city')"


def test_each_measurement_states_a_reason_exactly_when_it_is_not_exact():
    assert len({m.name for m in MEASUREMENTS}) == len(MEASUREMENTS)
    for m in MEASUREMENTS:
        assert (m.reason is None) == m.exact
    with pytest.raises(ValueError, match="reason"):
        Measurement("x", "y", False, PURE_DP, lambda d, s: d / s)


@pytest.mark.parametrize("sensitivity", [0.5, 1.0, 7.25])
@pytest.mark.parametrize("epsilon", [0.01, 0.7, 3.0])
def test_privacy_maps_give_back_the_epsilon_the_code_calibrates_to(sensitivity, epsilon):
    for sampler in ("numpy", "discrete"):
        # LaplaceMechanism: b = Δ/ε
        scale = float(LaplaceMechanism(sensitivity, epsilon, sampler).scale)
        assert LAPLACE[sampler].measure == PURE_DP
        assert LAPLACE[sampler].privacy_map(sensitivity, scale) == pytest.approx(epsilon)
        # ExponentialMechanism: log-weights ε·q/(2Δq) = q/τ, τ = 2Δq/ε
        mechanism = ExponentialMechanism(epsilon, sensitivity, sampler)
        temperature = 1.0 / float(mechanism.log_weights(np.array([1.0]))[0])
        assert EXPONENTIAL[sampler].privacy_map(sensitivity, temperature) == pytest.approx(epsilon)
    assert LAPLACE_NUMPY.privacy_map(sensitivity, sensitivity / epsilon) == pytest.approx(epsilon)


@pytest.mark.parametrize("rho", [0.01, 0.5, 3.0])
def test_the_gaussian_map_gives_back_the_rho_of_the_synthetic_baselines(rho):
    # MST and AIM: σ of one count vector (Δ₂² = 2, a record replaced) for ρ-zCDP
    sigma = accounting.gaussian_sigma(rho)
    assert GAUSSIAN_NUMPY.measure == ZCDP
    delta_2 = math.sqrt(accounting.SENSITIVITY_SQ)
    assert GAUSSIAN_NUMPY.privacy_map(delta_2, sigma) == pytest.approx(rho)
    assert GAUSSIAN_NUMPY.privacy_map(delta_2, sigma) == pytest.approx(
        accounting.gaussian_rho(sigma)
    )
