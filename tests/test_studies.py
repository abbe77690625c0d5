"""The name of a Python study (:func:`anonlab.studies.study_name`): given, the frame's own,
or the default; a bad one refused with one error before anything is written."""

from __future__ import annotations

import pandas as pd
import pytest

import anonlab
from anonlab.studies import DEFAULT_NAME, study_name
from anonlab.validation import ParameterError

FRAME = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0]})


def test_a_study_is_named_by_name_then_by_the_frame_then_by_default():
    named = FRAME.copy()
    named.attrs["name"] = "patients"
    assert study_name(FRAME, "fair") == "fair"
    assert study_name(named, "fair") == "fair"  # the argument wins
    assert study_name(named) == "patients"
    assert study_name(FRAME) == DEFAULT_NAME == "data"
    assert study_name(FRAME, "Ward_3-2024") == "Ward_3-2024"


@pytest.mark.parametrize("bad", ["", "my study", "a/b", "..", "café", "x" * 41, 5, ["fair"]])
def test_a_bad_name_is_one_error_naming_it_before_any_work(tmp_path, bad):
    folder = tmp_path / "study"
    with pytest.raises(ParameterError) as error:
        anonlab.study(FRAME, ["ir"], {"k": [2]}, ["re"], name=bad, folder=folder)
    message = str(error.value)
    assert message.startswith("name must be") and repr(bad) in message
    assert not folder.exists()  # nothing written


def test_a_frames_bad_name_says_where_it_comes_from():
    named = FRAME.copy()
    named.attrs["name"] = "my patients"
    with pytest.raises(ParameterError, match=r"name \(from frame.attrs\['name'\]\).*'my patients'"):
        study_name(named)
