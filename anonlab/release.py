"""A release: the protected data set a method returns, in one of the release forms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from anonlab.datasets import Dataset
from anonlab.datasets.base import ComputedOnce
from anonlab.guarantee import Guarantee

#: how a release is laid out (a method's option ``form``): ``records`` keeps record i at
#: row i (the papers' release); ``shuffled_columns`` permutes each protected column on its
#: own (each attribute's multiset of released values); ``shuffled_rows`` permutes whole
#: rows (the multiset of released records). The shuffled forms keep no record's place.
FORMS: tuple[str, ...] = ("records", "shuffled_columns", "shuffled_rows")


@dataclass(frozen=True)
class Release(ComputedOnce):
    """A protected data set; what several metrics compute of it is computed once
    (:meth:`computed_once`: the SUDA metrics share one search of its MSUs).

    Attributes
    ----------
    dataset : the data set view that was protected.
    values : ``(n, m)`` released values of ``dataset.protected``, post-processed.
    labels : ``(n, m)`` cluster label of each record per protected attribute, or ``None``
        for methods that do not cluster or that compute them on demand
        (:attr:`cluster_labels`).
    scale : Laplace scale used per protected attribute, ``(m,)``, or per cluster and
        attribute, ``(n_clusters, m)``, when it varies by cluster (iDP); ``None`` without
        noise.
    seconds : wall time of the ``protect`` call, set by the runner.
    target : the released class of each record, for releases without record
        correspondence (synthetic data, whose records are not the original ones);
        ``None`` when record ``i`` of the release is record ``i`` of the data, whose class
        it keeps.
    labelling : computes ``labels`` on demand (:attr:`cluster_labels`) when the method
        does not keep them.
    record_aligned : false for a release whose records correspond to no original record
        (synthetic data, as its method's ``record_aligned``); its :attr:`frame` then holds
        the synthesised columns only.
    control : records of the same population held out from ``dataset`` (the release was
        not made from them): the control baseline of attack-based risks
        (:mod:`anonlab.metrics.attacks`); ``None`` when nothing was held out.
    guarantee : what the release guarantees (:func:`anonlab.methods.guarantees.of_release`),
        set by the runner and by :func:`anonlab.protect` after the ``protect`` call.
    """

    dataset: Dataset
    values: np.ndarray
    labels: np.ndarray | None = None
    scale: np.ndarray | None = None
    seconds: float | None = None
    guarantee: Guarantee | None = None
    target: np.ndarray | None = None
    labelling: Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)
    record_aligned: bool = True
    control: Dataset | None = field(default=None, repr=False, compare=False)

    @cached_property
    def cluster_labels(self) -> np.ndarray | None:
        """``labels``, or computed once by ``labelling`` (individual ranking keeps only
        its sort, not an ``(n, m)`` array of labels no metric may ask for)."""
        if self.labels is None and self.labelling is not None:
            return self.labelling()
        return self.labels

    @cached_property
    def frame(self) -> pd.DataFrame:
        """Released records: every column of the user's data, in its order, with the
        protected columns replaced (categorical codes decoded to taxonomy labels or
        concepts); the other columns are copied unchanged, dtype included.

        A release without record correspondence (synthetic data: ``record_aligned`` false,
        or a ``target`` of its own) holds only what was synthesised, the protected columns
        and the class (named as ``dataset.target``), on a fresh index: copying the other
        columns row by row would pair original values with unrelated records."""
        original = self.dataset.frame
        released = {
            attr.name: attr.taxonomy.decode(self.values[:, j])
            if attr.categorical
            else self.values[:, j].copy()
            for j, attr in enumerate(self.dataset.protected_attributes)
        }
        if not self.record_aligned or self.target is not None:
            if self.target is not None and self.dataset.target is not None:
                released[str(self.dataset.target.name)] = np.asarray(self.target)
            return pd.DataFrame(released, index=pd.RangeIndex(len(self.values)), copy=False)
        columns = {
            name: released[name] if name in released else original[name]
            for name in original.columns
        }
        return pd.DataFrame(columns, index=original.index, copy=False)


__all__ = ["FORMS", "Release"]
