"""Resumable sweeps: every finished batch of jobs is stored as a part file at once.

A job is one (cell, repetition); its rows depend only on the cell (data set, method and
parameters), the repetition, the master seed, the metrics and the code. Parts live in
``<out_dir>/parts/<dataset>/`` beside a ``manifest.json`` holding a key that hashes
everything else those rows depend on; a later run with the same key loads them and skips
their jobs, so a sweep killed at any point resumes where it stopped. Parts are written
atomically (temporary file, then rename), so a kill never leaves a half-written part, and
the results table is always assembled from parts, so a resumed run writes the same bytes
as an uninterrupted one.

Runs heal: a part that cannot be read (truncated, empty, not Parquet, without the result
columns, a folder) is removed with one ``note:`` line on stderr and its jobs are
recomputed; an unreadable manifest discards its data set's parts the same way. Parts are
verified: the manifest holds each part's SHA-256 (entered before the part is written, so a
kill between the two leaves an entry without a file, which is ignored), and a part whose
bytes no longer match, or that the manifest does not list, is recomputed the same way.
Parts stored before parts carried checksums (a manifest without ``parts``) are discarded
with a note: nothing vouches for them, and in a checkout the new code's key discards them
anyway. Once every planned job is stored, :meth:`Checkpoint.compact` merges a data set's
parts into one.
:func:`folder_lock` holds ``<out_dir>/.lock`` for a run, so a second run into the same
folder waits, then reuses the first's parts instead of computing them again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.io import write_atomic

try:
    import fcntl
except ImportError:  # Windows: runs into one folder are not serialized
    fcntl = None  # type: ignore[assignment]

MANIFEST = "manifest.json"
PARTS = "parts"  # the manifest's {part file name: SHA-256 of its bytes}
LOCK = ".lock"
# the columns every part has; a job's rows are told apart by ROW_KEY
COLUMNS = ("cell_id", "rep", "metric", "attribute", "value")
ROW_KEY = ["cell_id", "rep", "metric", "attribute"]


def note(message: str) -> None:
    """Print ``note: message`` as one line on stderr."""
    print(f"note: {message}", file=sys.stderr, flush=True)


def reason(error: BaseException) -> str:
    """The first sentence of ``error``'s message, on one line, without pyarrow's prefix."""
    text = " ".join(str(error).split())
    text = re.sub(r"^Could not open .*? input source '.*?': ", "", text)
    text = text.split(". ")[0].rstrip(".")
    return (text[:117] + "...") if len(text) > 120 else text or type(error).__name__


def _remove(path: Path) -> None:
    """Remove a file or folder; one that cannot be removed is left (it is read again)."""
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _part_name(jobs: Iterable[tuple[Any, Any]]) -> str:
    """``part-<hash of the sorted (cell_id, rep) jobs>.parquet``."""
    unique = sorted({(int(cell), int(rep)) for cell, rep in jobs})
    return f"part-{hashlib.sha256(json.dumps(unique).encode()).hexdigest()[:20]}.parquet"


def checkpoint_key(config: Mapping[str, Any], code: Mapping[str, Any] | None) -> str:
    """Hash of what a job's rows depend on besides its cell and repetition: the master
    seed, the metrics, the data set configs, the methods' and metrics' ``options`` (which
    are not in the cell id), and the code (commit and uncommitted changes,
    :func:`~anonlab.runner.store.git_commit`). Empty options leave the key as it was
    before options existed. A user's files (``dataset.path``, hierarchy files) enter by
    their contents, so editing one between runs recomputes its jobs."""
    datasets = config.get("datasets") or {"": config.get("dataset")}
    relevant = {
        "seed": config.get("seed"),
        "metrics": list(config.get("metrics") or []),
        "metrics_by_attribute": list(config.get("metrics_by_attribute") or []),
        "datasets": datasets,
        "code": dict(code or {}),
    }
    if config.get("options"):
        relevant["options"] = config["options"]
    files = user_files(datasets)
    if files:
        relevant["files"] = files
    text = json.dumps(relevant, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def user_files(datasets: Mapping[str, Any]) -> dict[str, str]:
    """SHA-256 of every existing file the dataset configs name (``path``, the values of
    ``hierarchies`` and of a ``categorical`` mapping), by path."""
    named: list[Any] = []
    for dataset in datasets.values():
        if not isinstance(dataset, Mapping):
            continue
        named.append(dataset.get("path"))
        for key in ("hierarchies", "categorical"):
            if isinstance(dataset.get(key), Mapping):
                named.extend(dataset[key].values())
    hashes = {}
    for name in named:
        file = Path(str(name)).expanduser() if isinstance(name, str) and name else None
        if file is not None and file.is_file():
            hashes[str(name)] = hashlib.sha256(file.read_bytes()).hexdigest()
    return hashes


@dataclass(frozen=True)
class Checkpoint:
    """The part files of one data set of one experiment, valid for ``key``."""

    directory: Path
    key: str

    def _shown(self, path: Path) -> str:
        """``path`` as notes show it: from the results folder on (``parts/census/…``)."""
        try:
            return str(path.relative_to(self.directory.parent.parent))
        except ValueError:
            return str(path)

    def parts(self) -> list[Path]:
        """The stored part files, sorted by name."""
        return sorted(self.directory.glob("part-*.parquet"))

    def manifest(self) -> dict[str, Any] | None:
        """The stored manifest (``None`` if there is none); raises if it is unreadable."""
        path = self.directory / MANIFEST
        if not path.exists() and not path.is_symlink():
            return None
        if not path.is_file():
            raise ValueError("a folder, not a file" if path.is_dir() else "not a file")
        text = path.read_text(encoding="utf-8")
        if not text.strip():
            raise ValueError("empty")
        stored = json.loads(text)
        if not isinstance(stored, dict) or not isinstance(stored.get("key"), str):
            raise ValueError('not a {"key": ...} object')
        digests = stored.get(PARTS, {})
        if not isinstance(digests, dict) or not all(isinstance(v, str) for v in digests.values()):
            raise ValueError(f'"{PARTS}" is not a {{part: sha256}} object')
        return stored

    def _digests(self) -> dict[str, str]:
        """The SHA-256 of each part the manifest lists, by file name (none if the manifest
        is unreadable: its parts were discarded when the checkpoint was opened)."""
        try:
            return dict((self.manifest() or {}).get(PARTS, {}))
        except Exception:
            return {}

    def _write_manifest(self, digests: Mapping[str, str]) -> None:
        text = json.dumps({"key": self.key, PARTS: dict(sorted(digests.items()))}) + "\n"
        write_atomic(self.directory / MANIFEST, lambda tmp: tmp.write_text(text, "utf-8"))

    def _store(self, name: str, frame: pd.DataFrame) -> None:
        """Write ``frame`` as the part ``name``, its SHA-256 entered in the manifest first."""
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        data = buffer.getvalue()
        self._write_manifest({**self._digests(), name: hashlib.sha256(data).hexdigest()})
        write_atomic(self.directory / name, lambda tmp: tmp.write_bytes(data))

    def open(self) -> Checkpoint:
        """Create the directory; discard parts stored under another key, under an
        unreadable manifest or under none, and temporary files a kill left behind."""
        for path in (self.directory.parent, self.directory):
            if (path.exists() or path.is_symlink()) and not path.is_dir():
                note(f"{self._shown(path)} is not a folder; it is removed")
                _remove(path)
        if self.directory.is_dir():
            try:
                stored = self.manifest()
            except Exception as error:  # any unreadable manifest heals
                note(
                    f"{self._shown(self.directory / MANIFEST)} is unreadable "
                    f"({reason(error)}); the parts beside it ({len(self.parts())}) are "
                    "discarded and their jobs recomputed"
                )
                stored = {}
            if stored is None and self.parts():
                note(
                    f"{self._shown(self.directory)} has parts but no {MANIFEST}; they are "
                    "discarded and their jobs recomputed"
                )
            elif stored and stored.get("key") == self.key and PARTS not in stored:
                if self.parts():
                    note(
                        f"{self._shown(self.directory)} holds {len(self.parts())} parts stored "
                        "without checksums (an earlier version); they are discarded and their "
                        "jobs recomputed"
                    )
                stored = {}
            if (stored or {}).get("key") != self.key:
                shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        for leftover in self.directory.glob(".*.tmp"):  # write_atomic's, when killed
            _remove(leftover)
        if not (self.directory / MANIFEST).is_file():
            self._write_manifest({})
        return self

    def _read(self, path: Path, digests: Mapping[str, str]) -> pd.DataFrame | None:
        """The rows of one part, or ``None`` (with a note, the part removed) if it is
        unreadable or its bytes are not those whose SHA-256 ``digests`` holds."""
        try:
            if not path.is_file():
                raise ValueError("a folder, not a file" if path.is_dir() else "not a file")
            data = path.read_bytes()
            frame = pd.read_parquet(io.BytesIO(data))
            missing = [c for c in COLUMNS if c not in frame.columns]
            if missing:
                raise ValueError(f"no column {', '.join(missing)}")
            if frame.empty:
                raise ValueError("no rows")
            for column in ("cell_id", "rep"):
                if not pd.api.types.is_integer_dtype(frame[column]):
                    raise ValueError(f"column {column} is {frame[column].dtype}, not integer")
        except Exception as error:  # any unreadable part is recomputed
            note(f"{self._shown(path)} is unreadable ({reason(error)}); its jobs are recomputed")
            _remove(path)
            return None
        expected = digests.get(path.name)
        if expected != hashlib.sha256(data).hexdigest():
            why = (
                f"has no checksum in {MANIFEST}"
                if expected is None
                else "fails its checksum (changed since it was stored)"
            )
            note(f"{self._shown(path)} {why}; its jobs are recomputed")
            _remove(path)
            return None
        return frame

    def load(self) -> pd.DataFrame:
        """Rows of every readable stored part whose checksum holds (empty frame if none);
        any other part is removed with a note, so its jobs count as not done."""
        digests = self._digests()
        frames = [self._read(path, digests) for path in self.parts()]
        frames = [frame for frame in frames if frame is not None]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def save(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Store the rows of a finished batch as one part, named by its jobs."""
        if not rows:
            return
        frame = pd.DataFrame(list(rows))
        self._store(_part_name((r["cell_id"], r["rep"]) for r in rows), frame)

    def compact(self, stored: pd.DataFrame) -> pd.DataFrame:
        """Merge the parts into one: ``stored`` (what :meth:`load` just returned, under the
        folder's lock) with a job stored twice kept once, from the first part, written
        atomically before the other parts are removed. Returns the merged rows."""
        parts = self.parts()
        frame = stored.drop_duplicates(ROW_KEY, keep="first", ignore_index=True)
        if len(parts) < 2:
            return frame
        target = self.directory / _part_name(zip(frame["cell_id"], frame["rep"], strict=True))
        self._store(target.name, frame)
        for path in parts:
            if path != target:
                _remove(path)
        self._write_manifest({target.name: self._digests()[target.name]})
        return frame


_HELD = threading.local()  # {lock path: depth} of the locks this thread holds


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (``fcntl.flock`` on ``folder/.lock``) while
    the block runs; if another run holds it, say so in one note and wait. Reentrant in
    one thread; released on exceptions; a no-op without ``fcntl`` (Windows)."""
    if fcntl is None:
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK
    held: dict[str, int] = _HELD.__dict__.setdefault("paths", {})
    key = str(path.resolve())
    if key in held:
        held[key] += 1
        try:
            yield
        finally:
            held[key] -= 1
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note(f"another run is writing {folder}; this run waits until it is done")
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as error:  # a file system without locks
            note(f"cannot lock {folder} ({reason(error)}); runs into it are not serialized")
        held[key] = 1
        try:
            yield
        finally:
            del held[key]
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
    finally:
        os.close(fd)
