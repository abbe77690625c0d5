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
