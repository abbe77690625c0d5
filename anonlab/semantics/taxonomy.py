"""Taxonomies of categorical attributes and the semantic distance δ of DP-IR Eq. (3)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources

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

    def __post_init__(self) -> None:
        roots = [node for node, up in self.parent.items() if up is None]
        if roots != [self.root]:
            raise ParameterError(f"taxonomy {self.name!r}: expected the single root "
                                 f"{self.root!r}, found {roots}")
        for label, node in self.labels.items():
            if node not in self.parent:
                raise ParameterError(f"taxonomy {self.name!r}: label {label!r} maps to "
                                     f"unknown concept {node!r}")
        for node in self.parent:  # every chain ends at the root, without cycles
            seen, current = set(), node
            while current is not None:
                if current in seen:
                    raise ParameterError(f"taxonomy {self.name!r}: cycle through {current!r}")
                seen.add(current)
                current = self.parent[current]

    @classmethod
    def load(cls, name: str) -> Taxonomy:
        """A taxonomy shipped in ``anonlab/semantics/taxonomies/<name>.json``."""
        folder = resources.files(__package__) / "taxonomies"
        path = folder / f"{name}.json"
        if not path.is_file():
            known = sorted(p.name.removesuffix(".json") for p in folder.iterdir()
                           if p.name.endswith(".json"))
            raise ParameterError(f"unknown taxonomy {name!r}; known: {known}")
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(name=name, root=data["root"], parent=data["parent"], labels=data["labels"],
                   gloss=data.get("gloss", {}))

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
        lookup = {**{n: i for n, i in self.index.items()},
                  **{label: self.index[node] for label, node in self.labels.items()}}
        unique, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
        missing = [u for u in unique if u not in lookup]
        if missing:
            raise ParameterError(f"taxonomy {self.name!r} has no concept for value(s) "
                                 f"{missing[:5]}")
        return np.array([lookup[u] for u in unique])[inverse]

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """Data labels for label concepts, concept names for the other concepts."""
        names = {self.index[node]: label for label, node in self.labels.items()}
        table = np.array([names.get(i, node) for i, node in enumerate(self.nodes)], dtype=object)
        return table[np.asarray(codes, dtype=np.int64)]
