"""A user's own CSV file (``dataset=csv``, ``dataset.path=…``)."""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import pandas as pd

from anonlab.datasets.sources.base import Source
from anonlab.validation import ParameterError


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


CSV = Source(
    "csv",
    read_csv,
    options=("path", "encoding", "sep"),
    description="a user's CSV file: one header line, then one record per line",
)
