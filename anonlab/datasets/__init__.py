"""Data sets: the sources of the papers' data and of a user's CSV
(:mod:`anonlab.datasets.sources`), built into :class:`Dataset`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anonlab.datasets.base import Attribute, Dataset
from anonlab.datasets.build import DEFAULT_ALPHA, build_dataset
from anonlab.datasets.sources import SOURCES, Source, register_source
from anonlab.validation import ParameterError, check_choice

__all__ = [
    "LOADERS",
    "SOURCES",
    "Attribute",
    "Dataset",
    "Source",
    "build_dataset",
    "load_dataset",
    "register_source",
]

#: the names a dataset config's ``loader`` may take: every registered source's (a live
#: view of :data:`~anonlab.datasets.sources.SOURCES`)
LOADERS = SOURCES.keys()


#: the keys of every dataset config; a source's own keys are its ``options``
COMMON_KEYS = (
    "name",
    "loader",
    "attributes",
    "numeric",
    "alpha",
    "domains",
    "roles",
    "discrete",
    "categorical",
    "hierarchies",
    "target",
    "integer",
)


#: the dataset keys that hold column names (a list, or one name) and those that map
#: columns to values; ``alpha`` is a number
LIST_KEYS = ("attributes", "numeric", "categorical", "discrete", "integer")
#: ``dataset.domains=data``: every bound read off the data (the alpha rule), chosen by the
#: user; methods whose proof assumes public bounds then run, and their releases say so
DATA_DOMAINS = "data"
MAPPING_KEYS = ("domains", "roles", "hierarchies", "target", "categorical")


def check_keys(config: Mapping[str, Any], loader: str) -> None:
    """Raise a :class:`ParameterError` for a key no dataset config has, one that another
    loader takes (``dataset.encoding`` for Census), rather than ignore it, or a value of
    the wrong shape (``dataset.domains=5``)."""
    for key in (*LIST_KEYS, *MAPPING_KEYS):
        value = config.get(key)
        if value is None or isinstance(value, Mapping) and key in MAPPING_KEYS:
            continue
        if key == "domains" and value == DATA_DOMAINS:  # bounds read off the data, by choice
            continue
        if key in LIST_KEYS and (
            isinstance(value, (str, bool))
            or (isinstance(value, Sequence) and all(isinstance(v, str) for v in value))
        ):
            continue
        shape = "a list of column names" if key in LIST_KEYS else "a mapping {column: …}"
        if key == "domains":
            shape += f" or {DATA_DOMAINS!r} (bounds read off the data)"
        if key == "integer":
            shape += f", true, false or {DATA_DOMAINS!r} (read off the data)"
        raise ParameterError(f"dataset.{key} must be {shape}, got {value!r}")
    alpha = config.get("alpha", DEFAULT_ALPHA)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise ParameterError(f"dataset.alpha must be a number, got {alpha!r}")
    own = SOURCES[loader].options
    for key in config:
        if key in COMMON_KEYS or key in own:
            continue
        if any(key in source.options for source in SOURCES.values()):
            if config[key] is None:
                continue  # declared by the config file, unused by this loader
            raise ParameterError(
                f"dataset.{key} applies to other loaders, not to dataset.loader={loader!r}"
            )
        known = sorted({*COMMON_KEYS, *own})
        raise ParameterError(f"dataset.{key} is not a dataset key; the keys are {known}")


def load_dataset(config: Mapping[str, Any]) -> Dataset:
    """Build the :class:`Dataset` a dataset config (``conf/dataset/*.yaml``) describes.

    Keys: ``name``, ``loader`` (one of :data:`LOADERS`), ``attributes`` (the analysed
    columns in order), or instead ``numeric`` and ``categorical`` (the analysed columns
    are the numeric ones then the categorical ones), and optionally ``path`` (csv),
    ``alpha``, ``domains``, ``roles``, ``discrete``, ``categorical`` (a list of text
    columns, or ``{column: taxonomy name or hierarchy file}``), ``hierarchies``
    (``{column: hierarchy file}``), ``target`` (``{column, threshold, labels}``),
    ``integer`` (the numerical columns declared whole-numbered, or ``data``); see
    :func:`~anonlab.datasets.build.build_dataset`. The loader's source also receives the
    keys it declares (:attr:`~anonlab.datasets.sources.Source.options`; ``csv``: ``path``,
    ``encoding``, ``sep``; ``patient_discharge``: ``path``, ``n``, ``seed``). Any other
    key is an error (:func:`check_keys`).
    """
    loader = check_choice(config.get("loader"), "dataset.loader", LOADERS)
    check_keys(config, loader)
    frame = SOURCES[loader].read(config)
    categorical = config.get("categorical") or []
    if isinstance(categorical, str):
        categorical = [categorical]  # dataset.categorical=city
    if config.get("attributes"):
        attributes, key = list(config["attributes"]), "attributes"
    else:  # numeric first, then categorical (README: "Your own data")
        numeric = config.get("numeric") or []
        numeric = [numeric] if isinstance(numeric, str) else list(numeric)
        both = [column for column in categorical if column in numeric]
        if both:
            raise ParameterError(
                f"column {both[0]!r} is in both dataset.numeric and "
                "dataset.categorical; keep it in one"
            )
        attributes, key = [*numeric, *categorical], "numeric"
    return build_dataset(
        str(config.get("name", loader)),
        frame,
        attributes,
        alpha=float(config.get("alpha", DEFAULT_ALPHA)),
        domains={} if config.get("domains") == DATA_DOMAINS else config.get("domains") or {},
        roles=config.get("roles") or {},
        discrete=config.get("discrete", False),
        categorical=categorical,
        hierarchies=config.get("hierarchies") or {},
        target=config.get("target") or None,
        attributes_key=key,
        integer=config.get("integer"),
    )
