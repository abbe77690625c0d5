"""Shared fixtures: Hydra composition of the real configs, small data sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from anonlab.config import register_resolvers

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"


@pytest.fixture
def compose_config():
    """Compose ``conf/`` with overrides into a plain resolved dict, as run.py does."""
    register_resolvers()

    def _compose(*overrides: str) -> dict:
        with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
            cfg = compose(config_name="config", overrides=list(overrides))
        return OmegaConf.to_container(cfg, resolve=True)

    return _compose


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
