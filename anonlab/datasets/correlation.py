"""Correlation between the quasi-identifiers and the confidential attribute (TCM §8.1–8.2).

TCM reports one number per data set: 0.52 for MCD (QIs TAXINC, POTHVAL; confidential
FEDTAX), 0.92 for HCD (same QIs; confidential FICA) and 0.129 for Patient Discharge, without
saying how several quasi-identifiers are reduced to one correlation. Of the definitions below,
only ``"sum"`` (Pearson's r between the confidential attribute and the plain sum of the
quasi-identifier values) yields both Census figures: 0.920 with FEDTAX and 0.528 with FICA,
i.e. with the two confidential attributes swapped with respect to the paper's labels. Under
every definition here FEDTAX is the more correlated of the two (see ``docs/tcm-datasets.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from anonlab.validation import ParameterError, check_choice


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1])


def _per_qi(x: np.ndarray, y: np.ndarray, measure: str) -> np.ndarray:
    """Correlation of ``y`` with each column of ``x`` (Pearson, Spearman or Kendall)."""
    if measure == "kendall":
        return np.array([stats.kendalltau(x[:, j], y).statistic for j in range(x.shape[1])])
    if measure == "spearman":
        x = np.apply_along_axis(stats.rankdata, 0, x)
        y = stats.rankdata(y)
    return np.array([_pearson(x[:, j], y) for j in range(x.shape[1])])


def _multiple(x: np.ndarray, y: np.ndarray) -> float:
    """Multiple correlation R of the least-squares fit of ``y`` on ``x`` with intercept."""
    design = np.column_stack([np.ones(len(y)), x])
    fitted = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    return _pearson(fitted, y)


def _ranks(x: np.ndarray) -> np.ndarray:
    return np.apply_along_axis(stats.rankdata, 0, x)


def _zscores(x: np.ndarray) -> np.ndarray:
    return (x - x.mean(axis=0)) / x.std(axis=0)


METHODS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "sum": lambda x, y: _pearson(x.sum(axis=1), y),
    "zsum": lambda x, y: _pearson(_zscores(x).sum(axis=1), y),
    "pearson_mean": lambda x, y: float(_per_qi(x, y, "pearson").mean()),
    "pearson_mean_abs": lambda x, y: float(np.abs(_per_qi(x, y, "pearson")).mean()),
    "pearson_max_abs": lambda x, y: float(np.abs(_per_qi(x, y, "pearson")).max()),
    "spearman_mean": lambda x, y: float(_per_qi(x, y, "spearman").mean()),
    "kendall_mean": lambda x, y: float(_per_qi(x, y, "kendall").mean()),
    "multiple": _multiple,
    "multiple_ranks": lambda x, y: _multiple(_ranks(x), stats.rankdata(y)),
    "spearman_sum": lambda x, y: float(stats.spearmanr(x.sum(axis=1), y).statistic),
}
"""Definitions of the QI–confidential correlation, by ``method`` name:

- ``sum``: Pearson's r of the confidential attribute with the sum of the raw QI values
  (reproduces TCM's 0.92 and 0.52, with FEDTAX and FICA swapped);
- ``zsum``: Pearson's r with the sum of the z-scored QIs;
- ``pearson_mean``, ``pearson_mean_abs``, ``pearson_max_abs``: mean, mean absolute and
  largest absolute Pearson's r of the confidential attribute with each QI;
- ``spearman_mean``, ``kendall_mean``: mean rank correlation with each QI;
- ``multiple``: the multiple correlation coefficient R of the linear regression of the
  confidential attribute on all QIs (for one confidential attribute, also the first canonical
  correlation);
- ``multiple_ranks``: R of the same regression on ranks;
- ``spearman_sum``: Spearman's rho of the confidential attribute with the sum of the raw QIs.
"""


def qi_confidential_correlation(
    frame: pd.DataFrame, qis: Sequence[str], confidential: str, method: str = "sum"
) -> float:
    """One number for the correlation between the quasi-identifiers and a confidential column.

    Parameters
    ----------
    frame : records holding the ``qis`` and ``confidential`` columns, numeric, no missing value.
    qis : quasi-identifier columns.
    confidential : confidential column.
    method : a key of :data:`METHODS`; ``"sum"`` is the definition that gives TCM's Census
        figures.

    Returns
    -------
    float
        The correlation under ``method``.

    Raises
    ------
    ParameterError
        If ``method`` is unknown, a column is absent or missing values, or a column is
        constant.
    """
    method = check_choice(method, "method", METHODS)
    columns = [*qis, confidential]
    if not qis:
        raise ParameterError("qis is empty")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise ParameterError(
            f"columns {absent} are not in the data; columns are {list(frame.columns)}"
        )
    values = frame[columns].to_numpy(dtype=float)
    if not np.isfinite(values).all():
        raise ParameterError(f"columns {columns} hold a missing or infinite value")
    if (values.std(axis=0) == 0).any():
        raise ParameterError(f"a column of {columns} is constant: no correlation is defined")
    return METHODS[method](values[:, :-1], values[:, -1])
