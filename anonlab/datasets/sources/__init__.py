"""The data sources: every raw table a dataset config can load, by one name.

A source is one :class:`~anonlab.datasets.sources.base.Source` declared in one module of
this package (its reader beside it); :data:`SOURCES` is derived from the modules found
here, and a source defined elsewhere joins with :func:`register_source`. A dataset config
(``conf/dataset/*.yaml``) is a view of one: its ``loader``, the attributes analysed,
their roles and domains.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from anonlab.datasets.axes import register_axis
from anonlab.datasets.sources.base import Source
from anonlab.provenance import file_stem

__all__ = ["SOURCES", "Source", "register_source", "shown_name"]

#: the modules whose sources come first, in this order (the papers' data, then a user's
#: CSV); any other module of the package follows, by name
FIRST = ("census", "adult", "wine", "patient_discharge", "csv")

#: every data source by name (``dataset.loader``)
SOURCES: dict[str, Source] = {}


def register_source(source: Source) -> Source:
    """Add ``source`` to :data:`SOURCES` under its name, and its data-view axes to
    :data:`~anonlab.datasets.axes.VIEW_AXES` (registering the same object again changes
    nothing).

    Raises
    ------
    TypeError
        ``source`` is not a :class:`Source`, or its name is taken by another source.
    """
    if not isinstance(source, Source):
        raise TypeError(f"{source!r} is not an anonlab.datasets.sources.Source")
    if SOURCES.setdefault(source.name, source) is not source:
        raise TypeError(f"data source {source.name!r} is already registered")
    for axis in source.axes:
        register_axis(axis)
    return source


def shown_name(config: Mapping[str, Any]) -> str:
    """How figures and their titles name the data set of a dataset config: a user's file
    (a source that reads ``dataset.path``, :attr:`Source.needs_file`) that keeps its
    loader's name (``name: csv``) by the file's stem, ``patients`` for
    ``/x/patients.csv``; any other data set by its ``name``, the papers' included. Only
    the name shown: results and seeds keep the config's ``name``."""
    loader = str(config.get("loader"))
    name = str(config.get("name", loader))
    source, path = SOURCES.get(loader), config.get("path")
    if source is not None and source.needs_file and path and name == source.name:
        return file_stem(str(path)) or name
    return name


def _discover() -> None:
    modules = [m.name for m in pkgutil.iter_modules(__path__) if m.name != "base"]
    for name in [*FIRST, *sorted(m for m in modules if m not in FIRST)]:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if isinstance(value, Source):
                register_source(value)


_discover()
