"""The readers of the data sources, by the names they were first published under; each
is declared in its source's module (:mod:`anonlab.datasets.sources`)."""

from __future__ import annotations

from anonlab.datasets.nhds import read_patient_discharge
from anonlab.datasets.sources.adult import ADULT_COLUMNS, read_adult
from anonlab.datasets.sources.census import read_census
from anonlab.datasets.sources.csv import decode, read_csv
from anonlab.datasets.sources.wine import read_wine

__all__ = [
    "ADULT_COLUMNS",
    "decode",
    "read_adult",
    "read_census",
    "read_csv",
    "read_patient_discharge",
    "read_wine",
]
