"""A scratch copy of the package for the tests that add files to it as a contributor would
(tests/test_plugins.py, tests/test_extension.py): made of links to the live files, except
the folders that receive a new file, whose files are copies, so that no file written into
the scratch package reaches the live one, even one of the same name as a contributor's."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable
from pathlib import Path

CACHE = "__pycache__"


def _linked_cache(source: Path, target: Path) -> None:
    """``target`` as a folder of links to the compiled files of ``source`` (Python and
    Numba replace a stale one by renaming a new file over the link, never through it)."""
    target.mkdir()
    for child in source.iterdir():
        if child.is_file():
            (target / child.name).symlink_to(child.resolve())


def scratch_package(
    source: Path, target: Path, receiving: Iterable[str], copied: Iterable[str] = ()
) -> None:
    """``target`` as a scratch copy of the package folder ``source``.

    Parameters
    ----------
    source, target
        The live package and the folder to create (it must not exist).
    receiving
        The folders (paths relative to ``source``, e.g. ``conf/experiment``) that new files
        are written into: real folders whose files are copies of the live ones; the folders
        that lead to them are real folders too, their other entries links.
    copied
        Single files (relative paths, in a real folder) copied rather than linked, e.g. a
        module whose resolved path decides where the package finds its configs.
    """
    receiving, copied = set(receiving), set(copied)
    _scratch(source.resolve(), target, receiving, copied, "")


def _scratch(source: Path, target: Path, receiving: set[str], copied: set[str], at: str) -> None:
    target.mkdir(parents=not at)
    receives = at in receiving
    for child in sorted(source.iterdir()):
        where = f"{at}/{child.name}".lstrip("/")
        if child.name == CACHE and child.is_dir():
            _linked_cache(child, target / CACHE)
        elif child.is_dir() and any(r == where or r.startswith(f"{where}/") for r in receiving):
            _scratch(child.resolve(), target / child.name, receiving, copied, where)
        elif child.is_file() and (receives or where in copied):
            shutil.copy2(child, target / child.name)  # its time kept: its caches stay valid
        else:
            (target / child.name).symlink_to(child.resolve())


def tree_digest(root: Path, folders: Iterable[str] = ("",)) -> str:
    """SHA-256 over the names and contents of the files under ``root``'s ``folders``
    (links followed, compiled caches left out): whether anything there changed."""
    digest = hashlib.sha256()
    for folder in folders:
        base = (root / folder).resolve()
        for path in sorted(base.rglob("*")):
            if CACHE in path.relative_to(base).parts or not path.is_file():
                continue
            digest.update(f"{folder}/{path.relative_to(base)}".encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
