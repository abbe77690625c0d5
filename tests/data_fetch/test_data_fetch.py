"""Offline tests of ``data_fetch`` verification, conversion and (fake) download."""

from __future__ import annotations

import bz2
import io
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from anonlab import data_fetch
from anonlab.data_fetch import ChecksumError, download
from anonlab.data_fetch.__main__ import main

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

REPO = Path(__file__).resolve().parents[2]
WINE = "winequality-white.csv"
NHDS = "NHDS10.PU.txt.bz2"
CENSUS = "CASCrefmicrodata.csv"
SMALL = "winequality.names"


def _vendored(name: str) -> Path:
    return data_fetch.raw_dir() / name


def _tampered_copy(name: str, folder: Path) -> Path:
    """Copy of the vendored ``name`` in ``folder`` with its first byte changed."""
    folder.mkdir(parents=True, exist_ok=True)
    data = bytearray(_vendored(name).read_bytes())
    data[0] ^= 0x01
    path = folder / name
    path.write_bytes(bytes(data))
    return path


def _copying_fetcher(sources: dict[str, Path]):
    """Fake :func:`download.fetch` that copies local files instead of downloading."""
    calls = []

    def fake(url: str, dest: Path, *, timeout: float = download.DEFAULT_TIMEOUT) -> Path:
        calls.append((url, timeout))
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(sources[url], dest)
        return Path(dest)

    fake.calls = calls
    return fake


def _url(name: str) -> str:
    return data_fetch.manifest()[name]["url"]


# --------------------------------------------------------------------------- verify


def test_verify_all_passes_on_vendored_files():
    outcomes = download.verify_all()
    assert [outcome.name for outcome in outcomes] == list(data_fetch.manifest())
    assert all(outcome.status == download.OK for outcome in outcomes), outcomes


