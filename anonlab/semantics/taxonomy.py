"""Taxonomies of categorical attributes and the semantic distance δ of DP-IR Eq. (3).

A taxonomy is shipped (``anonlab/semantics/taxonomies/<name>.json``), read from a user's
hierarchy file (:func:`read_hierarchy`) or flat, one root over a column's values
(:meth:`Taxonomy.flat`; DP-IR §3.4: a domain "defined by extension ... a flat list or a
hierarchy/taxonomy").
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from anonlab.validation import ParameterError


@dataclass(frozen=True, eq=False)
class Taxonomy:
    """A tree of concepts; the domain of a categorical attribute is its ``labels``.

    Attributes
    ----------
    name : taxonomy name (``adult_occupation``).
    root : the root concept.
    parent : each concept's parent (``None`` for the root).
    labels : each data label's concept; the attribute's domain Dom(A), in this order.
    """

    name: str
    root: str
    parent: Mapping[str, str | None]
    labels: Mapping[str, str]
    gloss: Mapping[str, str] = field(default_factory=dict)
    # the domain was read off the data (a flat taxonomy of a column's values, or a
    # hierarchy's inner concepts that the data hold), so it is public only if those values
    # are; DP-IR's proofs assume a public domain
    from_data: bool = False

    def __post_init__(self) -> None:
        roots = [node for node, up in self.parent.items() if up is None]
        if roots != [self.root]:
            raise ParameterError(
                f"taxonomy {self.name!r}: expected the single root {self.root!r}, found {roots}"
            )
        for label, node in self.labels.items():
            if node not in self.parent:
                raise ParameterError(
                    f"taxonomy {self.name!r}: label {label!r} maps to unknown concept {node!r}"
                )
        for node in self.parent:  # every chain ends at the root, without cycles
            seen, current = set(), node
            while current is not None:
                if current in seen:
                    raise ParameterError(f"taxonomy {self.name!r}: cycle through {current!r}")
                seen.add(current)
                current = self.parent[current]

    def __getstate__(self) -> dict[str, Any]:
        """The fields only, without the cached tables (as :class:`~anonlab.datasets.Dataset`
        pickles)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def load(cls, name: str) -> Taxonomy:
        """A taxonomy shipped in ``anonlab/semantics/taxonomies/<name>.json``."""
        path = resources.files(__package__) / "taxonomies" / f"{name}.json"
        if not path.is_file():
            raise ParameterError(f"unknown taxonomy {name!r}; known: {shipped_taxonomies()}")
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            name=name,
            root=data["root"],
            parent=data["parent"],
            labels=data["labels"],
            gloss=data.get("gloss", {}),
        )

    @classmethod
    def tree(cls, name: str, parent: Mapping[str, str | None], labels: Iterable[str]) -> Taxonomy:
        """A taxonomy whose concepts are the data values themselves: ``parent`` maps every
        concept to its parent (``None`` for the single root); ``labels`` are Dom(A), each
        its own concept, kept in sorted order."""
        root = next((node for node, up in parent.items() if up is None), None)
        if root is None:
            raise ParameterError(f"taxonomy {name!r} has no root")
        ordered = sorted(set(labels))
        return cls(
            name=name, root=root, parent=dict(parent), labels={label: label for label in ordered}
        )

    @classmethod
    def flat(cls, name: str, values: Iterable[str]) -> Taxonomy:
        """The nominal taxonomy of ``values``: one root (:func:`root_name`) whose children
        are the distinct values, sorted; δ is log2(1 + 2/3) between any two distinct values
        and log2(3/2) between a value and the root (DP-IR Eq. 3)."""
        labels = sorted(set(values))
        if not labels:
            raise ParameterError(f"taxonomy {name!r}: a flat taxonomy needs values")
        root = root_name(labels)
        tree = cls.tree(name, {root: None, **{label: root for label in labels}}, labels)
        return replace(tree, from_data=True)

    @cached_property
    def nodes(self) -> tuple[str, ...]:
        """All concepts: the labels' concepts first (in label order), then the others sorted."""
        first = list(dict.fromkeys(self.labels.values()))
        return tuple(first + sorted(set(self.parent) - set(first)))

    @cached_property
    def index(self) -> dict[str, int]:
        """Code of each concept (its position in :attr:`nodes`)."""
        return {node: i for i, node in enumerate(self.nodes)}

    @cached_property
    def label_codes(self) -> np.ndarray:
        """Codes of the domain's labels, in label order."""
        return np.array([self.index[node] for node in self.labels.values()])

    @cached_property
    def ancestors(self) -> np.ndarray:
        """Boolean ``(nodes, nodes)``: ``[i, j]`` iff j ∈ φ(i), the ancestors of i including
        itself (DP-IR Eq. 3)."""
        matrix = np.zeros((len(self.nodes), len(self.nodes)), dtype=bool)
        for node, i in self.index.items():
            current: str | None = node
            while current is not None:
                matrix[i, self.index[current]] = True
                current = self.parent[current]
        return matrix

    @cached_property
    def depth(self) -> np.ndarray:
        """Number of proper ancestors of each concept (root 0)."""
        return self.ancestors.sum(axis=1) - 1

    @cached_property
    def distances(self) -> np.ndarray:
        """δ between every pair of concepts, DP-IR Eq. (3):
        log2(1 + (|φ(a) ∪ φ(b)| − |φ(a) ∩ φ(b)|) / |φ(a) ∪ φ(b)|), in [0, 1]."""
        anc = self.ancestors.astype(np.int64)
        common = anc @ anc.T
        size = anc.sum(axis=1)
        union = size[:, None] + size[None, :] - common
        return np.log2(1.0 + (union - common) / union)

    def encode(self, values: np.ndarray) -> np.ndarray:
        """Codes of data labels (or concept names); an unknown value is an error."""
        lookup = {
            **{n: i for n, i in self.index.items()},
            **{label: self.index[node] for label, node in self.labels.items()},
        }
        unique, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
        missing = [u for u in unique if u not in lookup]
        if missing:
            raise ParameterError(
                f"taxonomy {self.name!r} has no concept for value(s) {missing[:5]}"
            )
        return np.array([lookup[u] for u in unique])[inverse]

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """Data labels for label concepts, concept names for the other concepts."""
        names = {self.index[node]: label for label, node in self.labels.items()}
        table = np.array([names.get(i, node) for i, node in enumerate(self.nodes)], dtype=object)
        return table[np.asarray(codes, dtype=np.int64)]


