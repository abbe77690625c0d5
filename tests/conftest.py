"""Shared fixtures: Hydra composition of the real configs, small data sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import config


@pytest.fixture
def compose_config():
    """Compose ``conf/`` with overrides into a plain resolved dict, as run.py does."""
    return config.compose_config


@pytest.fixture
def user_csv(tmp_path: Path) -> Path:
    """A user's CSV: two numeric columns (one integer) and a text column."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "income": rng.gamma(2.0, 20_000.0, size=60).round(2),
        "age": rng.integers(18, 90, size=60),
        "city": rng.choice(["a", "b"], size=60),
    })
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
        shutil.copy(root / "tests" / "fixtures" / "fixture_readings.yaml",
                    conf / "experiment" / "fixture_readings.yaml")
        if keep:
            for path in (conf / "experiment").glob("*.yaml"):
                if path.stem not in {*keep, "all"}:
                    path.unlink()
        for name, text in files.items():
            (conf / "experiment" / f"{name}.yaml").write_text(text, encoding="utf-8")
        return conf

    return _copy
