"""The bands' tabulated Student-t quantiles are SciPy's, to the bit, so a figure drawn
from the table is the figure drawn from SciPy."""

from __future__ import annotations

import pytest
from scipy.special import stdtrit

from anonlab.plotting.spec import BAND_LEVEL, BAND_QUANTILES, t_quantile


def test_every_tabulated_quantile_is_scipys():
    for df, tabulated in enumerate(BAND_QUANTILES, start=1):
        assert tabulated == float(stdtrit(float(df), 0.5 + BAND_LEVEL / 2)), df


@pytest.mark.parametrize(
    ("df", "level"), [(9.0, BAND_LEVEL), (200.0, BAND_LEVEL), (2.5, BAND_LEVEL), (9.0, 0.9)]
)
def test_a_quantile_is_scipys_in_and_beyond_the_table(df, level):
    assert t_quantile(df, level) == float(stdtrit(df, 0.5 + level / 2))
