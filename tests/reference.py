"""Reference formulas the tests check the vectorised code against."""

from __future__ import annotations

import numpy as np


def direct_emd(cluster: np.ndarray, whole: np.ndarray) -> float:
    """TCM §2.2: 1/(m − 1) Σ_i |Σ_{j≤i} (p_j − q_j)| over the m distinct values."""
    values = np.unique(whole)
    p = np.array([(cluster == v).mean() for v in values])
    q = np.array([(whole == v).mean() for v in values])
    return float(np.abs(np.cumsum(p - q)).sum() / max(len(values) - 1, 1))
