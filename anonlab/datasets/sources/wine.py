"""UCI "Wine Quality", white wines, vendored."""

from __future__ import annotations

import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.datasets.sources.base import Source

FILE = "winequality-white.csv"


def read_wine() -> pd.DataFrame:
    """The vendored white wines, comma-separated (the UCI file uses semicolons,
    data_fetch/sources.toml)."""
    return pd.read_csv(data_fetch.raw_path(FILE))


WINE = Source(
    "wine",
    read_wine,
    files=(FILE,),
    description='UCI "Wine Quality", white: 4,898 records × 11 attributes + quality (iDP §4)',
)
