"""The cluster pre-processing of iDP §3.2.2, applied to individual-ranking clusters."""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.individual_ranking import IndividualRanking
from anonlab.validation import ParameterError


def preprocessed_centroids(ranking: IndividualRanking) -> np.ndarray:
    """``(p, m)`` mean of each cluster after the pre-processing of iDP §3.2.2.

    In each cluster one record with the smallest value takes the second smallest value
    and one with the largest value takes the second largest (ties counted, so the second
    smallest of {3, 3, 4} is 3); the centroid p_j is the mean of the pre-processed cluster
    P_j. Needs clusters of at least three values (iDP Proposition 3).
    """
    if int(ranking.sizes.min()) < 3:
        raise ParameterError(
            "the pre-processing of iDP §3.2.2 needs clusters of at least 3 "
            f"records, got a cluster of {int(ranking.sizes.min())}"
        )
    # iDP §3.2.2: x_min := x_min', x_max := x_max'
    sums = (
        ranking.sums
        - ranking.smallest(0)
        + ranking.smallest(1)
        - ranking.largest(0)
        + ranking.largest(1)
    )
    return sums / ranking.sizes[:, None]
