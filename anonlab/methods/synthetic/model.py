"""The fitted graphical model in NumPy: its junction-tree marginals and the sampling of
records from them with the generator given (:mod:`anonlab.methods.synthetic`)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def logsumexp(table: np.ndarray, axis: int | tuple[int, ...] | None = None) -> np.ndarray:
    """log Σ exp over ``axis`` (all axes by default), shifted by the maximum."""
    top = np.max(table, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    out = np.log(np.sum(np.exp(table - top), axis=axis, keepdims=True)) + top
    return np.squeeze(out, axis=axis) if axis is not None else out.reshape(())


def _aligned(table: np.ndarray, attrs: tuple[int, ...], target: tuple[int, ...]) -> np.ndarray:
    """``table`` over ``attrs`` transposed and reshaped to broadcast over ``target``."""
    order = sorted(range(len(attrs)), key=lambda i: target.index(attrs[i]))
    shape = [1] * len(target)
    for i in order:
        shape[target.index(attrs[i])] = table.shape[i]
    return np.transpose(table, order).reshape(shape)


def _sum_to(
    table: np.ndarray, attrs: tuple[int, ...], keep: tuple[int, ...], log: bool = False
) -> np.ndarray:
    """``table`` over ``attrs`` summed (log: log-sum-exp) to ``keep``, in ``keep``'s order."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in keep)
    reduced = logsumexp(table, axis=axes) if log else table.sum(axis=axes)
    rest = tuple(a for a in attrs if a in keep)
    return _aligned(reduced, rest, keep).reshape([table.shape[attrs.index(a)] for a in keep])


