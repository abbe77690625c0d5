"""What of a release the audit tests: two views, as flat vectors.

``aligned``
    the released values as :meth:`Method.protect` returns them, record i at row i (the
    harness's releases keep record correspondence, ``Method.record_aligned``), ``(n·m,)``;
``centroids``
    each cluster's released value, clusters in rank order (cluster j is the j-th group of
    consecutive ranks of individual ranking, or of the insensitive order), read with the
    run's own cluster labels, ``(p·m,)``: the centroid list DP-IR Lemma 1 and iDP §3
    calibrate the noise to, matched by rank position as experiments/idp_reranking_audit.py
    matches them. It is the papers' mechanism, not a function of the aligned release (the
    labels depend on the data); methods without clusters have no such view.
"""

from __future__ import annotations

import numpy as np

from anonlab.methods import Release

VIEWS = ("aligned", "centroids")


def centroid_values(release: Release, values: np.ndarray) -> np.ndarray | None:
    """``(p, m)`` value of each rank-ordered cluster of ``release`` per attribute, taken
    from the ``(n, m)`` ``values`` (the release's, or its Laplace scales per value);
    ``None`` without cluster labels."""
    labels = release.cluster_labels
    if labels is None:
        return None
    labels = np.asarray(labels)
    out = np.full((int(labels.max()) + 1, labels.shape[1]), np.nan)
    out[labels, np.arange(labels.shape[1])] = values  # every record of a cluster agrees
    return out


def view_values(release: Release, values: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """``{view: flat vector}`` of ``release`` (or of ``values`` laid out like it)."""
    values = release.values if values is None else values
    views = {"aligned": np.asarray(values, dtype=float).ravel()}
    centroids = centroid_values(release, values)
    if centroids is not None:
        views["centroids"] = centroids.ravel()
    return views
