"""Resumable sweeps: every finished batch of jobs is stored as a part file at once.

A job is one (cell, repetition); its rows depend only on the cell (data set, method and
parameters), the repetition, the master seed, the metrics and the code. Parts live in
``<out_dir>/parts/`` under a key hashing everything else those rows depend on; a later run
with the same key loads them and skips their jobs, so a sweep killed at any point resumes
where it stopped. Parts are written atomically (temporary file, then rename), so a kill
never leaves a half-written part, and the results table is always assembled from parts,
so a resumed run writes the same bytes as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.io import write_atomic

MANIFEST = "manifest.json"


def checkpoint_key(config: Mapping[str, Any], code: Mapping[str, Any] | None) -> str:
    """Hash of what a job's rows depend on besides its cell and repetition: the master
    seed, the metrics, the data set configs, the methods' and metrics' ``options`` (which
    are not in the cell id), and the code (commit and uncommitted changes,
    :func:`~anonlab.runner.store.git_commit`). Empty options leave the key as it was
    before options existed."""
    relevant = {
        "seed": config.get("seed"),
        "metrics": list(config.get("metrics") or []),
        "metrics_by_attribute": list(config.get("metrics_by_attribute") or []),
        "datasets": config.get("datasets") or {"": config.get("dataset")},
        "code": dict(code or {}),
    }
    if config.get("options"):
        relevant["options"] = config["options"]
    text = json.dumps(relevant, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Checkpoint:
    """The part files of one data set of one experiment, valid for ``key``."""

    directory: Path
    key: str

    def open(self) -> Checkpoint:
        """Create the directory; discard parts stored under another key."""
        manifest = self.directory / MANIFEST
        if self.directory.exists():
            stored = json.loads(manifest.read_text()) if manifest.is_file() else {}
            if stored.get("key") != self.key:
                shutil.rmtree(self.directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        if not manifest.is_file():
            text = json.dumps({"key": self.key}) + "\n"
            write_atomic(manifest, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        return self

    def load(self) -> pd.DataFrame:
        """Rows of every stored part (empty frame if none)."""
        parts = sorted(self.directory.glob("part-*.parquet"))
        if not parts:
            return pd.DataFrame()
        return pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)

    def save(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Store the rows of a finished batch as one part, named by its content."""
        if not rows:
            return
        frame = pd.DataFrame(list(rows))
        jobs = sorted({(int(r["cell_id"]), int(r["rep"])) for r in rows})
        name = hashlib.sha256(json.dumps(jobs).encode()).hexdigest()[:20]
        write_atomic(self.directory / f"part-{name}.parquet",
                     lambda tmp: frame.to_parquet(tmp, index=False))
