"""Plain NumPy implementations the compiled kernels must match, partition for partition:
the ratios of the benchmarks are taken against them, and ``tests/microaggregation/test_kernels.py``
compares them on random data with many ties."""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.mdav import RemainingRecords, standardise
from anonlab.validation import check_int


def mdav_numpy(values: np.ndarray, k: int) -> np.ndarray:
    """Cluster label of each record by MDAV on standardised attributes.

    While at least 3k records remain: take the record r farthest from the centroid of the
    remaining records and cluster it with its k − 1 nearest; then the record s farthest
    from r and its k − 1 nearest. With 2k..3k−1 left, one more cluster around the record
    farthest from the centroid and the rest as the last cluster; with fewer than 2k, the
    rest form one cluster. Every cluster has k records except the last (k..2k−1). Ties go
    to the lowest record index. One vectorised distance pass per step (the NumPy loop
    :func:`anonlab.microaggregation.mdav` compiles).
    """
    points = standardise(values)
    n = len(points)
    k = check_int(k, "k", 1, n)
    labels = np.full(n, -1, dtype=np.int64)
    rest = RemainingRecords(points)
    cluster = 0
    while rest.count >= 3 * k:
        r = int(np.argmax(rest.sq_distances(rest.centroid(), -np.inf)))
        from_r = rest.sq_distances(rest.points[r], np.inf)
        labels[rest.take(rest.cluster_around(r, k, from_r))] = cluster
        from_r[~rest.alive] = -np.inf
        s = int(np.argmax(from_r))
        from_s = rest.sq_distances(rest.points[s], np.inf)
        labels[rest.take(rest.cluster_around(s, k, from_s))] = cluster + 1
        cluster += 2
        rest.compact()
    if rest.count >= 2 * k:
        r = int(np.argmax(rest.sq_distances(rest.centroid(), -np.inf)))
        from_r = rest.sq_distances(rest.points[r], np.inf)
        labels[rest.take(rest.cluster_around(r, k, from_r))] = cluster
        cluster += 1
    if rest.count:
        labels[rest.take(np.flatnonzero(rest.alive))] = cluster
    return labels
