"""Seeds are derived, never global: one stream per (cell, repetition)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

import numpy as np


def cell_id(key: Mapping[str, Any]) -> int:
    """Stable 63-bit id of a cell from its canonical JSON (same in every process)."""
    text = json.dumps(dict(key), sort_keys=True, separators=(",", ":"), default=str)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def rng_for(master_seed: int, cell: int, rep: int) -> np.random.Generator:
    """The generator of repetition ``rep`` of cell ``cell``:
    ``default_rng(SeedSequence([master_seed, cell, rep]))``."""
    return np.random.default_rng(np.random.SeedSequence([int(master_seed), int(cell), int(rep)]))


def metric_rng_for(master_seed: int, cell: int, rep: int) -> np.random.Generator:
    """The generator of the randomized metrics (a random forest) of repetition ``rep`` of
    cell ``cell``: a child stream (``spawn_key=(1,)``) independent of the method's."""
    return np.random.default_rng(
        np.random.SeedSequence([int(master_seed), int(cell), int(rep)], spawn_key=(1,))
    )


def control_rng_for(master_seed: int, rep: int) -> np.random.Generator:
    """The generator of repetition ``rep``'s split into training and control records
    (attack-based risks): a stream of its own (``spawn_key=(2,)``) that depends on no cell,
    so every method of a repetition is attacked on the same split."""
    return np.random.default_rng(
        np.random.SeedSequence([int(master_seed), int(rep)], spawn_key=(2,))
    )


def held_out_rng_for(master_seed: int, cell: int, rep: int) -> np.random.Generator:
    """The generator of the method's release of the training records of repetition ``rep``
    of cell ``cell`` (``spawn_key=(3,)``), independent of its release of all records."""
    return np.random.default_rng(
        np.random.SeedSequence([int(master_seed), int(cell), int(rep)], spawn_key=(3,))
    )
