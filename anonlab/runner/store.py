"""The result store: tidy table and provenance, written atomically."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from collections.abc import Sequence
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.io import write_atomic

PACKAGES = (
    "anonlab",
    "numpy",
    "pandas",
    "scipy",
    "matplotlib",
    "hydra-core",
    "omegaconf",
    "joblib",
    "scikit-learn",
    "pyarrow",
    "tqdm",
)


def finite_rows(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``table`` without the rows whose ``value`` is not a finite number (an overflow, a
    division by zero: nothing a figure or a verdict can use), and a note per metric and
    method saying how many were left out."""
    values = pd.to_numeric(table["value"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if not bad.any():
        return table, []
    notes = []
    dropped = table[bad].assign(_inf=np.isinf(values[bad]))
    for (metric, method), rows in dropped.groupby(["metric", "method"], sort=False):
        kinds = " or ".join(
            k for k, hit in (("inf", rows["_inf"].any()), ("NaN", (~rows["_inf"]).any())) if hit
        )
        total = int(((table["metric"] == metric) & (table["method"] == method)).sum())
        notes.append(
            f"metric {metric!r} of method {method!r} is {kinds} in {len(rows)} of {total} "
            "rows (an overflow or an undefined value): left out of the results"
        )
    return table[~bad].reset_index(drop=True), notes


def write_table(frame: pd.DataFrame, target: Path) -> Path:
    """Write the tidy table as Parquet, atomically."""
    return write_atomic(target, lambda tmp: frame.to_parquet(tmp, index=False))


def write_json(data: dict[str, Any], target: Path) -> Path:
    """Write JSON (sorted keys, indented), atomically."""
    text = json.dumps(data, indent=2, sort_keys=True, default=str) + "\n"
    return write_atomic(target, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    """Python's version and the installed versions of ``names`` (by default the packages
    results depend on), ``None`` for one not installed: as this process found them the
    first time it asked, the versions of the code it has imported."""
    return dict(_installed(tuple(names)))


@cache
def _installed(names: tuple[str, ...]) -> dict[str, str | None]:
    """:func:`package_versions`, read once per process: each lookup searches every
    folder on the path for its package's metadata (about 25 ms for :data:`PACKAGES`,
    which every run records)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit(directory: Path | None = None) -> dict[str, Any]:
    """Commit and dirty flag of the checkout holding the code (``None`` outside git, and for
    an installed package, even one inside another repository's folder), and the hash of the
    uncommitted changes to tracked files, if any."""
    where = (directory or Path(__file__).resolve().parents[2]).resolve()

    def git(*args: str) -> str | None:
        try:
            out = subprocess.run(
                ["git", *args], cwd=where, capture_output=True, text=True, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip()

    top = git("rev-parse", "--show-toplevel")
    commit = git("rev-parse", "HEAD") if top and Path(top).resolve() == where else None
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    diff = git("diff", "HEAD") if status else None
    return {
        "commit": commit,
        "dirty": bool(status) if status is not None else None,
        "diff_sha256": hashlib.sha256(diff.encode()).hexdigest() if diff else None,
    }
