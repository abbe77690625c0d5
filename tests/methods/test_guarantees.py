"""The guarantee each method's release carries matches the method's documented one: the
table of docs/guide/methods.md, parsed here (DP-IR §3.1/§3.3, iDP §3.1, TCM §2.2)."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import anonlab
from anonlab.config import compose_config
from anonlab.guarantee import COLUMNS, K_ANONYMITY, T_CLOSENESS
from anonlab.listing import render_doc_tables
from anonlab.methods import METHODS, make_method
from anonlab.methods.base import FORMS
from anonlab.methods.guarantees import guarantee
from anonlab.runner.experiment import build_experiment, run_grid
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "guide" / "methods.md"
PEOPLE = ROOT / "docs" / "examples" / "people.csv"
M, EPS, K, T = 3, 0.5, 4, 0.3
SYMBOLS = {"ε/m": EPS / M, "ε": EPS, "m·ε": M * EPS, "–": None}
COLUMNS_3 = ["age", "hours.week", "balance.eur"]
DOMAINS = {"age": [0, 120], "hours.week": [0, 100], "balance.eur": [-20000, 20000]}
ROLES = {"age": "quasi_identifier", "hours.week": "quasi_identifier", "balance.eur": "confidential"}


def documented() -> dict[str, dict[str, str]]:
    """The rows of the page's table as the site's build writes it, by method."""
    text = render_doc_tables(DOC.read_text(encoding="utf-8"))
    text = text.partition("<!-- guarantees-table:start -->")[2].partition("<!-- guarantees")[0]
    lines = [line for line in text.splitlines() if line.startswith("| `")]
    header = [c.strip() for c in text[text.index("| method |") :].splitlines()[0].split("|")]
    rows = {}
    for line in lines:
        cells = dict(zip(header, (c.strip() for c in line.split("|")), strict=True))
        rows[re.sub(r"`", "", cells["method"])] = cells
    return rows


DOCUMENTED = documented()
# the synthetic-data baselines until the page's table lists them (tests/methods/test_synthetic.py
# checks their guarantee); once it does, they are checked here like every method
UNDOCUMENTED = {"mst", "aim"} - set(DOCUMENTED)
CHECKED = sorted(set(METHODS) - UNDOCUMENTED)


def check(stated, row: dict[str, str]) -> None:
    assert stated.claimed == row["claimed"]
    for field, column in (
        ("epsilon_per_attribute", "ε per attribute"),
        ("epsilon_total", "ε in total"),
    ):
        expected = SYMBOLS[row[column]]
        value = getattr(stated, field)
        assert value is None if expected is None else value == pytest.approx(expected)


def notion_text(stated, m: int) -> str:
    """The table's cell for a release's notion: ``ε-DP (m·ε)`` when it holds for another
    ε than the claim's, ``(m = 1)`` when the form needs one attribute."""
    text = stated.notion
    if stated.notion_epsilon is not None and stated.notion_epsilon != pytest.approx(
        stated.epsilon_total
    ):
        text += " (m·ε)"
    return text + (" (m = 1)" if m == 1 else "")


def library_options(name: str, form: str) -> dict:
    return {"form": form, **({"sampler": "discrete"} if METHODS[name].draws_laplace else {})}


def test_the_page_documents_every_registered_method_once():
    assert sorted(DOCUMENTED) == CHECKED


@pytest.mark.parametrize("name", CHECKED)
def test_stated_guarantee_is_the_documented_one(name):
    method = make_method(name, {"k": K, "epsilon": EPS, "t": T})
    stated, row = guarantee(method, M), DOCUMENTED[name]
    check(stated, row)
    assert (stated.caveat is not None) == (row["caveat"] != "–")
    # each axis is shown by its declared symbol (a method's own axis too)
    symbols = [axis.symbol for axis in type(method).declared_axes().values()]
    assert ", ".join(symbols) == row["axes"].replace("–", "")
    for form in FORMS:
        if form not in METHODS[name].forms:
            assert row[form] == "–"
            with pytest.raises(ParameterError, match=f"form='{form}'"):
                make_method(name, {"k": K, "epsilon": EPS, "t": T}, {"form": form})
            continue
        m = 1 if form == "shuffled_rows" and METHODS[name].rows_need_one_attribute else M
        shown = guarantee(
            make_method(name, {"k": K, "epsilon": EPS, "t": T}, library_options(name, form)), m
        )
        assert notion_text(shown, m) == row[form], form


@pytest.mark.parametrize("name", sorted(n for n in CHECKED if METHODS[n].draws_laplace))
def test_numpys_floating_point_sampler_voids_every_privacy_notion(name):
    method = make_method(name, {"k": K, "epsilon": EPS}, {"sampler": "numpy"})
    stated = guarantee(method, M)
    assert stated.notion == "none" and "Mironov" in stated.reason
    assert stated.claimed == DOCUMENTED[name]["claimed"]