def test_cli_verify_subprocess():
    result = subprocess.run(
        [sys.executable, "-m", "data_fetch", "verify"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines == [f"ok  {name}" for name in data_fetch.manifest()]


def test_tampered_copy_fails_with_both_digests(tmp_path, monkeypatch, capsys):
    tampered = _tampered_copy(SMALL, tmp_path)
    monkeypatch.setattr(data_fetch, "raw_dir", lambda: tmp_path)
    expected = data_fetch.manifest()[SMALL]["sha256"]
    actual = data_fetch.sha256_of(tampered)

    with pytest.raises(ChecksumError) as info:
        download.verify_file(SMALL)
    message = str(info.value)
    assert str(tampered) in message and actual in message and expected in message

    [outcome] = download.verify_all([SMALL])
    assert outcome.failed and expected in outcome.detail

    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {SMALL}: checksum mismatch" in out
    assert f"FAIL {WINE}: " in out  # missing from tmp_path


# --------------------------------------------------------------------------- conversions


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_semicolon_to_comma_round_trip(tmp_path, newline):
    vendored = _vendored(WINE).read_text(encoding="utf-8").splitlines()
    header = ";".join(f'"{column}"' for column in vendored[0].split(","))
    body = [line.replace(",", ";") for line in vendored[1:]]
    canonical = tmp_path / "canonical" / WINE
    canonical.parent.mkdir()
    canonical.write_bytes(newline.join([header, *body, ""]).encode())

    out = download.convert(WINE, canonical, tmp_path / "out")

    assert out == tmp_path / "out" / WINE
    assert out.read_bytes() == _vendored(WINE).read_bytes()
    assert download.check(WINE, out) == download.OK


def test_wine_check_by_content_and_failure(tmp_path):
    lines = _vendored(WINE).read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[1].startswith("7,")
    respelled = tmp_path / "a" / WINE
    respelled.parent.mkdir()
    respelled.write_text("".join([lines[0], "7.0" + lines[1][1:], *lines[2:]]))
    assert download.check(WINE, respelled) == download.OK_CONTENT

    changed = tmp_path / "b" / WINE
    changed.parent.mkdir()
    changed.write_text("".join([lines[0], "8" + lines[1][1:], *lines[2:]]))
    with pytest.raises(ChecksumError, match="differs from the vendored"):
        download.check(WINE, changed)


def test_semicolon_to_comma_rejects_ragged_rows(tmp_path):
    canonical = tmp_path / WINE
    canonical.write_text('"a";"b"\n1;2\n3\n')
    with pytest.raises(ValueError, match="line 3"):
        download.convert(WINE, canonical, tmp_path / "out")


def _recompress(source: Path, dest: Path, level: int) -> None:
    """Decompress ``source`` into ``dest`` at bzip2 ``level``, reading and writing in overlap."""
    with (
        ThreadPoolExecutor(max_workers=1) as pool,
        bz2.open(source, "rb") as reader,
        bz2.open(dest, "wb", compresslevel=level) as writer,
    ):
        pending = pool.submit(reader.read, 1 << 20)
        while block := pending.result():
            pending = pool.submit(reader.read, 1 << 20)
            writer.write(block)


def test_bzip2_check_accepts_other_compression_level(tmp_path, monkeypatch):
    # the vendored NHDS file in miniature (1.9 MB of records, compressed at level 9): more
    # than one read chunk and several bzip2 blocks, without re-compressing 30 MB
    text = b"".join(b"10 record %07d\r\n" % i for i in range(100_000))
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / NHDS).write_bytes(bz2.compress(text, 9))
    entry = {**data_fetch.manifest()[NHDS], "sha256": data_fetch.sha256_of(raw / NHDS)}
    assert entry["format"] == "bzip2"
    monkeypatch.setattr(data_fetch, "raw_dir", lambda: raw)
    monkeypatch.setattr(data_fetch, "manifest", lambda: {NHDS: entry})
    candidate = tmp_path / NHDS
    _recompress(raw / NHDS, candidate, level=1)
    assert data_fetch.sha256_of(candidate) != data_fetch.manifest()[NHDS]["sha256"]
    assert download.check(NHDS, candidate) == download.OK_CONTENT


@pytest.fixture
def tiny_bzip2(tmp_path, monkeypatch):
    """A one-file manifest holding a small bzip2 file, vendored in ``tmp_path / 'raw'``."""
    raw = tmp_path / "raw"
    raw.mkdir()
    text = b"10 first record\r\n10 second record\r\n"
    (raw / "tiny.txt.bz2").write_bytes(bz2.compress(text, 9))
    files = {
        "tiny.txt.bz2": {
            "sha256": data_fetch.sha256_of(raw / "tiny.txt.bz2"),
            "url": "https://example.invalid/tiny.txt",
            "format": "bzip2",
        }
    }
    monkeypatch.setattr(data_fetch, "raw_dir", lambda: raw)
    monkeypatch.setattr(data_fetch, "manifest", lambda: files)
    return text


def test_bzip2_convert_plain_and_zipped(tmp_path, tiny_bzip2):
    plain = tmp_path / "tiny.txt"
    plain.write_bytes(tiny_bzip2)
    out = download.convert("tiny.txt.bz2", plain, tmp_path / "plain")
    assert bz2.decompress(out.read_bytes()) == tiny_bzip2
    assert download.check("tiny.txt.bz2", out) == download.OK

    zipped = tmp_path / "tiny.zip"
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("TINY.TXT", tiny_bzip2)
    out = download.convert("tiny.txt.bz2", zipped, tmp_path / "zipped")
    assert bz2.decompress(out.read_bytes()) == tiny_bzip2


def test_bzip2_rejects_other_content_and_multi_member_zip(tmp_path, tiny_bzip2):
    other = tmp_path / "other" / "tiny.txt.bz2"
    other.parent.mkdir()
    other.write_bytes(bz2.compress(tiny_bzip2 + b"10 extra record\r\n", 1))
    with pytest.raises(ChecksumError, match="decompresses to sha256"):
        download.check("tiny.txt.bz2", other)

    zipped = tmp_path / "two.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("a.txt", b"a")
        archive.writestr("b.txt", b"b")
    with pytest.raises(ValueError, match="should hold one file"):
        download.convert("tiny.txt.bz2", zipped, tmp_path / "out")


def test_rda_conversion_without_pyreadr_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyreadr", None)
    fake = tmp_path / "CASCrefmicrodata.rda"
    fake.write_bytes(b"RDX2\n")
    with pytest.raises(download.MissingDependencyError, match=r"pip install 'anonlab\[fetch\]'"):
        download.convert(CENSUS, fake, tmp_path / "out")


def test_rda_round_trip(tmp_path):
    pyreadr = pytest.importorskip("pyreadr")
    import pandas as pd

    frame = pd.read_csv(_vendored(CENSUS)).astype(float)  # R stores them as doubles
    rda = tmp_path / "CASCrefmicrodata.rda"
    pyreadr.write_rdata(str(rda), frame, df_name="CASCrefmicrodata")
    out = download.convert(CENSUS, rda, tmp_path / "out")
    assert download.check(CENSUS, out) == download.OK


def test_convert_refuses_vendored_folder(tmp_path):
    source = tmp_path / SMALL
    shutil.copyfile(_vendored(SMALL), source)
    with pytest.raises(ValueError, match="vendored folder"):
        download.convert(SMALL, source, data_fetch.raw_dir())


# --------------------------------------------------------------------------- fetch / download


def test_fetch_with_injected_opener(tmp_path):
    seen = {}

    def opener(request, timeout):
        seen["url"], seen["timeout"] = request.full_url, timeout
        return io.BytesIO(b"payload")

    dest = download.fetch("https://example.invalid/x", tmp_path / "a" / "x", opener=opener)
    assert dest.read_bytes() == b"payload"
    assert seen == {"url": "https://example.invalid/x", "timeout": download.DEFAULT_TIMEOUT}


def test_unreachable_url_gives_clear_error(tmp_path, monkeypatch):
    url = "https://example.invalid/adult.names"

    def unreachable(request, timeout):
        raise urllib.error.URLError("Name or service not known")

    with pytest.raises(download.FetchError, match=f"could not download {url}: Name or service"):
        download.fetch(url, tmp_path / "x", opener=unreachable, timeout=5)
    assert not (tmp_path / "x").exists()

    monkeypatch.setattr(urllib.request, "urlopen", unreachable)
    [outcome] = download.download_all([SMALL], tmp_path / "out")
    assert outcome.failed
    assert _url(SMALL) in outcome.detail and "could not download" in outcome.detail


def test_download_with_fake_fetch(tmp_path, monkeypatch, capsys):
    corrupted = _tampered_copy("adult.names", tmp_path / "served")
    fake = _copying_fetcher({_url(SMALL): _vendored(SMALL), _url("adult.names"): corrupted})

    outcomes = download.download_all([SMALL, "adult.names"], tmp_path / "out", fetcher=fake)
    assert [(o.name, o.status) for o in outcomes] == [
        (SMALL, download.OK),
        ("adult.names", download.FAIL),
    ]
    assert data_fetch.manifest()["adult.names"]["sha256"] in outcomes[1].detail
    assert (tmp_path / "out" / SMALL).read_bytes() == _vendored(SMALL).read_bytes()

    monkeypatch.setattr(download, "fetch", fake)
    dest = tmp_path / "cli"
    status = main(["download", "--dest", str(dest), "--only", SMALL, "adult.names"])
    assert status == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"ok  {SMALL}"
    assert lines[1].startswith("FAIL adult.names: checksum mismatch")
    assert main(["download", "--dest", str(dest), "--only", SMALL, "--timeout", "3"]) == 0
    assert fake.calls[-1] == (_url(SMALL), 3.0)


def test_download_replace_only_installs_verified_files(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    stale = _tampered_copy(SMALL, raw)  # vendored copy that --replace should repair
    kept = raw / "adult.names"
    shutil.copyfile(_vendored("adult.names"), kept)
    before = kept.read_bytes()
    served = _tampered_copy("adult.names", tmp_path / "served")
    fake = _copying_fetcher({_url(SMALL): _vendored(SMALL), _url("adult.names"): served})
    monkeypatch.setattr(data_fetch, "raw_dir", lambda: raw)

    outcomes = download.download_all(
        [SMALL, "adult.names"], tmp_path / "out", replace=True, fetcher=fake
    )

    assert [o.status for o in outcomes] == [download.OK, download.FAIL]
    assert "replaced" in outcomes[0].detail
    assert stale.read_bytes() == _vendored(SMALL).read_bytes()
    assert kept.read_bytes() == before
    assert sorted(path.name for path in raw.iterdir()) == ["adult.names", SMALL]


def test_download_refuses_vendored_folder_as_dest():
    with pytest.raises(ValueError, match="vendored folder"):
        download.download_all([SMALL], data_fetch.raw_dir(), fetcher=_copying_fetcher({}))


def test_cli_rejects_unknown_name(capsys):
    with pytest.raises(SystemExit) as info:
        main(["download", "--only", "nope.csv"])
    assert info.value.code == 2
    assert "unknown data file" in capsys.readouterr().err
