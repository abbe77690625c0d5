"""What every data source declares: a :class:`Source`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.axes import Axis


@dataclass(frozen=True)
class Source:
    """A raw table a dataset config can load (``dataset.loader: <name>``).

    Parameters
    ----------
    name : the loader's name, e.g. ``"census"``.
    reader : ``reader(**options) -> pandas.DataFrame``: the raw table, one record a row.
    files : the vendored raw files it reads (``data_fetch/sources.toml``), each checked
        against its SHA-256 before reading; none for a user's own file or for data made
        by code.
    options : the dataset config keys passed to ``reader`` as keyword arguments (when
        set and not null), e.g. ``("path", "encoding", "sep")``.
    axes : grid axes of the data view this data set brings (each an
        :class:`~anonlab.axes.Axis` with a ``view``); they join
        :data:`~anonlab.datasets.axes.VIEW_AXES`.
    description : one line: what the table is and where a paper uses it.
    """

    name: str
    reader: Callable[..., pd.DataFrame]
    files: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    axes: tuple[Axis, ...] = ()
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise TypeError(f"a source's name must be an identifier, got {self.name!r}")
        if not callable(self.reader):
            raise TypeError(f"source {self.name!r}: reader must be callable")
        for field in ("files", "options", "axes"):
            object.__setattr__(self, field, tuple(getattr(self, field)))

    @property
    def needs_file(self) -> bool:
        """Whether it reads a user's file (``dataset.path``) rather than vendored ones."""
        return "path" in self.options and not self.files

    def read(self, config: Mapping[str, Any]) -> pd.DataFrame:
        """The raw table for the dataset config ``config`` (its :attr:`options` that are
        set and not null passed to :attr:`reader`). A table of vendored files is read
        once per process for the same files and options and handed out as a copy: each
        file is checked against its SHA-256 once per process too
        (:func:`anonlab.data_fetch.raw_path`, before the first read), and does not change
        while it runs. A user's own file (``path``) is read on every call."""
        given = {key: config[key] for key in self.options if config.get(key) is not None}
        if not self.files or "path" in given:
            return self.reader(**given)
        files = tuple(str(data_fetch.raw_path(name)) for name in self.files)  # checked
        key = (self.name, self.reader, files, repr(sorted(given.items())))
        if key not in _VENDORED:
            _VENDORED[key] = self.reader(**given)
        return _VENDORED[key].copy()


#: tables of vendored files read in this process, by source, reader, files and options
_VENDORED: dict[tuple, pd.DataFrame] = {}
