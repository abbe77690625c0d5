"""Atomic file writes: write to a temporary file beside the target, then rename.

A write the storage refuses (a full disk, a quota, a file size limit, a read-only file
system) raises a :class:`StorageError` naming the folder, the temporary file removed and
the target as it was: nothing is ever half-written."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

#: what the storage answers when it cannot take a write, and what to do about it
STORAGE_ERRNOS = {
    errno.ENOSPC: "free some space",
    errno.EDQUOT: "free some space within the quota",
    errno.EFBIG: "raise the file size limit (ulimit -f)",
    errno.EROFS: "choose a writable results_dir",
}


class StorageError(OSError):
    """A write the storage refused in ``folder`` (:data:`STORAGE_ERRNOS`); nothing in it
    was half-written, so the same command resumes once the cause is gone."""

    def __init__(self, code: int, folder: Path) -> None:
        super().__init__(code, os.strerror(code))
        self.folder = folder

    def __str__(self) -> str:
        return (
            f"cannot write in {self.folder} ({self.strerror}); nothing was half-written: "
            f"{STORAGE_ERRNOS.get(self.errno or 0, 'fix the storage')}, then run the same "
            "command to resume"
        )


def storage_error(error: BaseException, folder: Path) -> StorageError | None:
    """``error`` as a :class:`StorageError` in ``folder`` if it is the storage refusing a
    write, else ``None``."""
    if isinstance(error, StorageError):
        return error
    if isinstance(error, OSError) and error.errno in STORAGE_ERRNOS:
        return StorageError(error.errno, folder)
    return None


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; rename it onto ``target`` on success. A
    write the storage refuses raises a :class:`StorageError`, the target unchanged."""
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 → what open() would have given
        os.replace(tmp, target)
    except OSError as error:
        refused = storage_error(error, target.parent)
        if refused is None:
            raise
        raise refused from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(target: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` and move ``tmp`` onto ``target``."""
    with atomic_path(target) as tmp:
        write(tmp)
    return target
