"""CASC "Census" reference microdata, vendored."""

from __future__ import annotations

import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.datasets.sources.base import Source

FILE = "CASCrefmicrodata.csv"


def read_census() -> pd.DataFrame:
    """The vendored CASC reference microdata, as the file holds it."""
    return pd.read_csv(data_fetch.raw_path(FILE))


CENSUS = Source(
    "census",
    read_census,
    files=(FILE,),
    description='CASC "Census": 1,080 records × 13 numerical attributes (DP-IR §4.1)',
)
