"""Records as codes over public domains, and their marginals (:mod:`anonlab.methods.synthetic`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from anonlab.datasets import Dataset


@dataclass(frozen=True)
class Encoding:
    """The view's protected attributes (and class) as discrete codes 0..size−1.

    Numerical attributes: ``bins`` equal-width bins over the public domain; an integer
    attribute with at most ``bins`` integers in its domain gets one bin per integer, a
    wider one ``bins`` bins of (nearly) equal numbers of consecutive integers, so every
    bin holds an integer. Categorical attributes: their concept codes, Dom(A) being the
    concepts of the taxonomy's labels (codes 0..L−1). The class: the index of its label
    among ``classes``.
    """

    codes: np.ndarray  # (n, d) int64
    sizes: tuple[int, ...]
    classes: np.ndarray | None

    @classmethod
    def of(cls, dataset: Dataset, bins: int) -> Encoding:
        values = dataset.protected_values
        columns, sizes = [], []
        for j, attr in enumerate(dataset.protected_attributes):
            size = attribute_size(attr, bins)
            if attr.categorical:
                code = values[:, j].astype(np.int64)
            elif attr.integer:
                first = math.ceil(attr.domain[0])
                count = math.floor(attr.domain[1]) - first + 1
                # bin of integer v: ⌊(v − first)·size / count⌋, each bin non-empty
                code = np.floor((np.round(values[:, j]) - first) * size / count)
            else:
                width = attr.width
                scaled = (values[:, j] - attr.domain[0]) / width if width > 0 else 0 * values[:, j]
                code = np.floor(scaled * size)
            columns.append(np.clip(code, 0, size - 1).astype(np.int64))
            sizes.append(size)
        classes = None
        if dataset.target is not None:
            # the class labels are the config's two names (dataset.target.labels)
            classes, code = np.unique(dataset.target.to_numpy().astype(str), return_inverse=True)
            columns.append(code.astype(np.int64))
            sizes.append(len(classes))
        codes = np.column_stack(columns) if columns else np.empty((dataset.n, 0), np.int64)
        return cls(codes, tuple(sizes), classes)

    def decode(
        self, dataset: Dataset, codes: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Released values (n × m, before post-processing) and class labels of synthetic
        ``codes``: a uniform draw within each numerical bin (among its integers for an
        integer attribute), the code itself for a categorical attribute."""
        n = codes.shape[0]
        values = np.empty((n, len(dataset.protected)), dtype=float)
        for j, attr in enumerate(dataset.protected_attributes):
            size, code = self.sizes[j], codes[:, j]
            if attr.categorical:
                values[:, j] = code
            elif attr.integer:
                first = math.ceil(attr.domain[0])
                count = math.floor(attr.domain[1]) - first + 1
                # integers of bin b: ⌈b·count/size⌉ .. ⌈(b+1)·count/size⌉ − 1 (from first)
                start = -((-code * count) // size)
                stop = -((-(code + 1) * count) // size)
                values[:, j] = first + start + np.floor(rng.random(n) * (stop - start))
            else:
                values[:, j] = attr.domain[0] + (code + rng.random(n)) * attr.width / size
        target = self.classes[codes[:, -1]] if self.classes is not None else None
        return values, target


def attribute_size(attr: Any, bins: int) -> int:
    """Number of discrete values of a protected attribute (see :class:`Encoding`)."""
    if attr.categorical:  # Dom(A): the concepts of the taxonomy's labels, codes 0..L−1
        return len(set(attr.taxonomy.labels.values()))
    if attr.integer:
        return int(max(1, min(bins, math.floor(attr.domain[1]) - math.ceil(attr.domain[0]) + 1)))
    return bins


def marginal(codes: np.ndarray, sizes: tuple[int, ...], clique: tuple[int, ...]) -> np.ndarray:
    """Counts of ``codes`` over ``clique``, flattened in C order."""
    shape = tuple(sizes[a] for a in clique)
    flat = np.ravel_multi_index(tuple(codes[:, a] for a in clique), shape)
    return np.bincount(flat, minlength=math.prod(shape)).astype(float)
