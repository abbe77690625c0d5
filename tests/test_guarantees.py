"""The guarantee stated for each method's release matches its documented one (README,
"Methods and metrics" and its privacy notes; DP-IR §3.1/§3.3, iDP §3.1)."""

from __future__ import annotations

import pytest

from anonlab.methods import METHODS, make_method
from anonlab.methods.guarantees import DP, IDP, K_ANONYMITY, NONE, T_CLOSENESS, guarantee

M, EPS, K, T = 3, 0.5, 4, 0.2
# method: (notion, ε per attribute, ε in total, has a caveat), for m = 3 attributes, ε = 0.5
DOCUMENTED = {
    "laplace": (DP, EPS / M, EPS, False),
    "ir": (NONE, None, None, True),
    "ir_laplace": (DP, EPS / M, EPS, False),
    "mdav": (K_ANONYMITY, None, None, False),
    "imdav": (K_ANONYMITY, None, None, False),
    "imdav_laplace": (DP, EPS, M * EPS, True),  # README: "m·ε-DP for m attributes"
    "imdav_laplace_composed": (DP, EPS / M, EPS, False),
    "tclose_merge": (T_CLOSENESS, None, None, False),
    "tclose_kfirst": (T_CLOSENESS, None, None, False),
    "tclose_tfirst": (T_CLOSENESS, None, None, True),
    "tclose_tfirst_merged": (T_CLOSENESS, None, None, False),
    "dp": (DP, EPS / M, EPS, False),
    "dp_um": (DP, EPS / M, EPS, False),
    "idp_ls": (IDP, EPS / M, EPS, True),  # re-ranking: up to ~1.5 ε per attribute
    "idp_cbls": (IDP, EPS / M, EPS, True),
    "original": (NONE, None, None, False),
}


def test_every_registered_method_has_a_documented_guarantee():
    assert set(DOCUMENTED) == set(METHODS)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_stated_guarantee_is_the_documented_one(name):
    method = make_method(name, {"k": K, "epsilon": EPS, "t": T})
    stated = guarantee(method, M)
    notion, per, total, caveat = DOCUMENTED[name]
    assert stated.notion == notion
    assert stated.epsilon_per_attribute == pytest.approx(per) if per else \
        stated.epsilon_per_attribute is None
    assert stated.epsilon_total == pytest.approx(total) if total else stated.epsilon_total is None
    assert (stated.caveat is not None) == caveat
    if "k" in method.axes:
        assert stated.k == K


@pytest.mark.parametrize("name", ["dp", "dp_um", "idp_ls", "idp_cbls"])
def test_per_attribute_budget_spends_m_times_epsilon(name):
    method = make_method(name, {"k": K, "epsilon": EPS}, {"budget": "per_attribute"})
    stated = guarantee(method, M)
    assert stated.epsilon_per_attribute == EPS and stated.epsilon_total == pytest.approx(M * EPS)