@pytest.mark.parametrize("name", CHECKED)
def test_each_release_carries_its_documented_guarantee(name):
    """Public domains declared, the library's defaults: the notion of a release in record
    order is the table's, and what else it carries is what it reaches."""
    frame = pd.read_csv(PEOPLE)
    shared = {"k": K, "epsilon": EPS, "t": T}  # an axis of the method's own: its default
    params = {p: shared[p] for p in METHODS[name].axes if p in shared}
    columns, integer = COLUMNS_3, None
    if METHODS[name].needs_categories:  # the whole numbers of declared domains (PRAM)
        columns, integer = COLUMNS_3[:2], True
    domains, roles = ({c: given[c] for c in columns} for given in (DOMAINS, ROLES))
    released = anonlab.protect(
        frame, name, columns, domains=domains, roles=roles, integer=integer, seed=1, **params
    )
    stated, row = released.attrs["guarantee"], DOCUMENTED[name]
    check(anonlab.guarantee.Guarantee(**stated), row)
    assert stated["notion"] == row["records"].split(" (")[0]
    assert stated["form"] == "records" and stated["record_aligned"] == (name not in ("mst", "aim"))
    if METHODS[name].randomized:
        assert stated["seeded"] and "seed" in stated["caveat"]
    if stated["notion"] in (K_ANONYMITY, T_CLOSENESS):  # the levels the release reaches
        assert stated["k"] >= K
        sizes = released.groupby(["age", "hours.week"]).size()
        assert stated["k"] == sizes.min()
    if stated["notion"] == T_CLOSENESS:
        assert stated["ground"] and stated["t_unit"] == "cluster" and stated["l"] >= 1
        if name != "tclose_tfirst":
            assert 0 <= stated["t"] <= T
    if stated["notion"] not in (K_ANONYMITY, T_CLOSENESS):
        assert stated["k"] is None and stated["t"] is None


@pytest.mark.parametrize("name", ["dp", "dp_um", "idp_ls", "idp_cbls"])
def test_per_attribute_budget_spends_m_times_epsilon(name):
    method = make_method(name, {"k": K, "epsilon": EPS}, {"budget": "per_attribute"})
    stated = guarantee(method, M)
    assert stated.epsilon_per_attribute == EPS and stated.epsilon_total == pytest.approx(M * EPS)


def test_domains_read_off_the_data_void_the_notion_of_a_library_release():
    frame = pd.read_csv(PEOPLE)
    ruled = anonlab.protect(
        frame, "ir_laplace", ["age"], k=5, epsilon=1.0, domains="data", form="shuffled_columns"
    )
    flat = anonlab.protect(frame, "laplace", ["city"], epsilon=1.0, domains="data")
    mdav = anonlab.protect(frame, "mdav", ["age"], k=5)
    for released in (ruled, flat):
        stated = released.attrs["guarantee"]
        assert stated["claimed"] == "ε-DP" and stated["notion"] == "none"
        assert "domains read off the data" in stated["reason"]
    assert "[0, α·max]" in ruled.attrs["guarantee"]["reason"]
    assert "flat taxonomies" in flat.attrs["guarantee"]["reason"]
    # the library's discrete sampler selects categories exactly: no floating-point caveat
    assert "exponential mechanism" not in (flat.attrs["guarantee"]["caveat"] or "")
    numpy = anonlab.protect(
        frame, "laplace", ["city"], epsilon=1.0, domains="data", sampler="numpy"
    )
    assert "exponential mechanism" in numpy.attrs["guarantee"]["caveat"]  # a text column
    assert "exponential mechanism" not in (ruled.attrs["guarantee"]["caveat"] or "")
    assert mdav.attrs["guarantee"]["caveat"] is None


def test_the_results_table_carries_each_release_guarantee(tmp_path):
    config = compose_config(
        "+experiment=census_ir",
        "grid.k=[5]",
        "grid.epsilon=[2.0]",
        "grid.m=[1,8]",
        "reps=2",
        f"results_dir={tmp_path}",
        "n_jobs=1",
    )
    table = run_grid(build_experiment(config), progress=False)
    assert list(table.columns[-len(COLUMNS) :]) == list(COLUMNS)
    laplace = table[table["method"] == "ir_laplace"]
    # the papers' form and numpy's sampler, kept for the published results: notion none
    assert set(laplace["guarantee"]) == {"none"}
    assert set(laplace["guarantee_claimed"]) == {DOCUMENTED["ir_laplace"]["claimed"]}
    assert set(laplace["guarantee_sampler"]) == {"numpy"}
    assert laplace["guarantee_seeded"].all() and laplace["guarantee_record_aligned"].all()
    assert laplace["guarantee_reason"].str.contains("record order").all()
    per = laplace.groupby("m")["guarantee_epsilon_per_attribute"].unique()
    assert {m: list(v) for m, v in per.items()} == {1: [2.0], 8: [0.25]}
    assert set(laplace["guarantee_epsilon_total"]) == {2.0}
    assert table.loc[table["method"] == "ir", "guarantee"].eq("none").all()
