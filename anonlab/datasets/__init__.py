"""Data sets: loaders for the papers' data and a user's CSV, built into :class:`Dataset`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonlab.datasets.base import Attribute, Dataset
from anonlab.datasets.build import DEFAULT_ALPHA, build_dataset
from anonlab.datasets.loaders import READER_OPTIONS, READERS, read_csv
from anonlab.validation import check_choice

__all__ = ["Attribute", "Dataset", "LOADERS", "build_dataset", "load_dataset"]

LOADERS = (*READERS, "csv")


def load_dataset(config: Mapping[str, Any]) -> Dataset:
    """Build the :class:`Dataset` a dataset config (``conf/dataset/*.yaml``) describes.

    Keys: ``name``, ``loader`` (one of :data:`LOADERS`), ``attributes`` (numerical
    columns in order; ``numeric`` is an alias for CSV users), and optionally ``path``
    (csv), ``alpha``, ``domains``, ``roles``, ``discrete``, ``categorical``
    (``{column: taxonomy}``), ``target`` (``{column, threshold, labels}``); a loader
    listed in :data:`~anonlab.datasets.loaders.READER_OPTIONS` also receives those keys
    (``patient_discharge``: ``path``, ``n``, ``seed``).
    """
    loader = check_choice(config.get("loader"), "dataset.loader", LOADERS)
    options = {key: config[key] for key in READER_OPTIONS.get(loader, ())
               if config.get(key) is not None}
    frame = read_csv(config.get("path")) if loader == "csv" else READERS[loader](**options)
    attributes = config.get("attributes") or config.get("numeric") or []
    return build_dataset(
        str(config.get("name", loader)),
        frame,
        list(attributes),
        alpha=float(config.get("alpha", DEFAULT_ALPHA)),
        domains=config.get("domains") or {},
        roles=config.get("roles") or {},
        discrete=config.get("discrete", False),
        categorical=config.get("categorical") or {},
        target=config.get("target") or None,
    )
