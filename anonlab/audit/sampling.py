"""Many releases of one method on one data set, from the method's own ``protect``."""

from __future__ import annotations

import numpy as np

from anonlab.audit.views import view_values
from anonlab.datasets import Dataset
from anonlab.methods import Method
from anonlab.methods.base import laid_out


def releases(
    method: Method, dataset: Dataset, runs: int, seed: np.random.SeedSequence
) -> dict[str, np.ndarray]:
    """``{view: (runs, size)}``: each view of ``runs`` calls of
    ``method.protect(dataset, rng)``, all drawing in turn from one generator seeded by
    ``seed``.

    The data set object is built once, so what it computes once (its sorted columns, the
    insensitive order) is shared by every call, as the runner shares it across
    repetitions; each call still does the method's whole work. Stacking many copies of
    the data into one call would be faster but is not the same mechanism for methods that
    cluster records, so every release is its own call.
    """
    rng = np.random.default_rng(seed)

    def one() -> dict[str, np.ndarray]:
        # the release as returned: protect, then the form's permutations (Method.release)
        return view_values(
            laid_out(method.protect(dataset, rng), method.form, rng), form=method.form
        )

    first = one()
    out = {view: np.empty((runs, len(values))) for view, values in first.items()}
    for view, values in first.items():
        out[view][0] = values
    for run in range(1, runs):
        for view, values in one().items():
            out[view][run] = values
    return out
