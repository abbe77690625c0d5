"""DP synthetic-data baselines mst and aim (anonlab/methods/synthetic/): reproducible
releases, the (ε, δ) claim (none as released: floating-point noise) and its accounting
for replaced-record neighbours, values inside the public domains, the class synthesised
with the records."""

from __future__ import annotations

import importlib.util
import itertools
import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

# whether private-pgm is installed, without importing it (and jax) while collecting: the
# tests that run mst or aim import it; the others need not pay for it
if importlib.util.find_spec("mbi") is None:
    pytest.skip("mbi (private-pgm) is not installed", allow_module_level=True)

from anonlab.datasets.build import build_dataset  # noqa: E402
from anonlab.guarantee import APPROX_DP, NONE  # noqa: E402
from anonlab.mechanisms import accounting  # noqa: E402
from anonlab.mechanisms.measurements import GAUSSIAN_FLOAT, GUMBEL_FLOAT  # noqa: E402
from anonlab.methods import make_method  # noqa: E402
from anonlab.methods.guarantees import guarantee
from anonlab.methods.synthetic import settings  # noqa: E402
from anonlab.methods.synthetic.encoding import Encoding  # noqa: E402
from anonlab.metrics import get_metric  # noqa: E402
from anonlab.validation import ParameterError  # noqa: E402

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

FAST = {"bins": 8}  # few bins: small marginals, quick jax compilations


@pytest.fixture(scope="module")
def tiny():
    """60 records: a real, an integer and a text attribute, and a class from a column
    that is not protected."""
    rng = np.random.default_rng(7)
    n = 60
    age = rng.integers(18, 80, n)
    frame = pd.DataFrame(
        {
            "income": np.round(age * 400 + rng.normal(0, 2000, n), 2),
            "age": age,
            "city": rng.choice(["Girona", "Reus", "Tarragona"], n),
            "hours": rng.integers(10, 60, n),
        }
    )
    return build_dataset(
        "tiny",
        frame,
        ["income", "age", "city"],
        domains={"income": [0, 50000], "age": [0, 100]},
        categorical=["city"],
        integer=["age"],
        target={"column": "hours", "threshold": 35, "labels": ["part", "full"]},
    )


def protect(name, dataset, epsilon=1.0, seed=3, **options):
    method = make_method(name, {"epsilon": epsilon}, {**FAST, **options})
    method.check_dataset(dataset)
    return method.release(dataset, np.random.default_rng(seed))


@pytest.fixture(scope="module")
def released(tiny):
    """One release per method at ε = 1, seed 3, shared by the tests (jax compiles once)."""
    return {name: protect(name, tiny) for name in ("mst", "aim")}


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_same_seed_gives_the_same_bytes_and_another_seed_another_release(tiny, released, name):
    again, other = protect(name, tiny, seed=3), protect(name, tiny, seed=4)
    assert released[name].values.tobytes() == again.values.tobytes()
    assert list(released[name].target) == list(again.target)
    assert released[name].values.tobytes() != other.values.tobytes()


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_release_is_n_records_inside_the_domains_with_a_synthetic_class(tiny, released, name):
    release = released[name]
    values = release.values
    assert values.shape == (tiny.n, 3) and release.labels is None and release.scale is None
    assert values[:, 0].min() >= 0 and values[:, 0].max() <= 50000
    assert values[:, 1].min() >= 0 and values[:, 1].max() <= 100
    assert np.array_equal(values[:, 1], np.round(values[:, 1]))  # age stays whole
    city = tiny.attribute("city").taxonomy
    assert set(values[:, 2].astype(int)) <= set(city.label_codes)
    assert len(release.target) == tiny.n and set(release.target) <= {"part", "full"}
    frame = release.frame  # the synthesised columns only: nothing copied from the records
    assert list(frame.columns) == ["income", "age", "city", "hours"]
    assert set(frame["city"]) <= {"Girona", "Reus", "Tarragona"}
    assert frame.index.equals(pd.RangeIndex(tiny.n))
    assert not make_method(name, {"epsilon": 1.0}).record_aligned
    assert not release.record_aligned


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_claim_is_epsilon_delta_dp_of_the_whole_record_none_as_released(released, name):
    given = released[name].guarantee
    assert given.claimed == APPROX_DP
    # numpy's floating-point Gaussian and Gumbel draws are not exact: none as released
    assert given.notion == NONE and given.notion_epsilon is None
    assert GAUSSIAN_FLOAT in given.reason and GUMBEL_FLOAT in given.reason
    assert given.epsilon_total == 1.0 and given.epsilon_per_attribute is None
    assert given.delta == settings.DEFAULT_DELTA == 1e-9 and given.k is None and given.t is None
    assert "correspond to no original record" in given.caveat
    assert given.as_columns()["guarantee_delta"] == 1e-9
    chosen = guarantee(make_method(name, {"epsilon": 0.7}, {"delta": 1e-6}), 3)
    assert (chosen.epsilon_total, chosen.delta) == (0.7, 1e-6)


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_record_by_record_metrics_refuse_synthetic_data(tiny, name):
    method = make_method(name, {"epsilon": 1.0})
    for metric in ("re", "sse"):
        with pytest.raises(ParameterError, match="correspond to no original record"):
            get_metric(metric).check(tiny, method)
    get_metric("jsd").check(tiny, method)
    get_metric("f_measure").check(tiny, method)


