"""What exists, as tables: ``anonlab.list_methods()``, ``anonlab.list_metrics()``,
``anonlab.list_datasets()`` and ``anonlab.list_experiments()``, each a DataFrame indexed by
name with a one-line ``description``, derived from the classes and configs themselves;
``anonlab list`` prints them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from anonlab.config import CONF_DIR


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring, on one line, without reST roles."""
    words = re.sub(r":\w+:`~?([^`]+)`", r"\1", " ".join((text or "").split()))
    end = words.find(". ")
    return words[: end + 1] if end >= 0 else words


def list_methods() -> pd.DataFrame:
    """Every registered method: ``description`` (its docstring's first sentence), ``axes``
    (the grid parameters it depends on), ``options`` (its readings and their choices, the
    first the default), ``randomized``, ``partition`` (the clusters its release carries)
    and ``guarantee`` (:func:`~anonlab.methods.guarantees.stated`)."""
    from anonlab.methods import METHODS
    from anonlab.methods.guarantees import stated

    rows = {
        name: {
            "description": first_sentence(cls.__doc__),
            "axes": ", ".join(cls.axes),
            "options": _choices(cls.choices()),
            "randomized": cls.randomized,
            "partition": cls.partition,
            "guarantee": stated(name),
        }
        for name, cls in METHODS.items()
    }
    return _table(rows, "method")


def list_metrics() -> pd.DataFrame:
    """Every registered metric: ``description``, ``kind`` (``attribute``: averaged over
    the protected attributes; ``release``: of the release as a whole), ``requires`` (what
    it needs of the data and the method) and ``options``."""
    from anonlab.metrics import METRICS, AttributeMetric

    rows = {
        name: {
            "description": metric.description,
            "kind": "attribute" if isinstance(metric, AttributeMetric) else "release",
            "requires": ", ".join(metric.requires),
            "options": _choices(metric.option_choices),
        }
        for name, metric in METRICS.items()
    }
    return _table(rows, "metric")


def list_datasets(conf_dir: Path = CONF_DIR) -> pd.DataFrame:
    """Every data set config (``dataset=NAME``): ``description`` (the config's opening
    comment) and ``loader``."""
    import yaml

    rows = {}
    for path in sorted((conf_dir / "dataset").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        comment = [line.lstrip("# ").strip() for line in text.splitlines() if line.startswith("#")]
        rows[path.stem] = {
            "description": first_sentence(" ".join(comment)),
            "loader": (yaml.safe_load(text) or {}).get("loader"),
        }
    return _table(rows, "dataset")


def list_experiments(conf_dir: Path = CONF_DIR) -> pd.DataFrame:
    """Every paper experiment (``+experiment=NAME``): ``description`` (its first target's
    title), ``paper``, ``targets`` (the figure and table ids it regenerates) and
    ``readings``."""
    from anonlab.catalog import experiments as entries

    rows = {
        entry.name: {
            "description": entry.targets[0].title,
            "paper": entry.paper,
            "targets": ", ".join(target.id for target in entry.targets),
            "readings": ", ".join(r.name for r in entry.readings),
        }
        for entry in entries(conf_dir)
    }
    return _table(rows, "experiment")


def _choices(option_choices: dict) -> str:
    return "; ".join(
        f"{option}: {', '.join(map(str, choices))}" for option, choices in option_choices.items()
    )


def _table(rows: dict[str, dict], index: str) -> pd.DataFrame:
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = index
    return table
