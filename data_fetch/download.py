"""Re-download the vendored raw files from their canonical sources and check them.

Every file in ``sources.toml`` has a canonical ``url`` and a ``format`` that says how the
canonical file becomes the vendored one. :func:`download_all` fetches each file into a scratch
folder (:func:`fetch`), turns it into the vendored format (:func:`convert`) and grades the
result (:func:`check`):

``ok``
    the converted bytes have the SHA-256 recorded in ``sources.toml``;
``ok (content)``
    the bytes differ, but the content equals that of the checksum-verified vendored file;
``FAIL``
    anything else, with the reason.

Only ``ok`` files may replace vendored ones, so a vendored file always keeps its recorded
checksum. :func:`verify_all` checks the vendored files offline.
"""

from __future__ import annotations

import bz2
import csv
import hashlib
import http.client
import os
import shutil
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anonlab.data_fetch as data_fetch
from anonlab.data_fetch import ChecksumError

__all__ = [
    "DEFAULT_TIMEOUT",
    "FAIL",
    "OK",
    "OK_CONTENT",
    "FetchError",
    "MissingDependencyError",
    "Outcome",
    "check",
    "convert",
    "decompressed_sha256",
    "download_all",
    "fetch",
    "verify_all",
    "verify_file",
]

DEFAULT_TIMEOUT = 60.0
OK = "ok"
OK_CONTENT = "ok (content)"
FAIL = "FAIL"

_CHUNK = 1 << 20
_USER_AGENT = "anonlab-data_fetch (Python urllib)"
_FETCH_EXTRA = "pip install 'anonlab[fetch]'"

#: ``opener(request, timeout=...)`` returning a context manager with ``read``, like ``urlopen``.
Opener = Callable[..., Any]
#: ``fetcher(url, dest, timeout=...)`` writing the file ``dest`` and returning its path.
Fetcher = Callable[..., Path]


class FetchError(OSError):
    """A canonical source could not be downloaded."""


class MissingDependencyError(ImportError):
    """An optional package needed for a conversion is not installed."""


@dataclass(frozen=True)
class Outcome:
    """Result for one data file: ``status`` is ``ok``, ``ok (content)`` or ``FAIL``."""

    name: str
    status: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        """Whether the file failed."""
        return self.status == FAIL

    def line(self) -> str:
        """One report line: ``ok  NAME`` or ``FAIL NAME: reason``."""
        text = f"{self.status:<3} {self.name}"
        return f"{text}: {self.detail}" if self.detail else text


# --------------------------------------------------------------------------- manifest


def _entry(name: str) -> dict[str, str]:
    files = data_fetch.manifest()
    if name not in files:
        raise KeyError(f"unknown data file {name!r}; known: {sorted(files)}")
    return files[name]


def _vendored_path(name: str) -> Path:
    _entry(name)
    return Path(data_fetch.raw_dir()) / name


# --------------------------------------------------------------------------- verify


def verify_file(name: str) -> Path:
    """Check the vendored copy of ``name`` against its recorded SHA-256; return its path."""
    path = _vendored_path(name)
    data_fetch.verify(path, _entry(name)["sha256"])
    return path


def verify_all(names: Iterable[str] | None = None) -> list[Outcome]:
    """Check the vendored copies of ``names`` (default: every file in the manifest)."""
    outcomes = []
    for name in list(data_fetch.manifest()) if names is None else list(names):
        try:
            verify_file(name)
        except (ChecksumError, OSError, KeyError) as exc:
            outcomes.append(Outcome(name, FAIL, _message(exc)))
        else:
            outcomes.append(Outcome(name, OK))
    return outcomes


# --------------------------------------------------------------------------- fetch


