"""Raw-table readers for the vendored files and for a user's own CSV."""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.datasets.nhds import NHDS_FILE, read_patient_discharge
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


def read_csv(path: str | None = None, encoding: str = "utf-8", sep: str = ",") -> pd.DataFrame:
    """A user's CSV file: one header line, then one record per line, ``sep``-separated
    (``\\t`` or ``tab`` for a tab), in ``encoding``. Every way the file can fail to be such
    a table is one :class:`ParameterError` naming the file and what to set
    (``dataset.encoding``, ``dataset.sep``), before any work."""
    if not path:
        raise ParameterError("dataset.path must name a CSV file, got nothing")
    file = Path(str(path)).expanduser()
    where = f"dataset.path={str(path)!r}"
    if file.is_dir():
        raise ParameterError(f"{where} is a directory; name a CSV file")
    if not file.is_file():
        raise ParameterError(f"{where}: no such file")
    text = decode(file.read_bytes(), encoding, where)
    sep = {"\\t": "\t", "tab": "\t"}.get(sep, sep) if isinstance(sep, str) else sep
    if not isinstance(sep, str) or len(sep) != 1:
        raise ParameterError(f"dataset.sep must be one character (or \\t, tab), got {sep!r}")
    rows = csv.reader(io.StringIO(text), delimiter=sep)
    header = next(rows, None)
    if not header or not any(cell.strip() for cell in header):
        raise ParameterError(f"{where} is empty; it needs a header line and records")
    if len(header) == 1:
        other = next((d for d in ",;\t|" if d != sep and d in header[0]), None)
        if other is not None:
            raise ParameterError(
                f"{where} is not {sep!r}-separated (its header holds "
                f"{other!r}); set dataset.sep={other!r}"
            )
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise ParameterError(
            f"{where}: the header repeats the column name(s) {repeated}; name every column once"
        )
    records = 0
    for number, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise ParameterError(
                f"{where}: row {number} (the header is row 1) has "
                f"{len(row)} fields, the header "
                f"{len(header)}"
            )
        records += 1
    if not records:
        raise ParameterError(f"{where} has a header but no records")
    # every column as text: numeric ones are parsed where declared (build_dataset), the
    # others, codes like "00123" included, are released exactly as the file holds them
    return pd.read_csv(io.StringIO(text), sep=sep, dtype=str)


def decode(data: bytes, encoding: str, where: str) -> str:
    """``data`` decoded from ``encoding`` (a UTF-8 byte-order mark is dropped); an unknown
    encoding or an undecodable byte is a :class:`ParameterError` naming what to set."""
    try:
        codecs.lookup(encoding)
    except (LookupError, TypeError):
        raise ParameterError(
            f"dataset.encoding={encoding!r} is not a known encoding, e.g. utf-8, latin-1, cp1252"
        ) from None
    name = codecs.lookup(encoding).name
    try:
        return data.decode("utf-8-sig" if name == "utf-8" else encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ParameterError(
            f"{where} is not valid {name} (byte "
            f"{data[error.start]:#04x} on line {line}); set dataset.encoding to the file's "
            "encoding, e.g. dataset.encoding=latin-1"
        ) from None


READERS = {
    "census": read_census,
    "adult": read_adult,
    "wine": read_wine,
    "patient_discharge": read_patient_discharge,
}
#: the vendored raw files (``data_fetch/sources.toml``) each reader loads, checked
#: against their SHA-256 before reading; a reader of a user's own file has none
SOURCES: dict[str, tuple[str, ...]] = {
    "census": ("CASCrefmicrodata.csv",),
    "adult": ("adult.data",),
    "wine": ("winequality-white.csv",),
    "patient_discharge": (NHDS_FILE,),
}
# Dataset config keys a reader takes as keyword arguments (when set and not null).
READER_OPTIONS: dict[str, tuple[str, ...]] = {
    "patient_discharge": ("path", "n", "seed"),
    "csv": ("path", "encoding", "sep"),
}
