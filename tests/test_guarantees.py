"""The guarantee each method's release carries matches the method's documented one: the
table of docs/guide/methods.md, parsed here (DP-IR §3.1/§3.3, iDP §3.1, TCM §2.2)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import anonlab
from anonlab.config import compose_config
from anonlab.methods import METHODS, make_method
from anonlab.methods.guarantees import COLUMNS, K_ANONYMITY, T_CLOSENESS, guarantee
from anonlab.runner.experiment import build_experiment, run_grid

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "guide" / "methods.md"
PEOPLE = ROOT / "docs" / "examples" / "people.csv"
M, EPS, K, T = 3, 0.5, 4, 0.3
SYMBOLS = {"ε/m": EPS / M, "ε": EPS, "m·ε": M * EPS, "–": None}
COLUMNS_3 = ["age", "hours.week", "balance.eur"]
DOMAINS = {"age": [0, 120], "hours.week": [0, 100], "balance.eur": [-20000, 20000]}
ROLES = {"age": "quasi_identifier", "hours.week": "quasi_identifier",
         "balance.eur": "confidential"}


def documented() -> dict[str, dict[str, str]]:
    """The rows of the page's table, by method."""
    text = DOC.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("| `")]
    header = [c.strip() for c in text[text.index("| method |"):].splitlines()[0].split("|")]
    rows = {}
    for line in lines:
        cells = dict(zip(header, (c.strip() for c in line.split("|")), strict=True))
        rows[re.sub(r"`", "", cells["method"])] = cells
    return rows


DOCUMENTED = documented()
# the synthetic-data baselines until the page's table lists them (tests/test_synthetic.py
# checks their guarantee); once it does, they are checked here like every method
UNDOCUMENTED = {"mst", "aim"} - set(DOCUMENTED)
CHECKED = sorted(set(METHODS) - UNDOCUMENTED)


def check(stated, row: dict[str, str]) -> None:
    assert stated.notion == row["notion"]
    for field, column in (("epsilon_per_attribute", "ε per attribute"),
                          ("epsilon_total", "ε in total")):
        expected = SYMBOLS[row[column]]
        value = getattr(stated, field)
        assert value is None if expected is None else value == pytest.approx(expected)


def test_the_page_documents_every_registered_method_once():
    assert sorted(DOCUMENTED) == CHECKED


@pytest.mark.parametrize("name", CHECKED)
def test_stated_guarantee_is_the_documented_one(name):
    method = make_method(name, {"k": K, "epsilon": EPS, "t": T})
    stated, row = guarantee(method, M), DOCUMENTED[name]
    check(stated, row)
    assert (stated.caveat is not None) == (row["caveat"] != "–")
    axes = {"k": "k", "epsilon": "ε", "t": "t"}
    assert ", ".join(axes[a] for a in method.axes) == row["axes"].replace("–", "")


@pytest.mark.parametrize("name", CHECKED)
def test_each_release_carries_its_documented_guarantee(name):
    """Public domains declared: the release's caveat is the method's own, if any."""
    frame = pd.read_csv(PEOPLE)
    params = {p: {"k": K, "epsilon": EPS, "t": T}[p] for p in METHODS[name].axes}
    released = anonlab.protect(frame, name, COLUMNS_3, domains=DOMAINS, roles=ROLES,
                               seed=1, **params)
    stated, row = released.attrs["guarantee"], DOCUMENTED[name]
    check(anonlab.methods.guarantees.Guarantee(**stated), row)
    assert (stated["caveat"] is not None) == (row["caveat"] != "–")
    if stated["notion"] in (K_ANONYMITY, T_CLOSENESS):  # the levels the release reaches
        assert stated["k"] >= K
        sizes = released.groupby(["age", "hours.week"]).size()
        assert stated["k"] == sizes.min()
    if stated["notion"] == T_CLOSENESS and name != "tclose_tfirst":
        assert 0 <= stated["t"] <= T
    if stated["notion"] not in (K_ANONYMITY, T_CLOSENESS):
        assert stated["k"] is None and stated["t"] is None


@pytest.mark.parametrize("name", ["dp", "dp_um", "idp_ls", "idp_cbls"])
def test_per_attribute_budget_spends_m_times_epsilon(name):
    method = make_method(name, {"k": K, "epsilon": EPS}, {"budget": "per_attribute"})
    stated = guarantee(method, M)
    assert stated.epsilon_per_attribute == EPS and stated.epsilon_total == pytest.approx(M * EPS)


def test_domains_read_off_the_data_are_a_caveat_of_noisy_releases_only():
    frame = pd.read_csv(PEOPLE)
    ruled = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0)
    flat = anonlab.protect(frame, "ir_laplace", ["city"], k=5, epsilon=1.0)
    mdav = anonlab.protect(frame, "mdav", ["age"], k=5)
    assert "[0, α·max]" in ruled.attrs["guarantee"]["caveat"]
    assert "flat taxonomies" in flat.attrs["guarantee"]["caveat"]
    assert mdav.attrs["guarantee"]["caveat"] is None


def test_the_results_table_carries_each_release_guarantee(tmp_path):
    config = compose_config("+experiment=census_ir", "grid.k=[5]", "grid.epsilon=[2.0]",
                            "grid.m=[1,8]", "reps=2", f"results_dir={tmp_path}", "n_jobs=1")
    table = run_grid(build_experiment(config), progress=False)
    assert list(table.columns[-len(COLUMNS):]) == list(COLUMNS)
    laplace = table[table["method"] == "ir_laplace"]
    assert set(laplace["guarantee"]) == {DOCUMENTED["ir_laplace"]["notion"]}
    per = laplace.groupby("m")["guarantee_epsilon_per_attribute"].unique()
    assert {m: list(v) for m, v in per.items()} == {1: [2.0], 8: [0.25]}
    assert set(laplace["guarantee_epsilon_total"]) == {2.0}
    assert table.loc[table["method"] == "ir", "guarantee"].eq("none").all()
