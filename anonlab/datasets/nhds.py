"""The Patient Discharge data set of TCM §8.2, or its public NHDS 2010 stand-in.

TCM §8.2 uses the California OSHPD Patient Discharge Data 2010 of Cedars-Sinai Medical
Center: 23,435 records without missing values, 7 quasi-identifiers (age, zip code, admission
date, ...) and one confidential attribute (the amount charged). That file is not public. The
stand-in built here samples 23,435 complete records of the US National Hospital Discharge
Survey 2010 public-use file (real 2010 US hospital discharges, vendored as
``NHDS10.PU.txt.bz2``) with 7 numerically coded quasi-identifiers and the days of care as the
confidential attribute.
"""

from __future__ import annotations

import bz2
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.validation import ParameterError, check_int

NHDS_FILE = "NHDS10.PU.txt.bz2"

# NHDS 2010 public-use record layout: (field, width) in file order (1-based, contiguous).
NHDS_LAYOUT: tuple[tuple[str, int], ...] = (
    ("year", 2), ("newborn", 1), ("age_unit", 1), ("age", 2), ("sex", 1), ("race", 1),
    ("marital_status", 1), ("discharge_month", 2), ("discharge_status", 1),
    ("days_of_care", 4), ("same_day", 1), ("region", 1), ("bed_size", 1), ("ownership", 1),
    ("weight", 5), ("century", 2),
    *((f"diagnosis_{i}", 5) for i in range(1, 16)),
    *((f"procedure_{i}", 4) for i in range(1, 9)),
    ("primary_payer", 2), ("secondary_payer", 2), ("drg", 3), ("admission_type", 1),
    ("admission_source", 2), ("admitting_diagnosis", 5),
)  # fmt: skip

AGE_IN_YEARS = 1  # age unit code: 1 years, 2 months, 3 days

# 'Not stated' code of every coded field that has one; a complete record has none of them.
NOT_STATED: dict[str, int] = {
    "race": 9,
    "marital_status": 9,
    "discharge_status": 9,
    "primary_payer": 99,
    "admission_type": 9,
    "admission_source": 99,
}

QUASI_IDENTIFIERS: tuple[str, ...] = (
    "age", "sex", "race", "marital_status", "discharge_month", "admission_type",
    "primary_payer",
)  # fmt: skip
CONFIDENTIAL = "days_of_care"
COLUMNS: tuple[str, ...] = (*QUASI_IDENTIFIERS, CONFIDENTIAL)

PAPER_RECORDS = 23_435  # TCM §8.2: Cedars-Sinai records left after removing missing values
PAPER_SEED = 2010


def nhds_colspecs(fields: tuple[str, ...]) -> list[tuple[int, int]]:
    """Half-open 0-based ``(start, end)`` character spans of ``fields`` in an NHDS record.

    Parameters
    ----------
    fields : names from :data:`NHDS_LAYOUT`, in the order the spans are wanted.

    Returns
    -------
    list of tuple of int
        One ``(start, end)`` pair per field, as :func:`pandas.read_fwf` takes them.
    """
    widths = np.array([width for _, width in NHDS_LAYOUT])
    ends = np.cumsum(widths)
    position = {name: i for i, (name, _) in enumerate(NHDS_LAYOUT)}
    return [(int(ends[position[f]] - widths[position[f]]), int(ends[position[f]])) for f in fields]


def read_nhds_fields(path: str, fields: tuple[str, ...]) -> pd.DataFrame:
    """Integer values of ``fields`` in every record of a bz2-compressed NHDS 2010 file.

    Each record must have the :data:`NHDS_LAYOUT` width and the same line ending (LF or
    CRLF). A field's value is its digits; as :func:`pandas.read_fwf` does, spaces before or
    after them are ignored (the file right-justifies numbers, e.g. an age of ``' 5'``).

    Parameters
    ----------
    path : the bz2-compressed fixed-width file.
    fields : names from :data:`NHDS_LAYOUT` holding unsigned integer codes.

    Returns
    -------
    pandas.DataFrame
        One ``int64`` column per field, one row per record, in file order.

    Raises
    ------
    ParameterError
        If the records are ragged or of another width, or a field is blank, holds a
        character other than a digit or a space, or has spaces between its digits.
    """
    data = bz2.decompress(Path(path).read_bytes())
    width = sum(w for _, w in NHDS_LAYOUT)
    end = data.find(b"\n")
    if end < 0:
        raise ParameterError(f"{path}: no line ending; not a file of NHDS 2010 records")
    ending = b"\r\n" if data[end - 1 : end] == b"\r" else b"\n"
    length = end + 1  # one record with its line ending
    records, rest = divmod(len(data), length)
    table = np.frombuffer(data, dtype=np.uint8)[: records * length].reshape(records, length)
    if (
        rest
        or (table[:, end + 1 - len(ending) :] != np.frombuffer(ending, dtype=np.uint8)).any()
        or data.count(b"\n") != records
        or data.count(b"\r") != records * (len(ending) - 1)
    ):
        raise ParameterError(
            f"{path}: records of unequal length or line ending; the NHDS 2010 layout has "
            f"fixed-width records of {width} characters"
        )
    if length - len(ending) != width:
        raise ParameterError(
            f"{path}: records of {length - len(ending)} characters; the NHDS 2010 layout has "
            f"{width}"
        )
    columns = {}
    for field, (start, stop) in zip(fields, nhds_colspecs(fields), strict=True):
        chars = table[:, start:stop]
        space = chars == ord(" ")
        if space.all(axis=1).any():
            raise ParameterError(f"{path}: blank value in a field of the NHDS 2010 layout")
        digit = (chars - np.uint8(ord("0"))) <= 9  # uint8 arithmetic wraps below '0'
        count = digit.sum(axis=1)
        first = digit.argmax(axis=1)
        last = stop - start - 1 - digit[:, ::-1].argmax(axis=1)
        bad = ~(digit | space).all(axis=1) | (last - first + 1 != count)
        if bad.any():
            row = int(bad.argmax())
            raise ParameterError(
                f"{path}: field {field!r} of record {row + 1} is "
                f"{chars[row].tobytes().decode('latin-1')!r}, not a right-justified number"
            )
        value = np.zeros(records, dtype=np.int64)
        for j in range(stop - start):
            value = np.where(digit[:, j], value * 10 + (chars[:, j] - ord("0")), value)
        columns[field] = value
    return pd.DataFrame(columns)


