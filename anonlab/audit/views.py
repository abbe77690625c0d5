"""What of a release the audit tests: two views, as flat vectors.

``released``
    the release as the method returns it in its form: record i at row i for ``records``,
    ``(n·m,)``; for a shuffled form, which keeps no record's place, its canonical order
    (each column sorted for ``shuffled_columns``, rows sorted for ``shuffled_rows``):
    a function of the multiset released, so every test of it is a test of the release;
``centroids``
    each cluster's released value, clusters in rank order (cluster j is the j-th group of
    consecutive ranks of individual ranking, or of the insensitive order), read with the
    run's own cluster labels, ``(p·m,)``: the centroid list DP-IR Lemma 1 and iDP §3
    calibrate the noise to, matched by rank position as experiments/idp_reranking_audit.py
    matches them. It is the papers' mechanism, not a function of the released records
    (the labels depend on the data); methods without clusters, and shuffled forms, have
    no such view.
"""

from __future__ import annotations

import numpy as np

from anonlab.methods import Release

VIEWS = ("released", "centroids")


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


def canonical(release: np.ndarray, values: np.ndarray, form: str) -> np.ndarray:
    """``values`` (laid out like the ``(n, m)`` ``release``) in the canonical order of
    ``form``: as they are for ``records``; each column in the order that sorts the
    release's column (``shuffled_columns``); rows in the order that sorts the release's
    rows lexicographically (``shuffled_rows``)."""
    values = np.asarray(values, dtype=float)
    if form == "records":
        return values
    if form == "shuffled_rows":
        return values[np.lexsort(np.asarray(release).T[::-1])]
    order = np.argsort(release, axis=0, kind="stable")
    return np.take_along_axis(values, order, axis=0)


def view_values(
    release: Release, values: np.ndarray | None = None, form: str = "records"
) -> dict[str, np.ndarray]:
    """``{view: flat vector}`` of ``release`` in ``form`` (or of ``values`` laid out
    like it: its Laplace scales)."""
    values = release.values if values is None else values
    views = {"released": canonical(release.values, values, form).ravel()}
    centroids = centroid_values(release, values) if form == "records" else None
    if centroids is not None:
        views["centroids"] = centroids.ravel()
    return views