class TreeModel:
    """A fitted mbi model as junction-tree clique marginals in NumPy float64.

    The potentials of mbi's fit are summed into the cliques of mbi's junction tree
    (``mbi.junction_tree.make_junction_tree``) and calibrated by sum-product in log space,
    so every marginal and every synthetic record below is computed in NumPy, the same
    on every run.
    """

    def __init__(self, model: Any, sizes: tuple[int, ...], total: float) -> None:
        from mbi import junction_tree

        self.sizes = sizes
        cliques = [tuple(c) for c in model.potentials.cliques]
        tree, _ = junction_tree.make_junction_tree(model.domain, cliques)
        self.tree = tree
        self.nodes = sorted(tuple(c) for c in tree.nodes)
        self.parent: dict[tuple[int, ...], tuple[int, ...] | None] = {}
        self.order: list[tuple[int, ...]] = []  # preorder: every parent before its children
        for root in self.nodes:
            if root in self.parent:
                continue
            self.parent[root] = None
            stack = [root]
            while stack:
                node = stack.pop()
                self.order.append(node)
                for other in sorted(tree.neighbors(node), reverse=True):
                    if other not in self.parent:
                        self.parent[other] = node
                        stack.append(other)
        log_table = {c: np.zeros([sizes[a] for a in c]) for c in self.nodes}
        for clique in cliques:
            factor = model.potentials[clique]
            attrs = tuple(factor.domain.attributes)
            home = next(c for c in self.order if set(attrs) <= set(c))
            log_table[home] = log_table[home] + _aligned(
                np.asarray(factor.values, dtype=np.float64), attrs, home
            )
        self.marginals = self._calibrate(log_table, total)

    def _calibrate(self, log_table: dict, total: float) -> dict:
        """Sum-product on the junction tree (log space): each clique's marginal, scaled
        to ``total`` records."""
        children: dict[tuple[int, ...], list[tuple[int, ...]]] = {c: [] for c in self.order}
        for node in self.order:
            if self.parent[node] is not None:
                children[self.parent[node]].append(node)
        message: dict[tuple, np.ndarray] = {}  # (from, to) → log message over the separator

        def separator(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(x for x in a if x in b)

        def incoming(node: tuple[int, ...], skip: tuple[int, ...] | None) -> np.ndarray:
            table = log_table[node]
            for other in [*children[node], self.parent[node]]:
                if other is not None and other != skip and (other, node) in message:
                    table = table + _aligned(message[other, node], separator(other, node), node)
            return table

        for node in reversed(self.order):  # collect towards the roots
            up = self.parent[node]
            if up is not None:
                message[node, up] = _sum_to(incoming(node, up), node, separator(node, up), log=True)
        for node in self.order:  # distribute back to the leaves
            for child in children[node]:
                message[node, child] = _sum_to(
                    incoming(node, child), node, separator(node, child), log=True
                )
        marginals = {}
        for node in self.order:
            belief = incoming(node, None)
            marginals[node] = np.exp(belief - logsumexp(belief)) * total
        return marginals

    def project(self, attrs: tuple[int, ...]) -> np.ndarray:
        """The model's marginal over ``attrs`` (one or two attributes, or any set inside
        one clique), flattened in C order: conditionals chained along the tree path
        between a clique holding the first attribute and one holding the second."""
        home = next((c for c in self.order if set(attrs) <= set(c)), None)
        if home is not None:
            return _sum_to(self.marginals[home], home, attrs).ravel()
        if len(attrs) != 2:
            raise ValueError(f"marginal over {attrs} spans cliques; only pairs are supported")
        a, b = attrs
        start = next(c for c in self.order if a in c)
        end = next(c for c in self.order if b in c)
        import networkx as nx

        if not nx.has_path(self.tree, start, end):  # different components: independent
            pa = _sum_to(self.marginals[start], start, (a,))
            pb = _sum_to(self.marginals[end], end, (b,))
            return (np.outer(pa, pb) / pa.sum()).ravel()
        path = nx.shortest_path(self.tree, start, end)

        def kept(node: tuple[int, ...], following: tuple[int, ...] | None) -> tuple[int, ...]:
            """a, then what the next step needs: the separator with the next clique, or b."""
            wanted = [x for x in node if (x in following if following else x == b)]
            return tuple(dict.fromkeys((a, *wanted)))

        # P(a, S_1), then P(a, S_{i+1}) = Σ P(a, S_i)·P(C_i | S_i) over the rest of C_i:
        # given its separator, a clique is independent of the side of the tree a lies on
        carried = kept(start, path[1])
        table = _sum_to(self.marginals[start], start, carried)
        for i, node in enumerate(path[1:], start=1):
            sep = tuple(x for x in node if x in path[i - 1])
            joint = self.marginals[node]
            denominator = _aligned(_sum_to(joint, node, sep), sep, node)
            conditional = np.divide(
                joint,
                np.broadcast_to(denominator, joint.shape),
                out=np.zeros_like(joint),
                where=np.broadcast_to(denominator, joint.shape) > 0,
            )
            span = tuple(dict.fromkeys((*carried, *node)))
            product = _aligned(table, carried, span) * _aligned(conditional, node, span)
            following = path[i + 1] if i + 1 < len(path) else None
            table = _sum_to(product, span, kept(node, following))
            carried = kept(node, following)
        return _sum_to(table, carried, (a, b)).ravel()

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` synthetic records (codes, n × d) drawn along the tree with ``rng``: each
        root clique by randomized rounding of its marginal, each other clique's new
        attributes given the separator by stratified draws within each separator value
        (the scheme of mbi's ``synthetic_data(method="round")``, on our generator)."""
        codes = np.zeros((n, len(self.sizes)), dtype=np.int64)
        for node in self.order:
            shape = [self.sizes[x] for x in node]
            up = self.parent[node]
            if up is None:
                drawn = _round_counts(self.marginals[node].ravel(), n, rng)
                for x, column in zip(node, np.unravel_index(drawn, shape), strict=True):
                    codes[:, x] = column
                continue
            sep = tuple(x for x in node if x in up)
            new = tuple(x for x in node if x not in sep)
            table = _sum_to(self.marginals[node], node, (*sep, *new))
            table = table.reshape(math.prod(self.sizes[x] for x in sep), -1)
            given = np.ravel_multi_index(
                tuple(codes[:, x] for x in sep), [self.sizes[x] for x in sep]
            )
            drawn = _conditional_draw(table, given, rng)
            for x, column in zip(
                new, np.unravel_index(drawn, [self.sizes[x] for x in new]), strict=True
            ):
                codes[:, x] = column
        return codes


def _round_counts(weights: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` cell indices in random order whose counts are ``weights`` scaled to n and
    randomly rounded (floors, then the remainder drawn by the fractional parts)."""
    counts = np.maximum(weights, 0) * (n / max(weights.sum(), 1e-300))
    whole = np.floor(counts)
    extra = n - int(whole.sum())
    if extra > 0:
        fraction = counts - whole
        positive = np.count_nonzero(fraction)
        if positive < extra:  # float rounding left too few fractional cells
            fraction = fraction + 1e-12
        whole[rng.choice(len(counts), extra, replace=False, p=fraction / fraction.sum())] += 1
    cells = np.repeat(np.arange(len(counts)), whole.astype(np.int64))[:n]
    return rng.permutation(cells)


def _conditional_draw(table: np.ndarray, given: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One column index of ``table`` (rows: separator values) per record, drawn from the
    row ``given`` normalised; the records sharing a row get stratified uniforms
    (rank + U)/count in a random order, so the row's counts are nearly reproduced."""
    n, width = len(given), table.shape[1]
    mass = table.sum(axis=1, keepdims=True)
    safe = np.where(mass > 0, table / np.where(mass > 0, mass, 1), 1.0 / width)
    cdf = np.cumsum(safe, axis=1)
    cdf[:, -1] = 1.0
    order = np.lexsort((rng.permutation(n), given))
    ordered = given[order]
    first = np.searchsorted(ordered, ordered, side="left")
    count = np.searchsorted(ordered, ordered, side="right") - first
    uniform = (np.arange(n) - first + rng.random(n)) / count
    # rows are stacked at offsets 0, 1, 2, …: one sorted search for every record
    flat = (cdf + np.arange(cdf.shape[0])[:, None]).ravel()
    index = np.searchsorted(flat, ordered + uniform, side="right") - ordered * width
    drawn = np.empty(n, dtype=np.int64)
    drawn[order] = np.clip(index, 0, width - 1)
    return drawn
