"""The NHDS 2010 parser against pandas.read_fwf on small synthetic fixed-width files."""

from __future__ import annotations

import bz2
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets.nhds import (
    COLUMNS,
    NHDS_LAYOUT,
    NOT_STATED,
    _complete_records,
    nhds_colspecs,
    read_nhds_fields,
)
from anonlab.validation import ParameterError

FIELDS = ("age_unit", *COLUMNS, *(f for f in NOT_STATED if f not in COLUMNS))
WIDTH = sum(width for _, width in NHDS_LAYOUT)


def record(**values: str) -> str:
    """One NHDS record: ``values`` by field, every other field a run of '1' (diagnoses 'V')."""
    text = ""
    for name, width in NHDS_LAYOUT:
        default = "V" + "1" * (width - 1) if name.startswith("diagnosis") else "1" * width
        text += values.get(name, default)
    assert len(text) == WIDTH
    return text


# A complete record with right-justified numbers, one with a 'not stated' race, one with
# the age in months, one with a 'not stated' admission source, and a second complete one.
RECORDS = (
    record(age=" 5", days_of_care="   7", primary_payer="03"),
    record(race="9", age="40"),
    record(age_unit="2", age=" 3"),
    record(admission_source="99"),
    record(age="90", days_of_care="1234", primary_payer="10", discharge_month="12"),
)


def write(path: Path, records: tuple[str, ...], ending: str = "\r\n") -> str:
    """``records`` as a bz2-compressed file at ``path``, each ended by ``ending``."""
    path.write_bytes(bz2.compress("".join(r + ending for r in records).encode("ascii")))
    return str(path)


def read_fwf(path: str) -> pd.DataFrame:
    """The wanted fields as pandas.read_fwf reads them."""
    return pd.read_fwf(
        path,
        colspecs=nhds_colspecs(FIELDS),
        names=list(FIELDS),
        header=None,
        compression="bz2",
        dtype="Int64",
    )


@pytest.mark.parametrize("ending", ["\r\n", "\n"])
def test_fields_equal_read_fwf(tmp_path, ending):
    path = write(tmp_path / "nhds.txt.bz2", RECORDS, ending)
    fields = read_nhds_fields(path, FIELDS)
    pd.testing.assert_frame_equal(fields, read_fwf(path).astype(np.int64))
    assert fields["age"].tolist() == [5, 40, 3, 11, 90]
    assert fields["days_of_care"].tolist() == [7, 1111, 1111, 1111, 1234]


def test_complete_records_equal_read_fwf_then_filter(tmp_path):
    path = write(tmp_path / "nhds.txt.bz2", RECORDS)
    raw = read_fwf(path)
    keep = raw["age_unit"] == 1
    for field, code in NOT_STATED.items():
        keep &= raw[field] != code
    expected = raw.loc[keep, list(COLUMNS)].astype(np.int64).reset_index(drop=True)
    complete = _complete_records.__wrapped__(path)
    pd.testing.assert_frame_equal(complete, expected)
    assert complete["age"].tolist() == [5, 90]


@pytest.mark.parametrize("age", [" 5", "5 ", "05"])
def test_spaces_around_digits_are_ignored_like_read_fwf(tmp_path, age):
    path = write(tmp_path / "nhds.txt.bz2", (record(age=age), RECORDS[0]))
    fields = read_nhds_fields(path, FIELDS)
    assert fields["age"].tolist() == read_fwf(path)["age"].tolist() == [5, 5]


def test_blank_field_is_refused(tmp_path):
    path = write(tmp_path / "nhds.txt.bz2", (RECORDS[0], record(age="  ")))
    with pytest.raises(ParameterError, match="blank value in a field of the NHDS 2010 layout"):
        _complete_records.__wrapped__(path)


@pytest.mark.parametrize("age", ["A5", "-5", "+5", "\t5"])
def test_non_digit_is_refused(tmp_path, age):
    path = write(tmp_path / "nhds.txt.bz2", (RECORDS[0], record(age=age)))
    with pytest.raises(ParameterError, match="field 'age' of record 2 .*not a right-justified"):
        read_nhds_fields(path, FIELDS)


def test_space_between_digits_is_refused(tmp_path):
    path = write(tmp_path / "nhds.txt.bz2", (record(days_of_care="1 23"),))
    with pytest.raises(ParameterError, match="field 'days_of_care' of record 1"):
        read_nhds_fields(path, FIELDS)


@pytest.mark.parametrize(
    "text",
    [
        RECORDS[0] + "\r\n" + RECORDS[1][:-1] + "\r\n",  # a short record
        RECORDS[0] + "\r\n" + RECORDS[1] + "1\r\n",  # a long record
        RECORDS[0] + "\r\n" + RECORDS[1] + "\n" + RECORDS[2] + "\r\n",  # a LF among CRLF
        RECORDS[0] + "\r\n" + RECORDS[1],  # no final line ending
        RECORDS[0] + "\r\n" + RECORDS[1][:-1] + "\r\n" + RECORDS[2] + "1\r\n",  # short, long
        RECORDS[0] + "\r\n" + RECORDS[1][:99] + "\r" + RECORDS[1][100:] + "\r\n",  # a line split
    ],
)
def test_ragged_records_are_refused(tmp_path, text):
    path = tmp_path / "nhds.txt.bz2"
    path.write_bytes(bz2.compress(text.encode("ascii")))
    with pytest.raises(ParameterError, match=re.escape(f"{path}: records of unequal length")):
        read_nhds_fields(str(path), FIELDS)


def test_records_of_another_width_are_refused(tmp_path):
    path = write(tmp_path / "nhds.txt.bz2", (RECORDS[0] + "1", RECORDS[1] + "1"))
    with pytest.raises(ParameterError, match=f"records of {WIDTH + 1} characters.* {WIDTH}"):
        read_nhds_fields(path, FIELDS)