def fetch(
    url: str, dest: Path, *, timeout: float = DEFAULT_TIMEOUT, opener: Opener | None = None
) -> Path:
    """Download ``url`` to the file ``dest``; raise :class:`FetchError` naming the URL.

    ``opener`` defaults to :func:`urllib.request.urlopen` (looked up at call time, so tests can
    monkeypatch it); a partial file is removed on failure.
    """
    open_url = urllib.request.urlopen if opener is None else opener
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
    try:
        with open_url(request, timeout=timeout) as response, open(dest, "wb") as out:
            shutil.copyfileobj(response, out, _CHUNK)
    except urllib.error.HTTPError as exc:
        dest.unlink(missing_ok=True)
        raise FetchError(f"could not download {url}: HTTP {exc.code} {exc.reason}") from exc
    except urllib.error.URLError as exc:
        dest.unlink(missing_ok=True)
        raise FetchError(
            f"could not download {url}: {exc.reason} (is this machine online?)"
        ) from exc
    except (TimeoutError, OSError, http.client.HTTPException, ValueError) as exc:
        dest.unlink(missing_ok=True)
        raise FetchError(f"could not download {url}: {_message(exc)}") from exc
    return dest


# --------------------------------------------------------------------------- convert


def convert(name: str, downloaded: Path, out_dir: Path) -> Path:
    """Turn the canonical file ``downloaded`` into ``out_dir / name`` in the vendored format."""
    fmt = _entry(name)["format"]
    if fmt not in _CONVERTERS:
        raise ValueError(f"unknown format {fmt!r} for data file {name!r}")
    out_dir = Path(out_dir)
    if out_dir.resolve() == Path(data_fetch.raw_dir()).resolve():
        raise ValueError("refusing to convert into the vendored folder; use a scratch folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / name
    if out.resolve() == Path(downloaded).resolve():
        raise ValueError(f"converting {str(downloaded)!r} would overwrite it")
    _CONVERTERS[fmt](Path(downloaded), out)
    return out


def _convert_identical(downloaded: Path, out: Path) -> None:
    """Byte copy."""
    shutil.copyfile(downloaded, out)


def _convert_bzip2(downloaded: Path, out: Path) -> None:
    """Compress the canonical text with bzip2 level 9, after unzipping it if it came zipped."""
    with _open_unzipped(downloaded) as source, bz2.open(out, "wb", compresslevel=9) as sink:
        shutil.copyfileobj(source, sink, _CHUNK)


@contextmanager
def _open_unzipped(path: Path) -> Iterator[IO[bytes]]:
    """Open ``path`` for reading; a zip archive (magic ``PK``) yields its single member."""
    with open(path, "rb") as handle:
        zipped = handle.read(2) == b"PK"
    if not zipped:
        with open(path, "rb") as handle:
            yield handle
        return
    with zipfile.ZipFile(path) as archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) != 1:
            names = [info.filename for info in members]
            raise ValueError(f"zip archive {str(path)!r} should hold one file, found {names}")
        with archive.open(members[0]) as member:
            yield member