def test_without_mbi_the_methods_ask_for_the_extra(tiny, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "mbi" else real(name, *a),
    )
    with pytest.raises(ParameterError, match=r"pip install 'anonlab\[synth\]'"):
        make_method("aim", {"epsilon": 1.0}).check_dataset(tiny)


def test_zcdp_conversion_is_the_largest_rho_by_a_brute_force_search_over_alpha():
    def delta_on_grid(rho, eps):  # CKS Cor. 13 minimised over a dense grid of α
        alpha = np.exp(np.linspace(np.log(1.0001), np.log(1e5), 400_000))
        log = (alpha - 1) * (alpha * rho - eps) + alpha * np.log1p(-1 / alpha) - np.log(alpha - 1)
        return float(np.exp(log.min()))

    for eps, delta in ((1.0, 1e-9), (0.1, 1e-6), (5.0, 1e-12)):
        rho = accounting.zcdp_rho(eps, delta)
        assert delta_on_grid(rho, eps) <= delta * (1 + 1e-6)
        assert delta_on_grid(rho * 1.001, eps) > delta  # no larger ρ would do
        standard = (math.sqrt(math.log(1 / delta) + eps) - math.sqrt(math.log(1 / delta))) ** 2
        assert standard == pytest.approx(eps - 2 * math.sqrt(standard * math.log(1 / delta)))
        assert standard <= rho  # ε = ρ + 2√(ρ ln 1/δ) is the looser conversion


def test_gaussian_sigma_uses_the_replaced_record_sensitivity_sqrt2():
    # every data set of 3 records over 3 values, every replacement of one record: the
    # count vector moves by at most √2 in L2 (and its L1 error by at most 2)
    worst_l2, worst_l1 = 0.0, 0.0
    reference = np.array([1.0, 0.5, 2.0])
    for data in itertools.product(range(3), repeat=3):
        counts = np.bincount(data, minlength=3)
        for i, value in itertools.product(range(3), range(3)):
            other = np.bincount([*data[:i], value, *data[i + 1 :]], minlength=3)
            worst_l2 = max(worst_l2, float(np.linalg.norm(counts - other)))
            worst_l1 = max(
                worst_l1, abs(np.abs(counts - reference).sum() - np.abs(other - reference).sum())
            )
    assert worst_l2**2 == pytest.approx(accounting.SENSITIVITY_SQ)
    assert worst_l1 == accounting.L1_SENSITIVITY
    for rho in (0.01, 0.5, 3.0):
        sigma = accounting.gaussian_sigma(rho)
        assert worst_l2**2 / (2 * sigma**2) == pytest.approx(rho)  # Bun & Steinke
        assert accounting.gaussian_rho(sigma) == pytest.approx(rho)
        assert accounting.exponential_epsilon(rho) ** 2 / 8 == pytest.approx(rho)


@pytest.mark.parametrize("name", ["mst", "aim"])
def test_with_a_huge_epsilon_the_one_way_marginals_are_kept(tiny, name):
    m = 2 if name == "mst" else 1  # AIM: one attribute and the class, fewer rounds
    view = tiny.protect_first(m)
    release = protect(name, view, epsilon=1e4)
    encoding = Encoding.of(view, FAST["bins"])
    released = Encoding.of(replace(view, frame=release.frame, target=None), FAST["bins"])
    for j in range(m):  # the same counts per bin and city, up to a record or two
        counts = [
            np.bincount(e.codes[:, j], minlength=encoding.sizes[j]) for e in (encoding, released)
        ]
        assert np.abs(counts[0] - counts[1]).sum() <= 4
    assert abs((release.target == "full").sum() - (view.target == "full").sum()) <= 2
