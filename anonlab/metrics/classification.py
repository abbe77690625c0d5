"""Utility for classification: F-measure per class of a random forest trained on the
protected records and tested on original ones (iDP §4.2)."""

from __future__ import annotations

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.release import Release
from anonlab.validation import ParameterError

TRAIN_SHARE = 0.66  # iDP §4.2: "the first 66% of (masked, resp. original) records"
N_TREES = 100  # the paper does not give the forest's settings; scikit-learn's default


def train_size(n: int) -> int:
    """⌊0.66·n⌋ training records (iDP §4.2; the paper does not say how it rounds)."""
    return int(np.floor(TRAIN_SHARE * n))


def forest_f_measure(view: Dataset, release: Release, rng: np.random.Generator) -> dict[str, float]:
    """F-measure of each class (iDP §4.2): a random forest of :data:`N_TREES` trees is
    trained on the first 66% of the released records with their original class and
    evaluated on the remaining records' ORIGINAL values. Training on the original data
    (method ``original``) gives the paper's upper bound. A release without record
    correspondence (synthetic data) carries its own class (``release.target``), which the
    forest is trained on instead."""
    if view.target is None:
        raise ParameterError(
            f"metric 'f_measure' needs a class: dataset {view.name!r} has no dataset.target"
        )
    from sklearn.ensemble import RandomForestClassifier  # imported here: 0.8 s, rarely needed
    from sklearn.metrics import f1_score

    split = train_size(view.n)
    classes = sorted(view.target.unique())
    labels = view.target.to_numpy()
    forest = RandomForestClassifier(
        n_estimators=N_TREES, n_jobs=1, random_state=int(rng.integers(2**31 - 1))
    )
    train = labels if release.target is None else np.asarray(release.target)
    forest.fit(release.values[:split], train[:split])
    predicted = forest.predict(view.protected_values[split:])
    scores = f1_score(labels[split:], predicted, labels=classes, average=None, zero_division=0)
    return {str(c): float(s) for c, s in zip(classes, scores, strict=True)}


F_MEASURE = ReleaseMetric(
    "f_measure",
    forest_f_measure,
    "F-measure per class, random forest trained on the first 66% of the"
    " release, tested on the rest of the original data (one row per class)",
    randomized=True,
    requires=("target",),
    label="F-measure",
    # 100 trees, each grown on n·log n sorted splits, plus the forest's own start-up
    cost=Cost("n*log(n)", seconds=5e-6, fixed=0.2),
)
