"""A library release depends on the private data only through its mechanism: whole numbers
are declared, never inferred; randomness comes from a cryptographic generator; budgets
compose through an accountant that refuses before any noise is drawn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import anonlab
import anonlab.api as api
from anonlab.accountant import BudgetAccountant
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

DOMAIN = {"x": [0.0, 100.0]}


def _whole(n: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.integers(0, 101, n).astype(float)})


def _all_whole(released: pd.DataFrame) -> bool:
    values = released["x"].to_numpy(dtype=float)
    return bool(np.all(values == np.round(values)))


def test_nothing_is_rounded_unless_declared():
    frame = _whole()
    plain = anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, seed=1)
    declared = anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, seed=1, integer=True)
    assert not _all_whole(plain) and _all_whole(declared)
    assert plain.attrs["guarantee"]["notion"] == declared.attrs["guarantee"]["notion"] == "ε-DP"


def test_whole_numbers_read_off_the_data_void_the_notion():
    frame = _whole()
    neighbour = frame.copy()
    neighbour.loc[0, "x"] = 50.5
    kwargs = {"epsilon": 1.0, "domains": DOMAIN, "integer": "data", "form": "shuffled_columns"}
    released = anonlab.protect(frame, "ir_laplace", k=3, seed=2, **kwargs)
    other = anonlab.protect(neighbour, "ir_laplace", k=3, seed=2, **kwargs)
    assert _all_whole(released) and not _all_whole(other)  # the event tells them apart
    stated = released.attrs["guarantee"]
    assert stated["notion"] == "none" and stated["notion_epsilon"] is None
    assert "integer='data'" in stated["reason"] and "'x'" in stated["reason"]
    # a method that never rounds keeps its notion under the same schema
    dp = anonlab.protect(frame, "dp", epsilon=1.0, domains=DOMAIN, integer="data", seed=2)
    assert dp.attrs["guarantee"]["notion"] == "ε-DP"


@pytest.mark.parametrize(
    ("integer", "message"),
    [
        (["z"], r"^integer: column 'z' is not a numerical attribute \['x', 'y'\]"),
        (5, r"^integer must be a list of column names, true, false or 'data' \(read off"),
    ],
)
def test_an_integer_declaration_is_checked_in_python_words(integer, message):
    frame = _whole().assign(y=np.linspace(0.5, 9.5, 30))
    domains = {**DOMAIN, "y": [0.0, 10.0]}
    with pytest.raises(ParameterError, match=message):
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=domains, integer=integer)


def test_a_declared_column_holding_a_fraction_is_refused():
    frame = _whole()
    frame.loc[3, "x"] = 7.25
    with pytest.raises(ParameterError, match=r"^integer: column 'x' .* holds 7.25 at row 3"):
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, integer=["x"])


def test_unseeded_releases_name_a_cryptographic_generator():
    frame = _whole()
    fresh = anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN)
    seeded = anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, seed=3)
    assert fresh.attrs["guarantee"]["generator"] == "chacha20"
    assert seeded.attrs["guarantee"]["generator"] == "pcg64"
    keyed = [
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, seed=3, generator="chacha20")
        for _ in range(2)
    ]
    assert keyed[0].equals(keyed[1]) and not keyed[0].equals(seeded)
    with pytest.raises(ParameterError, match=r"generator must be one of \['chacha20', 'pcg64'\]"):
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, generator="mt19937")


def test_a_protector_with_a_total_refuses_the_third_release_before_any_draw(monkeypatch):
    frame = _whole()
    made = []
    real = api.make_generator
    monkeypatch.setattr(api, "make_generator", lambda *a: made.append(a) or real(*a))
    protector = anonlab.Protector("laplace", epsilon=1.0, domains=DOMAIN, accountant=2.0)
    spent = [protector.fit_transform(frame).attrs["guarantee"]["spent"] for _ in range(2)]
    assert spent == [1.0, 2.0] and protector.guarantee_["budget"] == 2.0
    with pytest.raises(ParameterError, match=r"would bring the ε spent .* to 3, over the total"):
        protector.transform(frame)
    assert len(made) == 2  # the refused release made no generator, so drew nothing
    assert protector.accountant_.spent == 2.0
    protector.set_params(accountant=3.0)  # a larger total for the same ledger
    assert protector.transform(frame).attrs["guarantee"]["spent"] == 3.0


def test_an_accountant_keeps_one_data_set_and_its_parts_compose_in_parallel():
    frame = _whole(40)
    accountant = BudgetAccountant(epsilon=1.5)
    halves = frame.iloc[:20], frame.iloc[20:]
    for name, half in zip("ab", halves, strict=True):
        released = anonlab.protect(
            half, "laplace", epsilon=1.0, domains=DOMAIN, accountant=accountant, part=name
        )
        assert released.attrs["guarantee"]["spent"] == 1.0  # disjoint parts: the largest
    with pytest.raises(ParameterError, match="part='c' shares records with part 'a'"):
        anonlab.protect(
            frame.iloc[10:30],
            "laplace",
            epsilon=0.1,
            domains=DOMAIN,
            accountant=accountant,
            part="c",
        )
    with pytest.raises(ParameterError, match="opened on other data"):
        anonlab.protect(
            _whole(40, seed=9).iloc[:20],
            "laplace",
            epsilon=0.1,
            domains=DOMAIN,
            accountant=accountant,
            part="a",
        )
    with pytest.raises(ParameterError, match="over the total epsilon=1.5"):
        anonlab.protect(frame, "laplace", epsilon=1.0, domains=DOMAIN, accountant=accountant)
    assert accountant.spent == 1.0 and len(accountant.charges) == 2


def test_an_accountant_refuses_a_release_without_an_epsilon_and_is_never_copied():
    accountant = BudgetAccountant(epsilon=5.0)
    with pytest.raises(ParameterError, match="guarantees 'none' for this release, no ε"):
        anonlab.protect(
            _whole(), "ir_laplace", k=3, epsilon=1.0, domains=DOMAIN, accountant=accountant
        )
    protector = anonlab.Protector("laplace", epsilon=1.0, domains=DOMAIN, accountant=accountant)
    assert clone(protector).accountant is accountant  # a clone shares the ledger
    assert accountant.charges == []


@pytest.mark.parametrize("total", [0, -1.0, float("nan"), "2", True])
def test_a_total_that_is_not_a_positive_number_is_refused(total):
    with pytest.raises(ParameterError, match=r"^epsilon must be"):
        BudgetAccountant(epsilon=total)
    protector = anonlab.Protector("laplace", epsilon=1.0, domains=DOMAIN, accountant=total)
    with pytest.raises(ParameterError, match=r"^accountant: a total ε must be"):
        protector.fit(_whole())


def test_part_needs_an_accountant_and_an_accountant_must_be_one():
    with pytest.raises(ParameterError, match="part names a part of the data for an accountant"):
        anonlab.protect(_whole(), "laplace", epsilon=1.0, domains=DOMAIN, part="a")
    with pytest.raises(TypeError, match="accountant must be a BudgetAccountant or None, got dict"):
        anonlab.protect(_whole(), "laplace", epsilon=1.0, domains=DOMAIN, accountant={})