ROOT = "*"  # the name of a synthetic root, repeated until it names no concept


def root_name(taken: Iterable[str]) -> str:
    """Name of a synthetic root: ``*`` (ARX's name for the most general value), or ``**``,
    ``***``, … if a concept already has that name; deterministic given ``taken``."""
    taken = set(taken)
    name = ROOT
    while name in taken:
        name += ROOT
    return name


def leaves(parent: Mapping[str, str | None]) -> list[str]:
    """The concepts that are no concept's parent, sorted (the domain of a hierarchy)."""
    return sorted(set(parent) - set(parent.values()))


def shipped_taxonomies() -> list[str]:
    """Names of the taxonomies shipped in ``anonlab/semantics/taxonomies``."""
    folder = resources.files(__package__) / "taxonomies"
    return sorted(
        p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json")
    )


def read_hierarchy(path: str | Path, source: str) -> dict[str, str | None]:
    """Parent of every concept of a hierarchy file, with a single root (parent ``None``).

    Two forms, told apart by the first line:

    - ``value,parent`` (that header line, then one ``value,parent`` row per concept): a
      concept whose parent is empty, or that is only named as a parent, is a top concept;
    - ARX (no header, ``;``-separated): each row is a data value then its generalisations,
      most general last, ``value;level1;…;*``; each cell's parent is the next cell.

    A single top concept is the root; several get a synthetic root (:func:`root_name`).
    Cells are compared as stripped strings; a row repeated with the same parent is allowed.

    Parameters
    ----------
    path : the file, UTF-8 (a byte-order mark is dropped).
    source : the parameter that named it (``dataset.hierarchies.city='h.csv'``), the
        prefix of every :class:`ParameterError`: no such file, unreadable, not UTF-8, no
        header, a value with two parents, a cycle.
    """
    file = Path(str(path)).expanduser()
    if file.is_dir():
        raise ParameterError(f"{source} is a directory; name a hierarchy CSV file")
    if not file.is_file():
        raise ParameterError(f"{source}: no such file")
    try:
        data = file.read_bytes()
    except OSError as error:
        raise ParameterError(f"{source} cannot be read: {error.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ParameterError(
            f"{source} is not valid UTF-8 (byte {data[error.start]:#04x} on "
            f"line {line}); save the hierarchy as UTF-8"
        ) from None
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    if first is None:
        raise ParameterError(f"{source} is empty")
    header = [cell.strip().lower() for cell in next(csv.reader([first]))]
    if header == ["value", "parent"]:
        edges = _parent_rows(text, source)
    elif ";" in first:
        edges = _arx_rows(text, source)
    else:
        raise ParameterError(
            f"{source}: the first line must be the header 'value,parent', "
            f"or the file an ARX hierarchy (value;level1;...;*); "
            f"got {first!r}"
        )
    if not edges:
        raise ParameterError(f"{source} lists no values")
    return _single_root(edges, source)


