"""Tables that do not depend on a run's data, computed once per code version.

The arena's audit tables (``audited_epsilon``, ``floating_point``, ``attack``) run on their
own data sets with their own seeds, whatever the run's data: a table builder that says so
(``builder.data_independent = True``; it is then called as ``builder(None, n_jobs=N)``) is
computed once and kept in a cache keyed by its name and the SHA-256 of the package's code
and configs (:func:`anonlab.provenance.source_digest`), which every later run of the same
code reuses, on any data. The cache is ``cache_dir`` (config key), by default
``$XDG_CACHE_HOME/anonlab`` (``~/.cache/anonlab``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonlab.io import write_atomic
from anonlab.provenance import source_digest
from anonlab.validation import ParameterError

if TYPE_CHECKING:  # pandas only where a table is read or written: validation stays light
    import pandas as pd

#: the config key of the cache's folder
CACHE_KEY = "cache_dir"


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/anonlab``, or ``~/.cache/anonlab``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "anonlab"


def check_cache_dir(value: Any) -> Path:
    """The cache folder ``value`` names (``None``: :func:`default_cache_dir`), or one
    :class:`ParameterError` naming ``cache_dir``: not a path, or a file."""
    if value is None:
        return default_cache_dir()
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{CACHE_KEY} must name a folder, got {value!r}")
    folder = Path(value).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ParameterError(f"{CACHE_KEY}={value!r} is a file, not a folder")
    return folder


def data_independent(builder: Callable[..., pd.DataFrame]) -> bool:
    """Whether a table builder declares that it does not read the run's results."""
    return bool(getattr(builder, "data_independent", False))


def cache_path(name: str, builder: Callable[..., pd.DataFrame], folder: Path) -> Path:
    """Where ``builder``'s table of this code version is kept."""
    key = f"{builder.__module__}.{builder.__qualname__}"
    return folder / "tables" / f"{name}-{key}-{source_digest()[:16]}.parquet"


def cached_table(
    name: str,
    builder: Callable[..., pd.DataFrame],
    folder: Path,
    *,
    n_jobs: int,
    compute: bool = True,
) -> tuple[pd.DataFrame | None, str | None]:
    """The table of a data-independent ``builder``: read from the cache, else computed
    on ``n_jobs`` processes and stored (unless ``compute`` is false: ``None``), with a note
    when the cache could not be read or written."""
    import pandas as pd

    path = cache_path(name, builder, folder)
    damaged = ""
    if path.is_file():
        try:
            return pd.read_parquet(path), None
        except (OSError, ValueError) as error:  # damaged: computed again below
            damaged = f"cached table {name!r} at {path} could not be read ({error}); "
    if not compute:
        return None, (
            f"{damaged}table {name!r} is not in the cache ({folder}) for this code version "
            "and plot_only=true computes nothing: run without plot_only=true to compute it"
        )
    table = builder(None, n_jobs=n_jobs)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda tmp: table.to_parquet(tmp, index=False))
    except OSError as error:
        return table, f"{damaged}table {name!r} was not cached ({error}); computed for this run"
    return table, (f"{damaged}computed again" if damaged else None)


__all__ = [
    "CACHE_KEY",
    "cache_path",
    "cached_table",
    "check_cache_dir",
    "data_independent",
    "default_cache_dir",
]