@lru_cache(maxsize=1)
def _complete_records(path: str) -> pd.DataFrame:
    """Parse ``path`` once per process and keep the complete records, in file order."""
    fields = ("age_unit", *COLUMNS, *(f for f in NOT_STATED if f not in COLUMNS))
    raw = read_nhds_fields(path, fields)
    keep = raw["age_unit"].to_numpy() == AGE_IN_YEARS
    for field, code in NOT_STATED.items():
        keep &= raw[field].to_numpy() != code
    return raw.loc[keep, list(COLUMNS)].reset_index(drop=True)


def complete_discharges() -> pd.DataFrame:
    """All complete NHDS 2010 records: age in years and no 'not stated' code.

    A record is complete when its age unit is years and none of race, marital status,
    discharge status, primary payer, admission type and admission source is 'not stated'
    (:data:`NOT_STATED`). 48,532 of the 151,551 records are complete (50,407 if only the
    seven quasi-identifiers are required to be stated).

    Returns
    -------
    pandas.DataFrame
        The :data:`COLUMNS` of the complete records as ``int64``, in file order.
    """
    return _complete_records(str(data_fetch.raw_path(NHDS_FILE))).copy()


def read_patient_discharge(
    path: str | None = None, n: int = PAPER_RECORDS, seed: int = PAPER_SEED
) -> pd.DataFrame:
    """The Patient Discharge data set of TCM §8.2: a user's OSHPD file or the NHDS stand-in.

    Without ``path``, ``n`` complete NHDS 2010 records (:func:`complete_discharges`) drawn
    without replacement by ``numpy.random.default_rng(seed)`` and kept in file order. Its
    columns, all integer codes:

    - ``age``: age in years (0-90; 90 stands for 90 and over);
    - ``sex``: 1 male, 2 female;
    - ``race``: 1 White, 2 Black, 3 American Indian/Alaska Native, 4 Asian,
      5 Native Hawaiian/other Pacific Islander, 6 other, 8 multiple races;
    - ``marital_status``: 1 married, 2 single, 3 widowed, 4 divorced, 5 separated;
    - ``discharge_month``: 1-12;
    - ``admission_type``: 1 emergency, 2 urgent, 3 elective, 4 newborn;
    - ``primary_payer``: 1 worker's compensation, 2 Medicare, 3 Medicaid, 4 other
      government, 5 Blue Cross/Blue Shield, 6 HMO/PPO, 7 other private, 8 self-pay,
      9 no charge, 10 other;
    - ``days_of_care``: length of stay in days (same-day stays count 1), the confidential
      attribute.

    With ``path``, the CSV file of the real OSHPD Patient Discharge Data a user holds,
    returned unchanged. The dataset config then lists its seven numerically coded
    quasi-identifier columns (age in years, sex, race, zip code, admission date, ... as the
    file names them) followed by its charge column in ``attributes``, and marks them
    ``quasi_identifier`` and ``confidential`` in ``roles``. Records with a missing value must
    have been removed (TCM §8.2 keeps 23,435 of Cedars-Sinai's 55,668), and every listed
    column must be numeric; ``n`` and ``seed`` are then ignored.

    Parameters
    ----------
    path : CSV of the OSHPD Patient Discharge Data, or ``None`` for the NHDS stand-in.
    n : number of stand-in records (TCM §8.2: 23,435).
    seed : seed of the stand-in sample.

    Returns
    -------
    pandas.DataFrame
        The stand-in's eight :data:`COLUMNS`, or the user's file as read.

    Raises
    ------
    ParameterError
        If ``path`` is not a file, or ``n`` exceeds the number of complete records.
    """
    if path is not None:
        file = Path(path).expanduser()
        if not file.is_file():
            raise ParameterError(
                f"dataset.path={path!r}: no such file; point it at a CSV of the OSHPD Patient "
                "Discharge Data, or leave it null for the NHDS 2010 stand-in"
            )
        return pd.read_csv(file)
    complete = complete_discharges()
    n = check_int(n, "dataset.n", 1, len(complete))
    seed = check_int(seed, "dataset.seed", 0)
    rows = np.sort(np.random.default_rng(seed).choice(len(complete), size=n, replace=False))
    return complete.iloc[rows].reset_index(drop=True)