def _parent_rows(text: str, source: str) -> list[tuple[str, str, int]]:
    """``(value, parent or "", line)`` of each row after the ``value,parent`` header."""
    rows = csv.reader(io.StringIO(text))
    edges = []
    seen_header = False
    for number, row in enumerate(rows, start=1):
        cells = [cell.strip() for cell in row]
        if not any(cells):
            continue
        if not seen_header:
            seen_header = True
            continue
        if len(cells) > 2:
            raise ParameterError(
                f"{source}: line {number} has {len(cells)} fields; expected value,parent"
            )
        if not cells[0]:
            raise ParameterError(f"{source}: line {number} has an empty value")
        edges.append((cells[0], cells[1] if len(cells) > 1 else "", number))
    return edges


def _arx_rows(text: str, source: str) -> list[tuple[str, str, int]]:
    """``(cell, next cell or "", line)`` of every cell of an ARX hierarchy."""
    edges = []
    for number, row in enumerate(csv.reader(io.StringIO(text), delimiter=";"), start=1):
        cells = [cell.strip() for cell in row]
        while cells and not cells[-1]:
            cells.pop()
        if not cells:
            continue
        if not all(cells):
            raise ParameterError(f"{source}: line {number} has an empty level")
        edges.extend((cell, up, number) for cell, up in zip(cells, [*cells[1:], ""], strict=True))
    return edges


def _single_root(edges: list[tuple[str, str, int]], source: str) -> dict[str, str | None]:
    """The parent map of ``edges`` checked for two parents and cycles, rooted once."""
    parent: dict[str, str] = {}
    line: dict[str, int] = {}
    for value, up, number in edges:
        if value in parent and parent[value] != up:
            first, second = (repr(p) if p else "none" for p in (parent[value], up))
            raise ParameterError(
                f"{source}: value {value!r} has two parents, {first} (line {line[value]}) "
                f"and {second} (line {number})"
            )
        parent[value], line[value] = up, line.get(value, number)
    for up in list(parent.values()):
        if up and up not in parent:
            parent[up] = ""  # named only as a parent: a top concept
    for node in parent:  # every chain must end at a top concept
        chain = [node]
        while parent[chain[-1]]:
            chain.append(parent[chain[-1]])
            if chain[-1] in chain[:-1]:
                cycle = chain[chain.index(chain[-1]) :]
                raise ParameterError(
                    f"{source}: the hierarchy has a cycle, {' -> '.join(map(repr, cycle))}"
                )
    tops = [node for node, up in parent.items() if not up]
    if len(tops) == 1:
        return {node: up or None for node, up in parent.items()}
    root = root_name(parent)
    return {root: None, **{node: up or root for node, up in parent.items()}}
