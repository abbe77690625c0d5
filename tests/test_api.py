"""``anonlab.protect``: the Python API guide's snippets as written, and the API's guarantees."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = ROOT / "docs" / "examples" / "people.csv"
GUIDE = "docs/guide/python-api.md"  # the page whose snippets run here


def test_the_guides_python_snippets_run_and_keep_every_column(monkeypatch, capsys):
    guide = (ROOT / GUIDE).read_text(encoding="utf-8")
    section = guide[: guide.index("## Notes")]
    first, second = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    lines = [line for line in first.splitlines() if line and not line.startswith("import")]
    assert len(lines) == 3  # three lines after the imports
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(first, GUIDE, "exec"), scope)  # noqa: S102 - the guide's own code
    frame, released = scope["frame"], scope["released"]
    assert list(released.columns) == list(frame.columns) and len(released) == len(frame)
    for column in ("person", "balance.eur", "occupation", "city"):  # not protected: unchanged
        assert released[column].equals(frame[column])
    stated = released.attrs["guarantee"]
    assert stated["notion"] == "ε-DP" and stated["sampler"] == "discrete"
    assert stated["seeded"] is False
    assert "person" in capsys.readouterr().out
    exec(compile(second, GUIDE, "exec"), scope)  # noqa: S102
    assert scope["tuned"].get_params()["k"] == 10 and scope["protector"].get_params()["k"] == 5
    assert scope["tuned"].guarantee_["notion"] == "ε-DP"
    out = capsys.readouterr().out
    assert "jsd" in out and "ε-iDP" in out


AGE = {"age": [0, 120]}
BOUNDS = {"age": [0, 120], "hours.week": [0, 100]}


def test_same_seed_same_release_and_frame_untouched():
    frame = pd.read_csv(PEOPLE)
    before = frame.copy()
    first = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=3, domains=AGE)
    again = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=3, domains=AGE)
    other = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=4, domains=AGE)
    assert first.equals(again) and not first.equals(other) and frame.equals(before)
    stated = first.attrs["guarantee"]
    assert stated["seeded"] is True and "anyone who knows the seed" in stated["caveat"]


def test_without_a_seed_every_release_is_new_and_says_it_is_not_seeded():
    frame = pd.read_csv(PEOPLE)
    first = anonlab.protect(frame, "laplace", ["age"], epsilon=1.0, domains=AGE)
    second = anonlab.protect(frame, "laplace", ["age"], epsilon=1.0, domains=AGE)
    assert not first["age"].equals(second["age"])
    assert first.attrs["guarantee"]["seeded"] is False
    assert "seed" not in (first.attrs["guarantee"]["caveat"] or "")
    protector = anonlab.Protector("laplace", ["age"], domains=AGE, epsilon=1.0)
    assert not protector.fit_transform(frame)["age"].equals(protector.transform(frame)["age"])


def test_a_privacy_method_without_public_bounds_is_refused_before_any_work():
    frame = pd.read_csv(PEOPLE)
    for method, columns, named in (
        ("ir_laplace", ["age"], "columns ['age'] have none: give domains={'age': [18.0, 79.0]}"),
        ("laplace", ["city"], "give hierarchies={'city': 'FILE'}"),
        ("idp_ls", ["age", "hours.week"], "columns ['age', 'hours.week'] have none"),
    ):
        with pytest.raises(ParameterError, match=re.escape(named)):
            anonlab.protect(
                frame, method, columns, k=5, epsilon=1.0
            ) if method != "laplace" else anonlab.protect(frame, method, columns, epsilon=1.0)
    with pytest.raises(ParameterError, match=re.escape("columns ['age'] have none")):
        anonlab.Protector("laplace", ["age"], epsilon=1.0).fit(frame)
    anonlab.protect(frame, "mdav", ["age"], k=5)  # k-anonymity: the rule's bounds clip only


def test_shuffled_columns_release_is_dp_and_keeps_no_record_in_place():
    frame = pd.read_csv(PEOPLE)
    released = anonlab.protect(
        frame,
        "ir_laplace",
        ["age", "hours.week"],
        k=5,
        epsilon=1.0,
        domains=BOUNDS,
        form="shuffled_columns",
        seed=2,
    )
    stated = released.attrs["guarantee"]
    assert stated["claimed"] == "ε-DP" and stated["notion"] == "ε-DP"
    assert stated["form"] == "shuffled_columns" and stated["record_aligned"] is False
    assert list(released.columns) == ["age", "hours.week"]
    assert isinstance(released.index, pd.RangeIndex) and len(released) == len(frame)
    records = anonlab.protect(
        frame, "ir_laplace", ["age", "hours.week"], k=5, epsilon=1.0, domains=BOUNDS, seed=2
    )
    assert records.attrs["guarantee"]["notion"] == "none"
    assert "record order" in records.attrs["guarantee"]["reason"]
    for column in ("age", "hours.week"):  # the same multiset of released values
        assert sorted(released[column]) == sorted(records[column])
    assert (
        anonlab.evaluate(frame, released, ["jsd"], ["age", "hours.week"], domains=BOUNDS)["jsd"]
        >= 0
    )
    with pytest.raises(ParameterError, match="keeps no record's place"):
        anonlab.evaluate(frame, released, ["re"], ["age", "hours.week"], domains=BOUNDS)
    with pytest.raises(ParameterError, match="keeps no record's place"):
        anonlab.evaluate(frame, released, ["record_linkage"], ["age", "hours.week"], domains=BOUNDS)


def test_evaluate_asks_whether_a_frame_without_a_guarantee_keeps_records_in_place(tmp_path):
    frame = pd.read_csv(PEOPLE)
    columns = ["age", "hours.week"]
    released = anonlab.protect(
        frame, "ir_laplace", columns, k=5, epsilon=1.0, domains=BOUNDS, form="shuffled_columns"
    )
    released.to_csv(tmp_path / "released.csv", index=False)
    read_back = pd.read_csv(tmp_path / "released.csv")  # its guarantee is lost
    assert read_back.index.equals(frame.index)  # nothing else tells it apart
    with pytest.raises(ParameterError, match="record_aligned=True if row i"):
        anonlab.evaluate(frame, read_back, ["record_linkage"], columns, domains=BOUNDS)
    with pytest.raises(ParameterError, match="keeps no record's place"):
        anonlab.evaluate(frame, read_back, ["re"], columns, domains=BOUNDS, record_aligned=False)
    assert anonlab.evaluate(frame, read_back, ["jsd"], columns, domains=BOUNDS)["jsd"] >= 0
    with pytest.raises(ParameterError, match="guarantee says record_aligned=False"):
        anonlab.evaluate(frame, released, ["jsd"], columns, domains=BOUNDS, record_aligned=True)


def test_default_columns_are_the_numeric_ones_and_index_is_kept():
    frame = pd.read_csv(PEOPLE).set_index("person")
    frame = frame.assign(**{"balance.eur": frame["balance.eur"].abs()})
    released = anonlab.protect(frame, "ir", k=4)
    assert released.index.equals(frame.index)
    for column in ("age", "hours.week", "balance.eur"):
        assert not released[column].equals(frame[column].astype(float))
    assert released["city"].equals(frame["city"])


@pytest.mark.parametrize(
    ("kwargs", "error", "expected"),
    [
        ({"method": "nope"}, ParameterError, "unknown method 'nope'"),
        ({"method": "ir", "k": 0}, ParameterError, "k"),
        ({"method": "laplace", "k": 5, "epsilon": 1.0}, ParameterError, "not ['k']"),
        ({"method": "ir", "k": 5, "columns": ["nope"]}, ParameterError, "'nope'"),
        ({"method": "ir", "k": 5, "seed": -1}, ParameterError, "seed"),
        ({"method": "ir", "k": 5, "seed": "7"}, TypeError, "seed must be an integer, got '7'"),
        (
            {"method": "ir_laplace", "k": 5, "epsilon": 1.0, "form": "shuffle"},
            ParameterError,
            "form must be one of",
        ),
        (
            {
                "method": "ir_laplace",
                "k": 5,
                "epsilon": 1.0,
                "form": "shuffled_rows",
                "columns": ["age", "hours.week"],
                "domains": {"age": [0, 120], "hours.week": [0, 100]},
            },
            ParameterError,
            "form='shuffled_rows' of method 'ir_laplace' needs one protected",
        ),
        (
            {"method": "mdav", "k": 5, "form": "shuffled_columns"},
            ParameterError,
            "form='shuffled_columns': no privacy proof of method 'mdav' covers it",
        ),
        (
            {"method": "laplace", "epsilon": 1.0, "domains": "Data"},
            ParameterError,
            "domains must be a mapping {column: [low, high]} or 'data', got 'Data'",
        ),
        (
            {"method": "laplace", "epsilon": 1.0, "sampler": "exact", "domains": {"age": [0, 9]}},
            ParameterError,
            "sampler must be one of ['numpy', 'discrete'], got 'exact'",
        ),
    ],
)
def test_bad_input_is_one_named_error(kwargs, error, expected):
    frame = pd.read_csv(PEOPLE)
    kwargs = {"columns": ["age"], **kwargs}
    with pytest.raises(error, match=re.escape(expected)):
        anonlab.protect(frame, **kwargs)


def test_negative_values_need_no_bounds_where_no_proof_assumes_them():
    frame = pd.read_csv(PEOPLE)
    released = anonlab.protect(frame, "ir", ["balance.eur"], k=5)
    assert (released["balance.eur"] < 0).any()


def test_not_a_frame_is_a_type_error():
    with pytest.raises(TypeError, match="DataFrame"):
        anonlab.protect(np.zeros((3, 2)), "ir", k=2)


def test_protector_is_protect_as_a_transformer():
    from sklearn.base import clone

    frame = pd.read_csv(PEOPLE)
    protector = anonlab.Protector("ir_laplace", ["age"], k=5, epsilon=1.0, seed=3, domains=AGE)
    released = protector.fit_transform(frame)
    assert released.equals(
        anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=3, domains=AGE)
    )
    assert protector.guarantee_ == released.attrs["guarantee"]
    assert list(protector.get_feature_names_out()) == list(frame.columns)
    twin = clone(protector)
    assert twin is not protector and twin.get_params() == protector.get_params()
    assert twin.set_params(k=10, seed=4).get_params()["k"] == 10
    assert protector.get_params()["k"] == 5  # the clone's parameters are its own
    assert "k=10" in repr(twin)
    protector.set_output(transform="pandas")
    assert isinstance(protector.transform(frame), pd.DataFrame)


def test_protector_in_a_pipeline_and_a_grid_search():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    frame = pd.read_csv(PEOPLE)
    X, y = frame[["age", "hours.week"]], frame["balance.eur"] > 0
    pipe = make_pipeline(
        anonlab.Protector("ir_laplace", k=5, epsilon=1.0, domains=BOUNDS),
        RandomForestClassifier(n_estimators=10, random_state=0),
    )
    search = GridSearchCV(pipe, {"protector__k": [2, 20]}, cv=2).fit(X, y)
    assert search.best_params_["protector__k"] in (2, 20)


def test_protector_checks_at_fit_with_the_apis_errors():
    frame = pd.read_csv(PEOPLE)
    with pytest.raises(ParameterError, match=re.escape("not ['q']")):
        anonlab.Protector("ir", ["age"], k=5, q=1).fit(frame)
    with pytest.raises(ParameterError, match="'nope'"):
        anonlab.Protector("ir", ["nope"], k=5).fit(frame)


def test_evaluate_is_the_metric_of_the_release():
    from anonlab.metrics import get_metric

    frame = pd.read_csv(PEOPLE)
    columns = ["age", "hours.week"]
    released = anonlab.protect(frame, "ir_laplace", columns, k=5, epsilon=1.0, domains="data")
    scores = anonlab.evaluate(frame, released, ["re", "jsd", "sse"], columns)
    original = frame[columns].to_numpy(dtype=float)
    view = anonlab.api._dataset(
        frame, columns, domains=None, hierarchies=None, roles=None, alpha=1.5
    )
    for name in ("re", "jsd", "sse"):
        expected = get_metric(name).evaluate(
            original, released[columns].to_numpy(dtype=float), view.protected_attributes
        )
        assert scores[name] == pytest.approx(expected)
    same = anonlab.evaluate(frame, frame, ["re", "jsd"], columns, record_aligned=True)
    assert same["re"] == 0 and same["jsd"] == pytest.approx(0, abs=1e-12)


def test_evaluate_on_text_columns_and_a_class():
    frame = pd.read_csv(PEOPLE).assign(y=lambda f: f["age"])
    released = anonlab.protect(
        frame, "ir_laplace", ["hours.week", "city"], k=5, epsilon=1.0, domains="data"
    )
    scores = anonlab.evaluate(
        frame,
        released,
        ["jsd", "f_measure"],
        ["hours.week", "city"],
        target={"column": "y", "threshold": 40, "labels": ["lo", "hi"]},
    )
    assert set(scores.index) == {"jsd", "f_measure[lo]", "f_measure[hi]"}
    assert ((scores >= 0) & (scores <= 1)).all()


@pytest.mark.parametrize(
    ("metrics", "released", "expected"),
    [
        (["cluster_min"], None, "clusters or timing"),
        (["runtime"], None, "clusters or timing"),
        (["nope"], None, "unknown metric 'nope'"),
        (["re"], "shuffled", "same index"),
        (["re"], "dropped", "no column 'age'"),
        (["re"], "text", "not numeric"),
    ],
)
def test_evaluate_refuses_what_it_cannot_measure(metrics, released, expected):
    frame = pd.read_csv(PEOPLE)
    other = {
        None: frame,
        "shuffled": frame.iloc[::-1],
        "dropped": frame.drop(columns="age"),
        "text": frame.assign(age="x"),
    }[released]
    with pytest.raises(ParameterError, match=re.escape(expected)):
        anonlab.evaluate(frame, other, metrics, ["age"], record_aligned=True)


def test_listings_name_everything_with_a_description():
    from anonlab.catalog import experiment_names
    from anonlab.methods import METHODS
    from anonlab.metrics import METRICS

    for listing, names in (
        (anonlab.list_methods(), METHODS),
        (anonlab.list_metrics(), METRICS),
        (anonlab.list_experiments(), experiment_names()),
    ):
        assert sorted(listing.index) == sorted(names)
        assert listing["description"].str.len().gt(10).all()
    assert "csv" in anonlab.list_datasets().index
    assert anonlab.list_methods().loc["ir_laplace", "axes"] == "k, epsilon"
    assert anonlab.methods.METHODS is METHODS  # still the subpackage
