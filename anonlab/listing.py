"""What exists, as tables: ``anonlab.list_methods()``, ``anonlab.list_metrics()``,
``anonlab.list_datasets()`` and ``anonlab.list_experiments()``, each a DataFrame indexed by
name with a one-line ``description``, derived from the classes and configs themselves, and
:func:`list_axes` and :func:`list_sources`, from the declared grid axes and data sources;
``anonlab list`` prints them.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

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
            "tags": ", ".join(cls.tags()),
            "label": cls.label,
            "guarantee": stated(cls),
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


def list_sources() -> pd.DataFrame:
    """Every data source (``dataset.loader=NAME``,
    :class:`~anonlab.datasets.sources.Source`): ``description``, ``files`` (the vendored
    raw files it reads), ``options`` (the dataset config keys its reader takes) and
    ``axes`` (the data-view axes it brings)."""
    from anonlab.datasets import SOURCES

    rows = {
        name: {
            "description": source.description,
            "files": ", ".join(source.files),
            "options": ", ".join(source.options),
            "axes": ", ".join(axis.name for axis in source.axes),
        }
        for name, source in SOURCES.items()
    }
    return _table(rows, "source")


def list_axes() -> pd.DataFrame:
    """Every grid axis (``grid.NAME=[…]``, :class:`~anonlab.axes.Axis`): ``label`` and
    ``symbol`` (as figures and claims show it), ``values`` (its type and range, and the
    data's limit), ``default`` and ``of`` (``data view``, ``methods`` for a shared axis, or
    the methods that declare it)."""
    from anonlab.axes import SHARED_AXES
    from anonlab.datasets.axes import VIEW_AXES
    from anonlab.methods import METHODS, grid_axes

    def of(name: str) -> str:
        if name in VIEW_AXES:
            return "data view"
        own = [m for m, cls in METHODS.items() if any(a.name == name for a in cls.own_axes)]
        return "methods" if name in SHARED_AXES else ", ".join(own)

    def values(axis: Any) -> str:
        text = axis.kind.__name__ + (f" {axis.bounds()}" if axis.bounds() else "")
        if axis.rule is not None:
            text += " (own check)"
        return text + (f", at most the data's {axis.limit_unit}" if axis.limit else "")

    rows = {
        name: {
            "label": axis.label,
            "symbol": axis.symbol,
            "values": values(axis),
            "default": axis.default,
            "of": of(name),
        }
        for name, axis in grid_axes().items()
    }
    return _table(rows, "axis")


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


# --- the documentation's tables, derived from the same listings --------------------------

#: where each generated table lives: (file, marker) → the lines between
#: ``<!-- <marker>:start -->`` and ``<!-- <marker>:end -->``
DOC_TABLES = {
    "methods-table": "README.md",
    "metrics-table": "docs/guide/metrics.md",
    "guarantees-table": "docs/guide/methods.md",
}

#: the m, ε, k and t the guarantees table is computed at; its ε values are shown as the
#: symbols they equal (ε/m, ε, m·ε)
GUARANTEE_GRID = {"m": 3, "epsilon": 0.5, "k": 4, "t": 0.3}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def methods_markdown() -> str:
    """The README's table of methods (:func:`list_methods`): name and aliases, what it
    does (its docstring's first sentence), grid axes and capability tags."""
    from anonlab.methods import ALIASES
    from anonlab.plotting.names import AXIS_SYMBOLS

    rows = ["| name (alias) | what | grid axes | tags |", "|---|---|---|---|"]
    for name, row in list_methods().iterrows():
        aliases = [a for a, target in ALIASES.items() if target == name]
        shown = f"`{name}`" + "".join(f" (`{a}`)" for a in aliases)
        axes = ", ".join(AXIS_SYMBOLS.get(a, a) for a in row["axes"].split(", ") if a) or "—"
        rows.append(f"| {shown} | {_cell(row['description'])} | {axes} | {row['tags']} |")
    return "\n".join(rows)


def _gives(requires: str, cls: type) -> bool:
    """Whether methods of class ``cls`` can give a metric needing ``requires``."""
    needs = set(requires.split(", ")) - {""}
    aligned = "record-aligned" in cls.tags()
    return not (
        ("clusters" in needs and cls.partition is None)
        or ("record_partition" in needs and cls.partition != "record")
        or ("record_correspondence" in needs and not aligned)
        or ("target" in needs and not (aligned or cls.carries_class))
    )


def metrics_markdown() -> str:
    """The metrics guide's table (:func:`list_metrics`): name, what it needs of the data
    and the method (:data:`~anonlab.metrics.base.REQUIREMENTS`), the methods whose
    release can give it, and whether :func:`anonlab.evaluate` computes it (not from a
    bare DataFrame: clusters, run time)."""
    from anonlab.methods import METHODS
    from anonlab.metrics import METRICS

    rows = [
        "| metric | needs | methods that can give it | in `anonlab.evaluate` |",
        "|---|---|---|---|",
    ]
    for name, row in list_metrics().iterrows():
        given = [m for m, cls in METHODS.items() if _gives(row["requires"], cls)]
        left = [f"`{m}`" for m in METHODS if m not in given]
        shown = ", ".join(f"`{m}`" for m in given)
        if len(left) <= len(given) // 2:
            shown = "all" + (f" but {', '.join(left)}" if left else "")
        needs = set(row["requires"].split(", "))
        bare = not (needs & {"clusters", "record_partition"} or METRICS[name].measured)
        rows.append(
            f"| `{name}` | {row['requires'] or '—'} | {shown} | {'yes' if bare else 'no'} |"
        )
    return "\n".join(rows)


def _symbol(value: float | None) -> str:
    """An ε of the guarantees table as its symbol at :data:`GUARANTEE_GRID` (``–``: none)."""
    if value is None:
        return "–"
    m, epsilon = GUARANTEE_GRID["m"], GUARANTEE_GRID["epsilon"]
    for symbol, at in (("ε/m", epsilon / m), ("ε", epsilon), ("m·ε", m * epsilon)):
        if math.isclose(value, at):
            return symbol
    return f"{value:g}"


def guarantees_markdown() -> str:
    """The methods guide's table of guarantees: for every registered method, built at
    :data:`GUARANTEE_GRID` (an axis of its own at its default), what its paper claims, the
    ε it spends, and the notion as released in each form it offers with the ``discrete``
    sampler and public bounds (``–``: the form is refused), and its caveat."""
    from anonlab.methods import METHODS, make_method
    from anonlab.methods.guarantees import guarantee
    from anonlab.plotting.names import AXIS_SYMBOLS
    from anonlab.release import FORMS

    m = GUARANTEE_GRID["m"]
    grid = {axis: value for axis, value in GUARANTEE_GRID.items() if axis != "m"}
    rows = [
        "| method | axes | claimed | ε per attribute | ε in total | "
        + " | ".join(FORMS)
        + " | caveat |",
        "|---" * (6 + len(FORMS)) + "|",
    ]
    for name, cls in METHODS.items():
        stated = guarantee(make_method(name, grid), m)
        library = {"sampler": "discrete"} if cls.draws_laplace else {}
        cells = [
            f"`{name}`",
            ", ".join(AXIS_SYMBOLS.get(a, a) for a in cls.axes) or "–",
            str(stated.claimed),
            _symbol(stated.epsilon_per_attribute),
            _symbol(stated.epsilon_total),
        ]
        for form in FORMS:
            if form not in cls.forms:
                cells.append("–")
                continue
            one = form == "shuffled_rows" and cls.rows_need_one_attribute
            shown = guarantee(make_method(name, grid, {**library, "form": form}), 1 if one else m)
            text = shown.notion
            if shown.notion_epsilon is not None and not math.isclose(
                shown.notion_epsilon, shown.epsilon_total or 0.0
            ):
                text += f" ({_symbol(shown.notion_epsilon)})"
            cells.append(text + (" (m = 1)" if one else ""))
        cells.append(stated.caveat or "–")
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows)


def doc_table(marker: str) -> str:
    """The generated table for ``marker`` (:data:`DOC_TABLES`)."""
    return {
        "methods-table": methods_markdown,
        "metrics-table": metrics_markdown,
        "guarantees-table": guarantees_markdown,
    }[marker]()


def write_doc_tables(root: Path) -> list[Path]:
    """Rewrite every generated table in the files under ``root`` that hold it; returns
    the files changed."""
    changed = []
    for marker, name in DOC_TABLES.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
        head, found, rest = text.partition(start)
        _, closed, tail = rest.partition(end)
        if not (found and closed):
            raise ValueError(f"{path}: no {start} … {end} block")
        new = f"{head}{start}\n{doc_table(marker)}\n{end}{tail}"
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":  # python -m anonlab.listing: refresh the docs' tables
    for written in write_doc_tables(Path.cwd()):
        print(f"wrote {written}")
