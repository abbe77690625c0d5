"""Vendored raw data files, verified by SHA-256 before use.

The files in ``data_fetch/raw`` are the unchanged originals listed in ``sources.toml``.
:func:`raw_path` is the only way the harness reaches them: it checks the checksum first,
so a corrupted or edited file is refused before any work starts.
"""

from __future__ import annotations

import hashlib
import tomllib
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["ChecksumError", "manifest", "raw_dir", "raw_path", "sha256_of", "verify"]


class ChecksumError(ValueError):
    """A vendored data file is missing or does not match the checksum recorded in
    ``sources.toml``."""


def raw_dir() -> Path:
    """Folder holding the vendored raw files."""
    return Path(str(resources.files(__name__) / "raw"))


@cache
def manifest() -> dict[str, dict[str, str]]:
    """The ``[files.*]`` tables of ``sources.toml``, keyed by file name."""
    text = (resources.files(__name__) / "sources.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["files"]


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 digest of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str) -> None:
    """Raise :class:`ChecksumError` unless ``path`` has SHA-256 ``expected``."""
    if not path.is_file():
        raise ChecksumError(
            f"data file {str(path)!r} is missing; restore data_fetch/raw from "
            "the repository or run python -m anonlab.data_fetch download"
        )
    actual = sha256_of(path)
    if actual != expected:
        raise ChecksumError(
            f"checksum mismatch for data file {str(path)!r}: sha256 {actual}, expected {expected}"
        )


@cache
def _verified(name: str, directory: str) -> Path:
    path = Path(directory) / name
    verify(path, manifest()[name]["sha256"])
    return path


def raw_path(name: str) -> Path:
    """Path of the vendored file ``name`` after checking its SHA-256 (once per process)."""
    if name not in manifest():
        raise KeyError(f"unknown data file {name!r}; known: {sorted(manifest())}")
    return _verified(name, str(raw_dir()))
