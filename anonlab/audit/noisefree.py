"""A method's release with its noise switched off, from the method's own code.

Only used to AIM the test (which neighbours, which coordinates, which direction): the
bound itself comes from the method's real, noisy releases. A method that draws anything
but Laplace (or Gumbel) noise cannot be aimed this way and is reported as not auditable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from anonlab.audit.views import view_values
from anonlab.datasets import Dataset
from anonlab.methods import Method, Release


class NotAuditable(Exception):
    """The audit cannot run this method (its reason is the message)."""


class NoiseFree:
    """Stands in for a :class:`numpy.random.Generator`: every Laplace draw is its
    location and every Gumbel draw 0 (the exponential mechanism then picks its mode), so
    ``method.protect(dataset, NoiseFree())`` returns the noise-free release."""

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> np.ndarray:
        return np.broadcast_to(np.asarray(loc, dtype=float), size or ()).copy()

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> np.ndarray:
        return np.zeros(size or ())

    def __getattr__(self, name: str) -> Any:
        raise NotAuditable(
            f"it draws {name!r} from its generator; the audit switches off "
            "Laplace and Gumbel noise only"
        )


def value_scale(release: Release) -> np.ndarray:
    """The ``(n, m)`` Laplace scale behind each released value: ``release.scale`` per
    attribute ``(m,)``, or per cluster ``(p, m)`` spread over the records by the release's
    cluster labels; 1 where the release does not say (then every value weighs the same)."""
    n, m = release.values.shape
    scale = None if release.scale is None else np.asarray(release.scale, dtype=float)
    if scale is not None and scale.shape == (m,):
        per_value = np.broadcast_to(scale, (n, m)).copy()
    elif scale is not None and scale.ndim == 2 and release.cluster_labels is not None:
        per_value = np.take_along_axis(scale, np.asarray(release.cluster_labels), axis=0)
    else:
        per_value = np.ones((n, m))
    return np.where(np.isfinite(per_value), per_value, 1.0)


@dataclass(frozen=True)
class Aimed:
    """The noise-free release of one data set in each view, with the Laplace scale of
    each value; ``shape`` is the release's ``(n, m)``."""

    values: dict[str, np.ndarray]
    scale: dict[str, np.ndarray]
    shape: tuple[int, int]


def noise_free_release(method: Method, dataset: Dataset) -> Release:
    """``method``'s release of ``dataset`` with its noise switched off (in record order),
    drawn with numpy's sampler, whose draws :class:`NoiseFree` switches off (the
    ``discrete`` sampler centres its noise on the same values)."""
    if method.draws_laplace and method.sampler != "numpy":
        method = replace(method, sampler="numpy")
    return method.protect(dataset, NoiseFree())  # type: ignore[arg-type]


def noise_free(method: Method, dataset: Dataset) -> Aimed:
    """The noise-free release of ``method`` on ``dataset`` (:class:`Aimed`), in the
    canonical order of its form (:func:`~anonlab.audit.views.view_values`: a shuffled
    form's permutation does not change it)."""
    release = noise_free_release(method, dataset)
    return Aimed(
        view_values(release, form=method.form),
        view_values(release, value_scale(release), form=method.form),
        release.values.shape,
    )
