"""Tables laid out from the stored results: a builder turns the results table into a frame,
written as CSV and Markdown (the engine writes them; the report shows them)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from anonlab.io import write_atomic
from anonlab.validation import ParameterError

TableBuilder = Callable[[pd.DataFrame], pd.DataFrame]


def load_builder(spec: str) -> TableBuilder:
    """The function ``module:name`` (e.g. ``anonlab.experiments.dp_ir:build``)."""
    module_name, _, attr = spec.partition(":")
    try:
        builder = getattr(importlib.import_module(module_name), attr or "build")
    except (ImportError, AttributeError) as error:
        raise ParameterError(f"table builder {spec!r} cannot be loaded: {error}") from error
    if not callable(builder):
        raise ParameterError(f"table builder {spec!r} is not callable")
    return builder


def to_markdown(frame: pd.DataFrame, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table (numbers rounded to ``digits``, ``|`` escaped)."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return "" if pd.isna(value) else f"{value:.{digits}f}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(map(str, frame.columns)) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body]) + "\n"


def write_table_files(
    frame: pd.DataFrame, directory: Path, name: str, legend: str | None = None
) -> list[Path]:
    """Write ``name.csv`` and ``name.md`` in ``directory``, atomically; ``legend`` (how
    to read the cells) follows the markdown table."""
    csv = write_atomic(directory / f"{name}.csv", lambda tmp: frame.to_csv(tmp, index=False))
    markdown = to_markdown(frame) + (f"\n\n{legend}\n" if legend else "")
    md = write_atomic(
        directory / f"{name}.md", lambda tmp: tmp.write_text(markdown, encoding="utf-8")
    )
    return [csv, md]
