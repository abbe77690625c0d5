"""Shared fixtures: Hydra composition of the real configs, small data sets; and the tiers:
a test that is not marked ``integration`` (a module's ``pytestmark``) is marked ``unit``,
so ``pytest -m unit`` runs the fast tier and ``pytest -m integration`` the rest."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import cli, config


@pytest.fixture
def compose_config():
    """Compose ``conf/`` with overrides into a plain resolved dict, as run.py does."""
    return config.compose_config


@pytest.fixture
def user_csv(tmp_path: Path) -> Path:
    """A user's CSV: two numeric columns (one integer) and a text column."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "income": rng.gamma(2.0, 20_000.0, size=60).round(2),
            "age": rng.integers(18, 90, size=60),
            "city": rng.choice(["a", "b"], size=60),
        }
    )
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def conf_copy(tmp_path: Path):
    """``conf_copy(*keep, **files)``: a copy of ``conf/`` under ``tmp_path`` with
    ``tests/fixtures/fixture_readings.yaml`` added as an experiment, only the experiments
    ``keep`` (all when empty, ``all`` always) and ``files`` written as
    ``experiment/<name>.yaml``; for anonlab.catalog and run.py with ``--config-path``."""
    import shutil

    root = Path(__file__).resolve().parents[1]

    def _copy(*keep: str, **files: str) -> Path:
        conf = tmp_path / "conf"
        shutil.copytree(root / "conf", conf, dirs_exist_ok=True)
        shutil.copy(
            root / "tests" / "fixtures" / "fixture_readings.yaml",
            conf / "experiment" / "fixture_readings.yaml",
        )
        if keep:
            for path in (conf / "experiment").glob("*.yaml"):
                if path.stem not in {*keep, "all"}:
                    path.unlink()
        for name, text in files.items():
            (conf / "experiment" / f"{name}.yaml").write_text(text, encoding="utf-8")
        return conf

    return _copy


def run_command(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python run.py *args`` run from ``cwd``: in this process through
    :func:`anonlab.cli.main` (what run.py calls; no interpreter start-up per call), or in a
    real process for a Hydra multirun (``-m``), which Hydra drives from ``sys.argv``."""
    root = Path(__file__).resolve().parents[1]
    if any(a in ("-m", "--multirun") for a in args):
        return subprocess.run(
            [sys.executable, str(root / "run.py"), *args],
            capture_output=True,
            text=True,
            cwd=cwd or root,
            timeout=300,
        )
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(cwd or root)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["run", *args])
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["run.py", *args], status, out.getvalue(), err.getvalue())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that is not an integration test as a unit test."""
    for item in items:
        if item.get_closest_marker("integration") is None:
            item.add_marker(pytest.mark.unit)
