"""Cluster centroids of a record-level partition."""

from __future__ import annotations

import numpy as np


def cluster_means(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``(n_clusters, m)`` mean of each cluster's records; ``labels`` are 0..n_clusters−1."""
    matrix = np.asarray(values, dtype=float)
    n_clusters = int(labels.max()) + 1
    sums = np.zeros((n_clusters, matrix.shape[1]))
    np.add.at(sums, labels, matrix)
    return sums / np.bincount(labels, minlength=n_clusters)[:, None]
