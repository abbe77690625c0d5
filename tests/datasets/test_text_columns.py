"""Text columns of a user's data as categorical attributes (DP-IR §3.4): flat taxonomies,
hierarchy files (``value,parent`` and ARX), their errors, the methods that handle them and
those that refuse them, and a release that keeps every column of the user's frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset, load_dataset
from anonlab.methods import METHODS, make_method
from anonlab.runner import expand_grid
from anonlab.semantics.taxonomy import read_hierarchy
from anonlab.validation import ParameterError

#          Europe
#         /      \
#      Italy    Norway
#      /   \       |
#   Rome  Milan   Oslo
PARENT_CSV = "value,parent\nRome,Italy\nMilan,Italy\nItaly,Europe\nOslo,Norway\nNorway,Europe\n"
ARX_CSV = "Rome;Italy;Europe\nMilan;Italy;Europe\nOslo;Norway;Europe\n"
# from what each method declares: the tests check the declarations hold
# a method that needs categories (PRAM) refuses the continuous x: tests/methods/test_pram.py
CAPABLE = [
    n
    for n, c in METHODS.items()
    if "record-aligned" in c.tags() and not c.numeric_only and not c.needs_categories
]
NUMERICAL_ONLY = [n for n, c in METHODS.items() if c.numeric_only and not c.needs_roles]
TCLOSE = [n for n, c in METHODS.items() if c.needs_roles]
PARAMS = {"k": 3, "epsilon": 1.0, "t": 0.5}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def raw_frame(n: int = 30) -> pd.DataFrame:
    """A user's frame: a numeric column with negative values, a positive one, a flat text
    column (with stray spaces), a hierarchical one, and two columns left unanalysed."""
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "id": np.arange(100, 100 + n),
            "x": rng.normal(0.0, 10.0, n).round(1),
            "color": rng.choice(["red", " blue", "green "], n),
            "note": rng.choice(["a", "b"], n),
            "city": rng.choice(["Rome", "Milan", "Oslo"], n),
            "y": rng.integers(1, 50, n),
        }
    )


@pytest.fixture
def hierarchy(tmp_path: Path) -> Path:
    return write(tmp_path, "cities.csv", PARENT_CSV)


@pytest.fixture
def mixed(hierarchy: Path):
    """x (numerical, negative values), color (flat), city (hierarchy), m = 3."""
    return build_dataset(
        "mixed",
        raw_frame(),
        ["x", "color", "city"],
        domains={"x": [-50, 50]},
        categorical=["color", "city"],
        hierarchies={"city": str(hierarchy)},
    )


def test_flat_taxonomy_is_one_root_over_the_sorted_stripped_values():
    data = build_dataset("t", raw_frame(), ["color"], categorical=["color"])
    taxonomy = data.attribute("color").taxonomy
    assert taxonomy.root == "*"
    assert list(taxonomy.labels) == ["blue", "green", "red"]
    assert taxonomy.parent == {"*": None, "blue": "*", "green": "*", "red": "*"}
    d = taxonomy.distances
    # DP-IR Eq. 3: φ(blue) = {blue, *}, φ(red) = {red, *}: union 3, common 1
    assert d[taxonomy.index["blue"], taxonomy.index["red"]] == pytest.approx(np.log2(1 + 2 / 3))
    assert d[taxonomy.index["blue"], taxonomy.index["*"]] == pytest.approx(np.log2(1 + 1 / 2))
    assert set(data.frame["color"]) == {"blue", "green", "red"}


def test_flat_root_never_clashes_with_a_value():
    frame = pd.DataFrame({"c": ["*", "a", "**"]})
    taxonomy = build_dataset("t", frame, ["c"], categorical=["c"]).attribute("c").taxonomy
    assert taxonomy.root == "***" and set(taxonomy.labels) == {"*", "**", "a"}


@pytest.mark.parametrize(
    "text", [PARENT_CSV, ARX_CSV, PARENT_CSV + "Europe,\n", ARX_CSV.replace("\n", ";\n")]
)
def test_hierarchy_file_gives_the_tree_and_eq3_distances(tmp_path, text):
    path = write(tmp_path, "h.csv", text)
    assert read_hierarchy(path, "h") == {
        "Europe": None,
        "Italy": "Europe",
        "Norway": "Europe",
        "Rome": "Italy",
        "Milan": "Italy",
        "Oslo": "Norway",
    }
    frame = pd.DataFrame({"city": ["Rome", "Oslo ", "Milan", "Rome"]})
    data = build_dataset(
        "t", frame, ["city"], categorical=["city"], hierarchies={"city": str(path)}
    )
    taxonomy = data.attribute("city").taxonomy
    assert list(taxonomy.labels) == ["Milan", "Oslo", "Rome"]  # Dom(A): the leaves

    def delta(a: str, b: str) -> float:
        return float(taxonomy.distances[taxonomy.index[a], taxonomy.index[b]])

    # DP-IR Eq. 3 by hand: φ(Rome) = {Rome, Italy, Europe}, φ(Milan) = {Milan, Italy,
    # Europe}: union 4, common 2; φ(Oslo) = {Oslo, Norway, Europe}: union 5, common 1;
    # φ(Italy) = {Italy, Europe}: union 3, common 2
    assert delta("Rome", "Milan") == pytest.approx(np.log2(1 + 2 / 4))
    assert delta("Rome", "Oslo") == pytest.approx(np.log2(1 + 4 / 5))
    assert delta("Rome", "Italy") == pytest.approx(np.log2(1 + 1 / 3))
    assert delta("Rome", "Rome") == 0.0


def test_several_top_concepts_get_a_synthetic_root(tmp_path):
    path = write(tmp_path, "h.csv", "value,parent\nRome,Italy\nOslo,Norway\nLima,\n")
    assert read_hierarchy(path, "h") == {
        "*": None,
        "Italy": "*",
        "Norway": "*",
        "Lima": "*",
        "Rome": "Italy",
        "Oslo": "Norway",
    }


def test_inner_concept_in_the_data_joins_the_domain(hierarchy):
    frame = pd.DataFrame({"city": ["Rome", "Italy", "Oslo"]})
    data = build_dataset("t", frame, ["city"], categorical={"city": str(hierarchy)})
    assert list(data.attribute("city").taxonomy.labels) == ["Italy", "Milan", "Oslo", "Rome"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("value,parent\nRome,Italy\nItaly,Rome\n", r"cycle, 'Rome' -> 'Italy' -> 'Rome'"),
        ("value,parent\nRome,Rome\n", "cycle"),
        (
            "value,parent\nRome,Italy\nMilan,Italy\nRome,Lazio\n",
            r"value 'Rome' has two parents, 'Italy' \(line 2\) and 'Lazio' \(line 4\)",
        ),
        ("Rome;Italy;Europe\nMilan;Italy;*\n", "value 'Italy' has two parents"),
        ("value,parent\nItaly,\nItaly,Europe\n", r"'Italy' has two parents, none \(line 2\)"),
        ("city,up\nRome,Italy\n", "first line must be the header 'value,parent'"),
        ("value,parent\n", "lists no values"),
        ("value,parent\nRome,Italy,Europe\n", "line 2 has 3 fields"),
    ],
)
def test_bad_hierarchy_is_one_error_naming_the_parameter(tmp_path, text, message):
    path = write(tmp_path, "h.csv", text)
    frame = pd.DataFrame({"city": ["Rome"]})
    with pytest.raises(ParameterError, match=message) as error:
        build_dataset("t", frame, ["city"], categorical=["city"], hierarchies={"city": str(path)})
    assert f"dataset.hierarchies.city='{path}'" in str(error.value)


def test_value_outside_the_hierarchy_is_named_with_its_row(hierarchy):
    frame = pd.DataFrame({"city": ["Rome", "Oslo", "Rome", "Paris", "Paris"]})
    with pytest.raises(
        ParameterError,
        match=r"'city' holds 'Paris' at row 3, which the "
        r"hierarchy does not list \(2 value",
    ):
        build_dataset(
            "t", frame, ["city"], categorical=["city"], hierarchies={"city": str(hierarchy)}
        )


def test_missing_and_unreadable_hierarchy_files(tmp_path):
    frame = pd.DataFrame({"city": ["Rome"]})
    with pytest.raises(ParameterError, match=r"dataset.hierarchies.city='.*none.csv': no such"):
        build_dataset(
            "t",
            frame,
            ["city"],
            categorical=["city"],
            hierarchies={"city": str(tmp_path / "none.csv")},
        )
    latin = tmp_path / "latin.csv"
    latin.write_bytes("value,parent\nRome,Itàlia\n".encode("latin-1"))
    with pytest.raises(ParameterError, match="not valid UTF-8 .* on line 2"):
        build_dataset("t", frame, ["city"], categorical=["city"], hierarchies={"city": str(latin)})
    with pytest.raises(ParameterError, match="neither a shipped taxonomy .* nor a hierarchy"):
        build_dataset("t", frame, ["city"], categorical={"city": "nope"})


def test_missing_text_values_are_counted_with_the_first_row():
    frame = pd.DataFrame({"c": ["a", None, " ", "b"]})
    with pytest.raises(
        ParameterError,
        match=r"column 'c' has 2 missing or empty value\(s\), "
        "first at row 1",
    ):
        build_dataset("t", frame, ["c"], categorical=["c"])


@pytest.mark.parametrize("key", ["discrete", "categorical", "hierarchies", "domains", "roles"])
def test_unknown_column_in_any_key_names_the_key_and_the_data_columns(tmp_path, key):
    csv = tmp_path / "mine.csv"
    raw_frame().to_csv(csv, index=False)
    value = {
        "discrete": ["nope"],
        "categorical": ["nope"],
        "hierarchies": {"nope": "h.csv"},
        "domains": {"nope": [0, 1]},
        "roles": {"nope": "other"},
    }[key]
    config = {"loader": "csv", "path": str(csv), "numeric": ["y"], key: value}
    with pytest.raises(
        ParameterError,
        match=rf"dataset.{key}: column 'nope' is not in the "
        r"data; the data's columns are \['id', 'x'",
    ):
        load_dataset(config)


def test_csv_attributes_are_numeric_then_categorical(tmp_path, hierarchy):
    csv = tmp_path / "mine.csv"
    raw_frame().to_csv(csv, index=False)
    config = {
        "loader": "csv",
        "path": str(csv),
        "numeric": ["y", "x"],
        "categorical": ["city", "color"],
        "hierarchies": {"city": str(hierarchy)},
        "domains": {"x": [-50, 50]},
    }
    data = load_dataset(config)
    assert data.protected == ("y", "x", "city", "color")
    assert data.attribute("city").taxonomy.root == "Europe"
    assert data.attribute("color").taxonomy.root == "*"
    explicit = load_dataset(
        {
            **config,
            "attributes": ["color", "y"],
            "categorical": ["color"],
            "hierarchies": None,
            "domains": None,
        }
    )
    assert explicit.protected == ("color", "y")
    with pytest.raises(ParameterError, match="'x' is in both dataset.numeric and"):
        load_dataset({**config, "categorical": ["x"]})
    with pytest.raises(
        ParameterError,
        match=r"dataset.discrete: column 'note' is not an "
        r"analysed attribute .* add it to dataset.numeric",
    ):
        load_dataset({**config, "discrete": ["note"]})
    with pytest.raises(
        ParameterError,
        match=r"dataset.hierarchies.note: .* not in "
        r"dataset.categorical \['city', 'color'\]",
    ):
        load_dataset({**config, "hierarchies": {"note": str(hierarchy)}})


@pytest.mark.parametrize("name", CAPABLE)
def test_categorical_methods_release_taxonomy_concepts(mixed, name):
    method = make_method(name, PARAMS)
    method.check_dataset(mixed)
    release = method.protect(mixed, np.random.default_rng(0))
    frame = release.frame
    assert frame["x"].between(-50, 50).all()
    for column in ("color", "city"):
        taxonomy = mixed.attribute(column).taxonomy
        assert set(frame[column]) <= set(taxonomy.nodes)
    assert set(mixed.attribute("color").taxonomy.nodes) == {"*", "blue", "green", "red"}
    if name in ("ir", "imdav"):  # centroids of clusters of ≥ k records, without noise
        assert not frame[["x", "color", "city"]].equals(mixed.frame[["x", "color", "city"]])


@pytest.mark.parametrize("name", NUMERICAL_ONLY)
def test_numerical_methods_refuse_text_columns_up_front(mixed, name):
    with pytest.raises(ParameterError, match=r"numerical attributes only.*'color'"):
        make_method(name, PARAMS).check(mixed)
    # a cell protects the numerical attributes (a preset's method runs on them; one the
    # user named is refused by the fit, tests/test_own_data.py)
    for cell in expand_grid([name], {"k": [3], "epsilon": [1.0]}, mixed):
        view = cell.view(mixed)
        assert view.protected and not any(a.categorical for a in view.protected_attributes)


@pytest.mark.parametrize("name", TCLOSE)
@pytest.mark.parametrize(
    ("roles", "column"),
    [
        ({"x": "quasi_identifier", "color": "quasi_identifier", "y": "confidential"}, "color"),
        ({"x": "quasi_identifier", "y": "quasi_identifier", "city": "confidential"}, "city"),
    ],
)
def test_tcloseness_refuses_categorical_quasi_identifiers_and_confidential(
    hierarchy, name, roles, column
):
    data = build_dataset(
        "t",
        raw_frame(),
        ["x", "y", "color", "city"],
        domains={"x": [-50, 50]},
        categorical=["color", "city"],
        hierarchies={"city": str(hierarchy)},
        roles=roles,
    )
    with pytest.raises(
        ParameterError,
        match=rf"{name}' handles numerical attributes only; "
        rf"the .* '{column}' is categorical",
    ):
        make_method(name, PARAMS).check_dataset(data)


def test_release_keeps_every_user_column(mixed):
    raw = raw_frame()
    assert list(mixed.frame.columns) == list(raw.columns)
    view = mixed.protect_first(2)  # x and color protected, city released unchanged
    release = make_method("ir_laplace", PARAMS).protect(view, np.random.default_rng(1))
    frame = release.frame
    assert list(frame.columns) == list(raw.columns) and len(frame) == len(raw)
    for column in ("id", "note", "y"):  # never analysed: identical, dtype included
        pd.testing.assert_series_equal(frame[column], raw[column])
    pd.testing.assert_series_equal(frame["city"], mixed.frame["city"])
    assert list(frame["city"]) == list(raw["city"])
    frame.loc[0, "note"] = "changed"  # the release is a copy of the user's columns
    assert mixed.frame.loc[0, "note"] == raw.loc[0, "note"]


def test_class_column_of_the_target_is_not_kept():
    """iDP §4.2: the class (``dataset.target``) is held apart and never released."""
    data = build_dataset(
        "t",
        raw_frame(),
        ["x"],
        domains={"x": [-50, 50]},
        target={"column": "y", "threshold": 25, "labels": ["lo", "hi"]},
    )
    assert list(data.frame.columns) == ["id", "x", "color", "note", "city"]
    assert list(
        make_method("laplace", PARAMS).protect(data, np.random.default_rng(0)).frame.columns
    ) == list(data.frame.columns)
