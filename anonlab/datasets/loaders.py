"""Raw-table readers for the vendored files and for a user's own CSV."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import data_fetch
from anonlab.datasets.nhds import read_patient_discharge
from anonlab.validation import ParameterError

# UCI adult.names, in file order.
ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
)  # fmt: skip


def read_census() -> pd.DataFrame:
    """CASC "Census": 1,080 records × 13 numerical attributes (DP-IR §4.1)."""
    return pd.read_csv(data_fetch.raw_path("CASCrefmicrodata.csv"))


def read_adult() -> pd.DataFrame:
    """UCI Adult training corpus without records holding any missing ('?') value.

    30,162 of the 32,561 records remain, the count DP-IR §4.1 and DP-UNI §5 report.
    """
    frame = pd.read_csv(
        data_fetch.raw_path("adult.data"),
        header=None,
        names=list(ADULT_COLUMNS),
        sep=",",
        skipinitialspace=True,
        na_values=["?"],
        dtype={c: str for c in ADULT_COLUMNS if c not in ("age", "hours-per-week")},
    )
    frame = frame.dropna(how="all").dropna().reset_index(drop=True)
    return frame


def read_wine() -> pd.DataFrame:
    """UCI Wine Quality, white wines: 4,898 records × 11 attributes + quality (iDP §4);
    vendored comma-separated (the UCI file uses semicolons, data_fetch/sources.toml)."""
    return pd.read_csv(data_fetch.raw_path("winequality-white.csv"))


def read_csv(path: str | None) -> pd.DataFrame:
    """A user's CSV file (comma-separated, one header line)."""
    if not path:
        raise ParameterError("dataset.path must name a CSV file, got nothing")
    file = Path(path).expanduser()
    if not file.is_file():
        raise ParameterError(f"dataset.path={path!r}: no such file")
    return pd.read_csv(file)


READERS = {"census": read_census, "adult": read_adult, "wine": read_wine,
           "patient_discharge": read_patient_discharge}
# Dataset config keys a reader takes as keyword arguments (when set and not null).
READER_OPTIONS: dict[str, tuple[str, ...]] = {"patient_discharge": ("path", "n", "seed")}
