"""``anonlab.protect``: the README's snippet as written, and the API's guarantees."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.validation import ParameterError

ROOT = Path(__file__).resolve().parents[1]
PEOPLE = ROOT / "docs" / "examples" / "people.csv"


def test_readme_python_snippet_runs_and_keeps_every_column(monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## From Python"):]
    [snippet] = re.findall(r"```python\n(.*?)```", section, flags=re.S)[:1]
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(snippet, "README.md", "exec"), scope)  # noqa: S102 - the README's own code
    frame, released = scope["frame"], scope["released"]
    assert list(released.columns) == list(frame.columns) and len(released) == len(frame)
    for column in ("person", "balance.eur", "occupation"):  # not protected: unchanged
        assert released[column].equals(frame[column])
    assert "person" in capsys.readouterr().out


def test_same_seed_same_release_and_frame_untouched():
    frame = pd.read_csv(PEOPLE)
    before = frame.copy()
    first = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=3)
    again = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=3)
    other = anonlab.protect(frame, "ir_laplace", ["age"], k=5, epsilon=1.0, seed=4)
    assert first.equals(again) and not first.equals(other) and frame.equals(before)


def test_default_columns_are_the_numeric_ones_and_index_is_kept():
    frame = pd.read_csv(PEOPLE).set_index("person")
    frame = frame.assign(**{"balance.eur": frame["balance.eur"].abs()})
    released = anonlab.protect(frame, "ir", k=4)
    assert released.index.equals(frame.index)
    for column in ("age", "hours.week", "balance.eur"):
        assert not released[column].equals(frame[column].astype(float))
    assert released["city"].equals(frame["city"])


@pytest.mark.parametrize(("kwargs", "error", "expected"), [
    ({"method": "nope"}, ParameterError, "unknown method 'nope'"),
    ({"method": "ir", "k": 0}, ParameterError, "k"),
    ({"method": "laplace", "k": 5, "epsilon": 1.0}, ParameterError, "not ['k']"),
    ({"method": "ir", "k": 5, "columns": ["nope"]}, ParameterError, "'nope'"),
    ({"method": "ir", "k": 5, "columns": ["balance.eur"]}, ParameterError, "domains"),
    ({"method": "ir", "k": 5, "seed": -1}, ParameterError, "seed"),
])
def test_bad_input_is_one_named_error(kwargs, error, expected):
    frame = pd.read_csv(PEOPLE)
    kwargs = {"columns": ["age"], **kwargs}
    with pytest.raises(error, match=re.escape(expected)):
        anonlab.protect(frame, **kwargs)


def test_not_a_frame_is_a_type_error():
    with pytest.raises(TypeError, match="DataFrame"):
        anonlab.protect(np.zeros((3, 2)), "ir", k=2)
