"""What exists, as tables: ``anonlab.list_methods()``, ``anonlab.list_metrics()``,
``anonlab.list_datasets()`` and ``anonlab.list_experiments()``, each a DataFrame indexed by
name with a one-line ``description``, derived from the classes and configs themselves,
:func:`list_axes` and :func:`list_sources`, from the declared grid axes and data sources,
and :func:`list_own_experiments`, of the folders of one's own; ``anonlab list`` prints them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
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


def _opening_comment(text: str) -> str:
    """The first sentence of a YAML file's comment lines (``# @package`` left out)."""
    comment = [
        line.lstrip("# ").strip()
        for line in text.splitlines()
        if line.startswith("#") and not line.startswith("# @package")
    ]
    return first_sentence(" ".join(comment))


def list_datasets(conf_dir: Path = CONF_DIR, own: Sequence[Path] = ()) -> pd.DataFrame:
    """Every data set config (``dataset=NAME``): ``description`` (the config's opening
    comment) and ``loader``; those of ``conf_dir``, then those of the folders of one's own
    ``own`` (``--config-dir DIR``) that ``conf_dir`` does not hold."""
    import yaml

    rows = {}
    for folder in (conf_dir, *own):
        for path in sorted((Path(folder) / "dataset").glob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            rows.setdefault(
                path.stem,
                {
                    "description": _opening_comment(text),
                    "loader": (yaml.safe_load(text) or {}).get("loader"),
                },
            )
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


def list_own_experiments(own: Sequence[Path], conf_dir: Path = CONF_DIR) -> pd.DataFrame:
    """The experiments of one's own (``experiment.paper: null``) in the folders ``own``
    (``DIR/experiment/NAME.yaml``, run with ``--config-dir DIR +experiment=NAME``), each
    checked as :func:`~anonlab.catalog.custom_experiments` checks it: ``description`` (its
    first target's title, else its opening comment), ``targets`` and ``folder``. A name
    that a paper experiment of ``conf_dir`` already has is a
    :class:`~anonlab.validation.ParameterError`: ``+experiment=NAME`` would run the
    paper's."""
    import yaml

    from anonlab.catalog import EXPERIMENT_DIR, custom_experiments, experiment_names
    from anonlab.validation import ParameterError

    papers = set(experiment_names(conf_dir))
    rows = {}
    for folder in own:
        for name in custom_experiments(Path(folder)):
            path = Path(folder) / EXPERIMENT_DIR / f"{name}.yaml"
            if name in papers:
                raise ParameterError(
                    f"{path}: experiment {name!r} is a paper experiment's name; "
                    "+experiment=NAME would run the paper's, so rename the file"
                )
            text = path.read_text(encoding="utf-8")
            block = (yaml.safe_load(text) or {}).get("experiment") or {}
            targets = [t for t in block.get("targets") or () if isinstance(t, Mapping)]
            title = str(targets[0].get("title") or "") if targets else ""
            rows.setdefault(
                name,
                {
                    "description": title or _opening_comment(text),
                    "targets": ", ".join(str(t.get("id") or "") for t in targets),
                    "folder": str(folder),
                },
            )
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

#: where each generated table is shown: the page (or the README section it includes)
#: holding the block ``<!-- <marker>:start -->`` … ``<!-- <marker>:end -->``, which the
#: documentation build fills with the code's table (:func:`render_doc_tables`, called by
#: the hook ``docs/_ext/doc_tables.py``); what the files hold between the markers is
#: never read
DOC_TABLES = {
    "methods-table": "docs/guide/methods.md",
    "metrics-table": "docs/guide/metrics.md",
    "guarantees-table": "docs/guide/methods.md",
    "axes-table": "docs/reference/axes.md",
    "datasets-table": "docs/reference/datasets.md",
}

#: the m, ε, k and t the guarantees table is computed at; its ε values are shown as the
#: symbols they equal (ε/m, ε, m·ε)
GUARANTEE_GRID = {"m": 3, "epsilon": 0.5, "k": 4, "t": 0.3}
_BLOCK = re.compile(r"<!-- ([a-z]+-table):start -->\n.*?<!-- \1:end -->", re.DOTALL)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def methods_markdown() -> str:
    """The methods guide's table of methods (:func:`list_methods`): name and aliases, what it
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


def axes_markdown() -> str:
    """The grid axes' table (:func:`list_axes`): name, label and symbol (as figures and
    claims show it), values, default and whose axis it is."""
    rows = ["| axis | label | symbol | values | default | of |", "|---|---|---|---|---|---|"]
    for name, row in list_axes().iterrows():
        default = "—" if pd.isna(row["default"]) else f"{row['default']:g}"
        cells = (row["label"], row["symbol"], row["values"], default, row["of"])
        rows.append(f"| `{name}` | " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(rows)


def datasets_markdown() -> str:
    """The data sources' table (:func:`list_sources`): name, what it is, the vendored files
    it reads, the config keys its reader takes, and the data set configs that view it."""
    configs = list_datasets()
    rows = [
        "| source (`dataset.loader=`) | what | files | options | configs (`dataset=`) |",
        "|---|---|---|---|---|",
    ]
    for name, row in list_sources().iterrows():
        views = ", ".join(f"`{c}`" for c in configs.index[configs["loader"] == name]) or "—"
        cells = (row["description"], row["files"] or "—", row["options"] or "—")
        rows.append(f"| `{name}` | " + " | ".join(_cell(c) for c in cells) + f" | {views} |")
    return "\n".join(rows)


def doc_table(marker: str) -> str:
    """The generated table for ``marker`` (:data:`DOC_TABLES`)."""
    makers = {
        "methods-table": methods_markdown,
        "metrics-table": metrics_markdown,
        "guarantees-table": guarantees_markdown,
        "axes-table": axes_markdown,
        "datasets-table": datasets_markdown,
    }
    if marker not in makers:
        raise ValueError(f"no generated table {marker!r}; the tables are {sorted(makers)}")
    return makers[marker]()


def render_doc_tables(text: str) -> str:
    """``text`` (a page's Markdown) with every generated table's block,
    ``<!-- <marker>:start -->`` … ``<!-- <marker>:end -->``, filled with the code's table
    (:func:`doc_table`), as the documentation build shows it: what the block held (a line
    saying where the table is) is replaced, so the files never need regenerating."""
    return _BLOCK.sub(
        lambda m: f"<!-- {m[1]}:start -->\n{doc_table(m[1])}\n<!-- {m[1]}:end -->", text
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anonlab.listing [MARKER …]``: print the generated tables (all, or those
    named, :data:`DOC_TABLES`) as the documentation build writes them."""
    import sys

    markers = list(sys.argv[1:] if argv is None else argv) or list(DOC_TABLES)
    unknown = [m for m in markers if m not in DOC_TABLES]
    if unknown:
        print(
            f"error: no generated table {unknown}; choose from {list(DOC_TABLES)}", file=sys.stderr
        )
        return 2
    for marker in markers:
        print(f"<!-- {marker}: {DOC_TABLES[marker]} -->\n{doc_table(marker)}\n")
    return 0


if __name__ == "__main__":  # python -m anonlab.listing: the docs' tables, printed
    raise SystemExit(main())