def _convert_semicolon_to_comma(downloaded: Path, out: Path) -> None:
    """Rewrite ``;``-separated text with a quoted header as comma-separated, unquoted, LF.

    Fields are copied as text (numbers keep their spelling); blank lines are dropped.
    """
    lines = []
    with open(downloaded, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter=";")
        width = None
        for row in reader:
            if not row or row == [""]:
                continue
            if width is None:
                width = len(row)
            if len(row) != width:
                raise ValueError(
                    f"{str(downloaded)!r} line {reader.line_num}: "
                    f"{len(row)} fields, expected {width}"
                )
            bad = [field for field in row if any(char in field for char in ',"\r\n')]
            if bad:
                raise ValueError(
                    f"{str(downloaded)!r} line {reader.line_num}: field {bad[0]!r} "
                    "cannot be written unquoted"
                )
            lines.append(",".join(row) + "\n")
    if not lines:
        raise ValueError(f"{str(downloaded)!r} holds no rows")
    with open(out, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(lines)


def _import_pyreadr() -> Any:
    try:
        import pyreadr
    except ImportError as exc:
        raise MissingDependencyError(
            "converting the sdcMicro .rda file needs the optional package pyreadr; "
            f"install it with: {_FETCH_EXTRA}"
        ) from exc
    return pyreadr


def _convert_rda_to_csv(downloaded: Path, out: Path) -> None:
    """Read the R data set named like ``out`` with pyreadr; write CSV (LF, header, no index)."""
    pyreadr = _import_pyreadr()
    try:
        objects = pyreadr.read_r(str(downloaded))
    except Exception as exc:  # pyreadr raises its own exception classes
        raise ValueError(f"cannot read {str(downloaded)!r} as R data: {_message(exc)}") from exc
    wanted = out.stem
    if wanted in objects:
        frame = objects[wanted]
    elif len(objects) == 1:
        frame = next(iter(objects.values()))
    else:
        raise ValueError(f"{str(downloaded)!r} holds {list(objects)}, not {wanted!r}")
    _integral_as_int(frame).to_csv(out, index=False, lineterminator="\n")


def _integral_as_int(frame: Any) -> Any:
    """Copy of ``frame`` with float columns holding only whole numbers cast to int64."""
    import numpy as np
    import pandas as pd

    frame = frame.copy()
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_bool_dtype(values):
            continue
        if pd.api.types.is_integer_dtype(values):
            if not values.isna().any():
                frame[column] = values.astype("int64")
        elif pd.api.types.is_float_dtype(values):
            array = values.to_numpy(dtype=float)
            whole = np.isfinite(array).all() and (array == np.round(array)).all()
            if whole and (np.abs(array) < 2.0**53).all():
                frame[column] = array.astype("int64")
    return frame


_CONVERTERS: dict[str, Callable[[Path, Path], None]] = {
    "identical": _convert_identical,
    "bzip2": _convert_bzip2,
    "semicolon-to-comma": _convert_semicolon_to_comma,
    "rda-to-csv": _convert_rda_to_csv,
}


# --------------------------------------------------------------------------- check


def check(name: str, candidate: Path) -> str:
    """Grade ``candidate`` (vendored format) for ``name``: ``ok`` or ``ok (content)``.

    ``ok`` means ``candidate`` has the recorded SHA-256. Otherwise, for a converted format,
    its content is compared with the checksum-verified vendored file (see
    :func:`decompressed_sha256` for bzip2, parsed tables for CSV). Raise
    :class:`~data_fetch.ChecksumError` when neither holds.
    """
    info = _entry(name)
    expected = info["sha256"]
    actual = data_fetch.sha256_of(candidate)
    if actual == expected:
        return OK
    if info["format"] == "identical":
        data_fetch.verify(Path(candidate), expected)  # raises, naming file and both digests
    try:
        reference = verify_file(name)
    except (ChecksumError, OSError) as exc:
        raise ChecksumError(
            f"{str(candidate)!r} has sha256 {actual}, expected {expected}; its content cannot "
            f"be compared because the vendored file is not intact: {_message(exc)}"
        ) from exc
    if info["format"] == "bzip2":
        _same_decompressed(Path(candidate), reference)
    else:
        _same_table(Path(candidate), reference)
    return OK_CONTENT


def decompressed_sha256(path: Path) -> str:
    """Hex SHA-256 of the decompressed content of the bzip2 file ``path``.

    bzip2 output is not byte-stable across compressors and settings, so a re-downloaded NHDS
    text is checked by comparing its SHA-256 with that of the decompressed vendored file
    (itself verified against the recorded checksum of the compressed bytes).
    """
    digest = hashlib.sha256()
    with bz2.open(path, "rb") as handle:
        while block := handle.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _same_decompressed(candidate: Path, reference: Path) -> None:
    # bz2 releases the GIL, so the two streams decompress in parallel.
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs = pool.submit(decompressed_sha256, candidate)
        ours = pool.submit(decompressed_sha256, reference)
        try:
            got = theirs.result()
        except (OSError, EOFError, ValueError) as exc:
            raise ChecksumError(f"{str(candidate)!r} is not a valid bzip2 file: {exc}") from exc
        want = ours.result()
    if got != want:
        raise ChecksumError(
            f"decompressed content of {str(candidate)!r} has sha256 {got}, "
            f"but the vendored {reference.name} decompresses to sha256 {want}"
        )


def _same_table(candidate: Path, reference: Path) -> None:
    import pandas as pd

    try:
        got = pd.read_csv(candidate)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ChecksumError(f"cannot parse {str(candidate)!r} as CSV: {exc}") from exc
    want = pd.read_csv(reference)
    got.columns = [str(column).strip().strip('"') for column in got.columns]
    if list(got.columns) != list(want.columns):
        raise ChecksumError(
            f"columns of {str(candidate)!r} differ from the vendored {reference.name}: "
            f"{list(got.columns)} != {list(want.columns)}"
        )
    try:
        pd.testing.assert_frame_equal(got, want, check_exact=True)
    except AssertionError as exc:
        summary = " ".join(str(exc).split())[:300]
        raise ChecksumError(
            f"content of {str(candidate)!r} differs from the vendored {reference.name}: {summary}"
        ) from exc


# --------------------------------------------------------------------------- download


def download_all(
    names: Sequence[str] | None = None,
    dest: Path | None = None,
    *,
    replace: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    fetcher: Fetcher | None = None,
    report: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Fetch, convert and check ``names`` (default: all) into ``dest`` (default: a new temp dir).

    Downloads go to a temporary folder that is removed afterwards; converted files stay in
    ``dest``. With ``replace``, files graded ``ok`` are copied atomically over the vendored
    ones; nothing else is ever written to the vendored folder. ``fetcher`` defaults to
    :func:`fetch`; ``report`` is called with each outcome as soon as it is known.
    """
    names = list(data_fetch.manifest()) if names is None else list(names)
    for name in names:
        _entry(name)
    get = fetch if fetcher is None else fetcher
    if dest is None:
        dest = Path(tempfile.mkdtemp(prefix="data_fetch-"))
    dest = Path(dest)
    if dest.resolve() == Path(data_fetch.raw_dir()).resolve():
        raise ValueError("--dest must not be the vendored folder; use --replace to update it")
    dest.mkdir(parents=True, exist_ok=True)

    outcomes = []
    with tempfile.TemporaryDirectory(prefix="data_fetch-download-") as scratch:
        for name in names:
            outcome = _download_one(name, Path(scratch) / name, dest, get, timeout, replace)
            outcomes.append(outcome)
            if report is not None:
                report(outcome)
    return outcomes


def _download_one(
    name: str, scratch: Path, dest: Path, get: Fetcher, timeout: float, replace: bool
) -> Outcome:
    info = _entry(name)
    url = info["url"]
    target = scratch / (Path(urllib.parse.urlsplit(url).path).name or name)
    try:
        downloaded = get(url, target, timeout=timeout)
        candidate = convert(name, Path(downloaded), dest)
        status = check(name, candidate)
    except (OSError, ValueError, ImportError, EOFError, zipfile.BadZipFile) as exc:
        return Outcome(name, FAIL, _message(exc))
    notes = []
    if status == OK_CONTENT:
        notes.append(
            f"content equals the vendored file; converted bytes have sha256 "
            f"{data_fetch.sha256_of(candidate)}, not the recorded {info['sha256']}"
        )
    if replace:
        if status != OK:
            notes.append("vendored file kept (only byte-identical files replace it)")
        else:
            try:
                _install(name, candidate)
            except (OSError, ValueError) as exc:
                return Outcome(
                    name,
                    FAIL,
                    f"verified, but could not replace the vendored file: {_message(exc)}",
                )
            notes.append("vendored file replaced")
    return Outcome(name, status, "; ".join(notes))


def _install(name: str, candidate: Path) -> None:
    """Copy ``candidate`` over the vendored file via a temp file and :func:`os.replace`."""
    expected = _entry(name)["sha256"]
    data_fetch.verify(candidate, expected)
    target = _vendored_path(name)
    handle = tempfile.NamedTemporaryFile(
        dir=target.parent, prefix=f".{name}.", suffix=".tmp", delete=False
    )
    temp = Path(handle.name)
    try:
        with handle, open(candidate, "rb") as source:
            shutil.copyfileobj(source, handle, _CHUNK)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            shutil.copymode(target, temp)
        else:
            temp.chmod(0o644)
        data_fetch.verify(temp, expected)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _message(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return str(exc) or type(exc).__name__
