"""Differentially private synthetic data: MST and AIM on private-pgm's graphical models.

Two marginal-based baselines of the select-measure-generate kind, built on the ``mbi``
package (private-pgm; ``pip install 'anonlab[synth]'``), which estimates a graphical
model from noisy marginals:

* ``mst``: McKenna, Miklau & Sheldon (2021), "Winning the NIST Contest: A scalable and
  general approach to differentially private synthetic data" (J. Priv. Confid. 11(3)),
  the MST mechanism (its Algorithm MST; private-pgm's ``mechanisms/mst.py``);
* ``aim``: McKenna, Mullins, Sheldon & Vietri (2022), "AIM: An Adaptive and Iterative
  Mechanism for Differentially Private Synthetic Data" (PVLDB 15(11)), §4 and its
  Algorithm 1 (private-pgm's ``mechanisms/aim.py``).

**Guarantee.** The release is (ε, δ)-DP for data sets that differ in one record
*replaced* (bounded DP, n public), as the harness's other DP methods. Both mechanisms
are ρ-zCDP with ρ the largest value whose Canonne-Kamath-Steinke conversion gives
(ε, δ) (:func:`zcdp_rho`, the bound private-pgm's ``cdp2adp.cdp_rho`` uses).

**What differs from the published scripts**, which assume add/remove neighbours:

* replacing a record moves one count of a marginal down and another up, so a count
  vector's L2 sensitivity is √2 (:data:`SENSITIVITY_SQ`), not 1: a Gaussian
  measurement with σ costs ρ = 2/(2σ²) = 1/σ² (every σ below is √2 times the script's),
  and the L1 error that the exponential mechanisms score moves by up to 2, not 1;
* n is public: no budget goes to the total, the model is fit with total n, and exactly
  n synthetic records are released;
* numerical attributes are binned into equal-width bins over their PUBLIC domains
  (``attribute.domain``; option ``bins``) and decoded by a uniform draw within the bin
  (integer attributes among the integers of their bin), then
  :func:`~anonlab.methods.base.postprocess`; categorical attributes are their concept
  codes (domain: the concepts of the taxonomy's labels, Dom(A)); the class
  (``dataset.target``), if any, is one more attribute whose synthetic labels go to
  ``Release.target``;
* every random draw (measurement noise, the exponential mechanisms, the sampling of
  records, the decoding within bins) comes from the ``numpy.random.Generator`` given to
  ``protect``. mbi's own sampler (``MarkovRandomField.synthetic_data``) draws from
  NumPy's global state, so records are sampled here from the fitted model's
  junction-tree marginals, computed in NumPy float64 (:class:`_TreeModel`); only the
  model fit runs in jax, whose compiled float32 arithmetic is the same on every run on
  a given machine (byte-identical releases; another CPU may differ in the last bits of
  the fit and so in the records). jax stays in its default float32 (enabling x64 is
  process-wide); mbi's warning about float32 concerns n > 10⁵.
* run-time settings are module constants: MST keeps the script's iterations and fits
  its tree with a fixed step; AIM uses fewer iterations per round and a smaller model
  cap than the script (see each constant), and merges repeated measurements of a
  marginal (:class:`_Measurements`).

The synthetic records correspond to no original record (``record_aligned = False``):
metrics that compare a record with its own release refuse these methods.
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonlab.datasets import Dataset
from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.methods.base import Method, Release, postprocess
from anonlab.validation import ParameterError, check_epsilon

#: the default δ: the NIST 2018 contest's and the MST and AIM scripts' (``delta = 1e-9``);
#: below 1/n² for every n up to 31,000 (Adult's 30,162 included), the usual δ ≪ 1/n
DEFAULT_DELTA = 1e-9
DELTA_CHOICES = (DEFAULT_DELTA, 1e-6, 1e-12)
#: equal-width bins per numerical attribute (the first the default): 32 keeps a 2-way
#: marginal at 1,024 cells, which Census's 1,080 records can still fill at ε ≈ 1
BIN_CHOICES = (32, 16, 64, 8)
#: squared L2 sensitivity of a count vector when one record is replaced: (−1)² + 1²
SENSITIVITY_SQ = 2.0
#: the L1 sensitivity of ‖x − x̂‖₁ for a marginal x when one record is replaced
L1_SENSITIVITY = 2.0

#: mirror-descent iterations of MST's final fit and of its one-way fit that scores the
#: pairs (the script's 10,000 and 2,500); after jax's compilation they cost ~0.1 s on Census
MST_ITERS = 10_000
MST_SELECT_ITERS = 2_500
#: AIM's rounds budget T = 16·d (AIM §4, Algorithm 1 and the script's default)
AIM_ROUNDS_PER_ATTRIBUTE = 16
#: mirror-descent iterations per AIM round, warm-started from the previous model (the
#: script: 1,000); each round changes the model by one marginal
AIM_ITERS = 250
#: AIM's model-size cap in MB (AIM §4 "candidate filtering"; the script: 80 MB, "1.0 for
#: debugging"): each new clique structure costs a jax compilation (~1-2 s), so the cap
#: keeps the model to pairs and small triples on 32-bin attributes
AIM_MAX_MODEL_SIZE = 1.0
#: MST's compression threshold: one-way cells measured below 3σ are merged (MST script)
COMPRESS_SIGMAS = 3.0
SYNTH_EXTRA = "pip install 'anonlab[synth]'"
log = logging.getLogger(__name__)


# --- privacy accounting -------------------------------------------------------------


def cdp_delta(rho: float, epsilon: float) -> float:
    """δ of the (ε, δ)-DP that ρ-zCDP implies, by Canonne, Kamath & Steinke (2020,
    "The Discrete Gaussian for Differential Privacy", Corollary 13):
    δ = min over α > 1 of exp((α−1)(αρ − ε)) / (α−1) · (1 − 1/α)^α, the α found by
    bisection on the derivative of its logarithm (as private-pgm's ``cdp2adp.py``)."""
    if rho <= 0:
        return 0.0
    low, high = 1.01, (epsilon + 1) / (2 * rho) + 2  # the optimum α ≥ (1 + ε/ρ)/2
    for _ in range(200):
        alpha = (low + high) / 2
        # CKS Cor. 13: d/dα of the log-bound, up to a positive factor
        if (2 * alpha - 1) * rho - epsilon + math.log1p(-1.0 / alpha) < 0:
            low = alpha
        else:
            high = alpha
    alpha = (low + high) / 2
    log_delta = (
        (alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha) - math.log(alpha - 1)
    )  # CKS Cor. 13
    return min(math.exp(log_delta), 1.0)


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ whose ρ-zCDP implies (ε, δ)-DP by :func:`cdp_delta` (bisection, as
    ``cdp2adp.cdp_rho``); never below the standard ρ with ε = ρ + 2√(ρ·ln(1/δ)) (Bun &
    Steinke 2016, Prop. 1.3), which it tightens."""
    epsilon = check_epsilon(epsilon)
    if not 0 < delta < 1:
        raise ParameterError(f"delta must be in (0, 1), got {delta!r}")
    low, high = 0.0, epsilon + 1  # cdp_delta(low) ≤ δ < cdp_delta(high)
    for _ in range(200):
        rho = (low + high) / 2
        if cdp_delta(rho, epsilon) <= delta:
            low = rho
        else:
            high = rho
    return low


def gaussian_sigma(rho: float) -> float:
    """σ of a Gaussian measurement of one count vector that costs ρ-zCDP when one record
    is replaced: ρ = Δ₂²/(2σ²) (Bun & Steinke 2016, Prop. 1.6) with Δ₂² = 2."""
    return math.sqrt(SENSITIVITY_SQ / (2 * rho))


def gaussian_rho(sigma: float) -> float:
    """ρ of a Gaussian measurement of one count vector with σ: Δ₂²/(2σ²), Δ₂² = 2."""
    return SENSITIVITY_SQ / (2 * sigma**2)


def exponential_epsilon(rho: float) -> float:
    """ε of an exponential mechanism costing ρ-zCDP: ε-DP exponential mechanisms are
    ε²/8-zCDP (Cesar & Rogers 2021; MST and AIM §4 both rely on it), so ε = √(8ρ)."""
    return math.sqrt(8 * rho)


# --- encoding -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Encoding:
    """The view's protected attributes (and class) as discrete codes 0..size−1.

    Numerical attributes: ``bins`` equal-width bins over the public domain; an integer
    attribute with at most ``bins`` integers in its domain gets one bin per integer, a
    wider one ``bins`` bins of (nearly) equal numbers of consecutive integers, so every
    bin holds an integer. Categorical attributes: their concept codes, Dom(A) being the
    concepts of the taxonomy's labels (codes 0..L−1). The class: the index of its label
    among ``classes``.
    """

    codes: np.ndarray  # (n, d) int64
    sizes: tuple[int, ...]
    classes: np.ndarray | None

    @classmethod
    def of(cls, dataset: Dataset, bins: int) -> _Encoding:
        values = dataset.protected_values
        columns, sizes = [], []
        for j, attr in enumerate(dataset.protected_attributes):
            size = _attribute_size(attr, bins)
            if attr.categorical:
                code = values[:, j].astype(np.int64)
            elif attr.integer:
                first = math.ceil(attr.domain[0])
                count = math.floor(attr.domain[1]) - first + 1
                # bin of integer v: ⌊(v − first)·size / count⌋, each bin non-empty
                code = np.floor((np.round(values[:, j]) - first) * size / count)
            else:
                width = attr.width
                scaled = (values[:, j] - attr.domain[0]) / width if width > 0 else 0 * values[:, j]
                code = np.floor(scaled * size)
            columns.append(np.clip(code, 0, size - 1).astype(np.int64))
            sizes.append(size)
        classes = None
        if dataset.target is not None:
            # the class labels are the config's two names (dataset.target.labels)
            classes, code = np.unique(dataset.target.to_numpy().astype(str), return_inverse=True)
            columns.append(code.astype(np.int64))
            sizes.append(len(classes))
        codes = np.column_stack(columns) if columns else np.empty((dataset.n, 0), np.int64)
        return cls(codes, tuple(sizes), classes)

    def decode(
        self, dataset: Dataset, codes: np.ndarray, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Released values (n × m, before post-processing) and class labels of synthetic
        ``codes``: a uniform draw within each numerical bin (among its integers for an
        integer attribute), the code itself for a categorical attribute."""
        n = codes.shape[0]
        values = np.empty((n, len(dataset.protected)), dtype=float)
        for j, attr in enumerate(dataset.protected_attributes):
            size, code = self.sizes[j], codes[:, j]
            if attr.categorical:
                values[:, j] = code
            elif attr.integer:
                first = math.ceil(attr.domain[0])
                count = math.floor(attr.domain[1]) - first + 1
                # integers of bin b: ⌈b·count/size⌉ .. ⌈(b+1)·count/size⌉ − 1 (from first)
                start = -((-code * count) // size)
                stop = -((-(code + 1) * count) // size)
                values[:, j] = first + start + np.floor(rng.random(n) * (stop - start))
            else:
                values[:, j] = attr.domain[0] + (code + rng.random(n)) * attr.width / size
        target = self.classes[codes[:, -1]] if self.classes is not None else None
        return values, target


def _attribute_size(attr: Any, bins: int) -> int:
    """Number of discrete values of a protected attribute (see :class:`_Encoding`)."""
    if attr.categorical:  # Dom(A): the concepts of the taxonomy's labels, codes 0..L−1
        return len(set(attr.taxonomy.labels.values()))
    if attr.integer:
        return int(max(1, min(bins, math.floor(attr.domain[1]) - math.ceil(attr.domain[0]) + 1)))
    return bins


def _marginal(codes: np.ndarray, sizes: tuple[int, ...], clique: tuple[int, ...]) -> np.ndarray:
    """Counts of ``codes`` over ``clique``, flattened in C order."""
    shape = tuple(sizes[a] for a in clique)
    flat = np.ravel_multi_index(tuple(codes[:, a] for a in clique), shape)
    return np.bincount(flat, minlength=math.prod(shape)).astype(float)


# --- the fitted model, in NumPy -----------------------------------------------------


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


class _TreeModel:
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


# --- the mechanisms -----------------------------------------------------------------


def _import_mbi() -> Any:
    """mbi, imported on first use (it imports jax: about a second); its import-time
    notes on float32 and jax's compilation cache are silenced (see the module notes)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            import mbi
    except ImportError:  # pragma: no cover - checked by check_dataset first
        raise ParameterError(f"methods 'mst' and 'aim' need private-pgm: {SYNTH_EXTRA}") from None
    return mbi


class _Measurements:
    """Gaussian measurements of marginals, one mbi ``LinearMeasurement`` per clique.

    A clique measured again is merged with its earlier measurement into their
    inverse-variance weighted mean, with σ = (Σ 1/σ_i²)^(-1/2): the least-squares loss
    Private-PGM minimises is the same up to a constant, and the model's structure, to
    which mbi compiles its estimator, is unchanged (no new jax compilation).
    """

    def __init__(self, mbi: Any, codes: np.ndarray, sizes: tuple[int, ...]) -> None:
        self.mbi, self.codes, self.sizes = mbi, codes, sizes
        self.domain = mbi.Domain(tuple(range(len(sizes))), sizes)
        self.log: dict[tuple[int, ...], Any] = {}

    def measure(self, clique: tuple[int, ...], sigma: float, rng: np.random.Generator) -> None:
        """Gaussian mechanism on the counts over ``clique`` (cost :func:`gaussian_rho`)."""
        counts = _marginal(self.codes, self.sizes, clique)
        noisy = counts + rng.normal(0.0, sigma, counts.size)
        if clique in self.log:
            earlier = self.log[clique]
            precision = 1 / earlier.stddev**2 + 1 / sigma**2
            noisy = (
                np.asarray(earlier.noisy_measurement, dtype=float) / earlier.stddev**2
                + noisy / sigma**2
            ) / precision
            sigma = precision**-0.5
        self.log[clique] = self.mbi.LinearMeasurement(noisy, clique, stddev=sigma)

    def fit(self, total: int, iters: int, warm: Any = None, fixed_step: bool = False) -> Any:
        """Private-PGM's mirror descent on the measurements (post-processing), total n.

        ``fixed_step``: the step 2/(L·n), mbi's first Armijo step, throughout instead of
        the line search: one marginal computation per step instead of two, so jax compiles
        about half as much, to as low a loss (Census MST: 27.097 vs Armijo's 27.115). The
        step is part of what mbi compiles to, so only a fit compiled anew for every run
        uses it (MST's tree); AIM's rounds keep the line search and reuse compilations.
        """
        measurements = list(self.log.values())
        step = None
        if fixed_step:
            loss = self.mbi.marginal_loss.from_linear_measurements(measurements, self.domain)
            step = 2.0 / (float(loss.lipschitz) * total)
        estimator = self.mbi.estimation.MirrorDescent(stepsize=step)
        return estimator.estimate(
            self.domain, measurements, known_total=float(total), iters=iters, warm_start=warm
        )


def _compress(mbi: Any, measured: _Measurements) -> tuple[_Measurements, list[np.ndarray]]:
    """MST's domain compression (MST script ``compress_domain``; post-processing): the
    values of an attribute whose noisy one-way count is below 3σ merge into one value.
    Returns the measurements re-expressed on the compressed domain (mbi's
    ``LinearMeasurement.compress``) and, per attribute, the compressed value of each
    original value."""
    mappings = []
    for measurement in measured.log.values():
        kept = np.asarray(measurement.noisy_measurement) >= COMPRESS_SIGMAS * measurement.stddev
        mappings.append(np.where(kept, np.cumsum(kept) - 1, int(kept.sum())).astype(np.int64))
    sizes = tuple(int(mapping.max()) + 1 for mapping in mappings)
    codes = np.column_stack([mapping[measured.codes[:, a]] for a, mapping in enumerate(mappings)])
    compressed = _Measurements(mbi, codes, sizes)
    merged = {a: mapping for a, mapping in enumerate(mappings) if sizes[a] < len(mapping)}
    compressed.log = {
        clique: m.compress(merged, measured.domain) for clique, m in measured.log.items()
    }
    return compressed, mappings


def _decompress(
    codes: np.ndarray, mappings: list[np.ndarray], rng: np.random.Generator
) -> np.ndarray:
    """Original codes of compressed ``codes``: a merged value becomes one of its original
    values uniformly at random (MST script ``reverse_data``, on our generator)."""
    out = np.empty_like(codes)
    for a, mapping in enumerate(mappings):
        members = np.argsort(mapping, kind="stable")  # original values by compressed value
        count = np.bincount(mapping)
        start = np.concatenate([[0], np.cumsum(count)[:-1]])
        pick = np.floor(rng.random(len(codes)) * count[codes[:, a]]).astype(np.int64)
        out[:, a] = members[start[codes[:, a]] + pick]
    return out


def run_mst(
    codes: np.ndarray, sizes: tuple[int, ...], rho: float, rng: np.random.Generator
) -> np.ndarray:
    """MST (McKenna et al. 2021, Algorithm MST) on discrete ``codes`` at ρ-zCDP for
    replaced-record neighbours; returns ``len(codes)`` synthetic records."""
    mbi = _import_mbi()
    n, d = codes.shape
    measured = _Measurements(mbi, codes, sizes)
    # MST: ρ/3 for the one-way marginals, ρ/3 to select the tree, ρ/3 for its edges (all
    # of ρ for the one-way marginals when there is a single attribute)
    phase = rho / 3 if d > 1 else rho
    # MST (script measure()): d marginals with weights 1/√d share ρ/3: σ_i = σ·√d
    sigma = gaussian_sigma(phase) * math.sqrt(d)
    for a in range(d):
        measured.measure((a,), sigma, rng)
    # the one-way model that scores the pairs, fit before compression: its structure is
    # the same on every run (one jax compilation per view; AIM's first model shares it)
    independent = _TreeModel(measured.fit(n, MST_SELECT_ITERS), sizes, n) if d > 1 else None
    compressed, mappings = _compress(mbi, measured)
    if independent is not None:
        edges = _mst_select(compressed, independent, mappings, phase, rng)
        # MST: the d − 1 tree edges share ρ/3: σ_i = σ·√(d − 1)
        sigma = gaussian_sigma(phase) * math.sqrt(len(edges))
        for edge in edges:
            compressed.measure(edge, sigma, rng)
    model = _TreeModel(compressed.fit(n, MST_ITERS, fixed_step=True), compressed.sizes, n)
    return _decompress(model.sample(n, rng), mappings, rng)


def _mst_select(
    measured: _Measurements,
    independent: _TreeModel,
    mappings: list[np.ndarray],
    rho: float,
    rng: np.random.Generator,
) -> list[tuple[int, int]]:
    """MST's private maximum spanning tree (Algorithm MST, ``select``): Kruskal's
    algorithm where each of the d − 1 edges is an exponential-mechanism choice among the
    pairs joining two components, quality the L1 error ‖x_ab − x̂_ab‖₁ on the compressed
    domain of the one-way model's estimate (its cells merged as the domain is)."""
    d = len(measured.sizes)
    merge = [np.eye(size)[mapping] for size, mapping in zip(measured.sizes, mappings, strict=True)]
    pairs = list(itertools.combinations(range(d), 2))
    error = np.empty(len(pairs))
    for i, (a, b) in enumerate(pairs):
        estimate = independent.project((a, b)).reshape(len(mappings[a]), len(mappings[b]))
        merged = (merge[a].T @ estimate @ merge[b]).ravel()
        error[i] = np.abs(_marginal(measured.codes, measured.sizes, (a, b)) - merged).sum()
    # MST: d − 1 selections share ρ/3, each ε = √(8ρ/(3(d − 1))) (ε²/8-zCDP each);
    # a replaced record moves ‖x − x̂‖₁ by up to 2
    mechanism = ExponentialMechanism(exponential_epsilon(rho / (d - 1)), L1_SENSITIVITY)
    component = list(range(d))

    def root(a: int) -> int:
        while component[a] != a:
            a = component[a]
        return a

    edges = []
    for _ in range(d - 1):
        open_pairs = [i for i, (a, b) in enumerate(pairs) if root(a) != root(b)]
        chosen = pairs[open_pairs[int(mechanism.select(error[open_pairs], rng)[0])]]
        component[root(chosen[0])] = root(chosen[1])
        edges.append(chosen)
    return edges


def run_aim(
    codes: np.ndarray, sizes: tuple[int, ...], rho: float, rng: np.random.Generator
) -> np.ndarray:
    """AIM (McKenna et al. 2022, §4, Algorithm 1) on discrete ``codes`` at ρ-zCDP for
    replaced-record neighbours, workload all 2-way marginals with weight 1 (the script's
    default); returns ``len(codes)`` synthetic records."""
    mbi = _import_mbi()
    from mbi import junction_tree

    n, d = codes.shape
    workload = list(itertools.combinations(range(d), 2)) or [(0,)]
    # AIM §4: candidates are the workload's downward closure, weight w_r = Σ_s |r ∩ s|
    closure = sorted(
        {
            sub
            for cl in workload
            for k in range(1, len(cl) + 1)
            for sub in itertools.combinations(cl, k)
        },
        key=lambda c: (len(c), c),
    )
    weight = {r: float(sum(len(set(r) & set(s)) for s in workload)) for r in closure}
    answers = {r: _marginal(codes, sizes, r) for r in closure}
    measured = _Measurements(mbi, codes, sizes)
    rounds = AIM_ROUNDS_PER_ATTRIBUTE * d
    # AIM Algorithm 1: σ_0 = √(T/(2·0.9ρ)) and ε_0 = √(8·0.1ρ/T) for add/remove; a
    # measurement costs 1/σ² here (Δ₂² = 2), so σ_0 = √(T/(0.9ρ))
    sigma = math.sqrt(rounds / (0.9 * rho))
    epsilon = exponential_epsilon(0.1 * rho / rounds)
    for a in range(d):  # AIM §4 initialisation: every one-way marginal
        measured.measure((a,), sigma, rng)
    used = d * gaussian_rho(sigma)
    fitted = measured.fit(n, AIM_ITERS)
    model = _TreeModel(fitted, sizes, n)
    while True:
        last = rho - used < 2 * (gaussian_rho(sigma) + epsilon**2 / 8)
        if last:  # AIM Algorithm 1: the last round spends what remains, 0.9/0.1 as before
            remaining = rho - used
            sigma = math.sqrt(SENSITIVITY_SQ / (2 * 0.9 * remaining))
            epsilon = exponential_epsilon(0.1 * remaining)
        used += epsilon**2 / 8 + gaussian_rho(sigma)
        # AIM §4: candidates whose model stays within the size cap scaled by ρ used / ρ,
        # or already inside the model
        limit = AIM_MAX_MODEL_SIZE * used / rho
        inside = {
            sub
            for cl in fitted.potentials.cliques
            for k in range(1, len(cl) + 1)
            for sub in itertools.combinations(cl, k)
        }
        cliques = [tuple(c) for c in fitted.potentials.cliques]
        candidates = [
            r
            for r in closure
            if r in inside
            or junction_tree.hypothetical_model_size(measured.domain, [*cliques, r]) <= limit
        ]
        # AIM §4 quality: w_r·(‖x_r − x̂_r‖₁ − √(2/π)·σ·n_r), sensitivity 2·max w_r here
        quality = np.array(
            [
                weight[r]
                * (
                    np.abs(answers[r] - model.project(r)).sum()
                    - math.sqrt(2 / math.pi) * sigma * answers[r].size
                )
                for r in candidates
            ]
        )
        mechanism = ExponentialMechanism(
            epsilon, L1_SENSITIVITY * max(weight[r] for r in candidates)
        )
        chosen = candidates[int(mechanism.select(quality, rng)[0])]
        log.debug(
            "AIM round: measure %s with sigma %.3g, rho used %.3g of %.3g", chosen, sigma, used, rho
        )
        before = model.project(chosen)
        measured.measure(chosen, sigma, rng)
        fitted = measured.fit(n, AIM_ITERS, warm=fitted)
        model = _TreeModel(fitted, sizes, n)
        if last:
            break
        # AIM §4 budget annealing: halve σ (and double ε) when the new measurement moved
        # the model less than its expected noise, √(2/π)·σ·n_r
        if np.abs(model.project(chosen) - before).sum() <= (
            math.sqrt(2 / math.pi) * sigma * answers[chosen].size
        ):
            sigma /= 2
            epsilon *= 2
    return model.sample(n, rng)


# --- the registered methods ---------------------------------------------------------


def require_mbi() -> None:
    """Raise a :class:`~anonlab.validation.ParameterError` unless mbi is installed
    (without importing it)."""
    if importlib.util.find_spec("mbi") is None:
        raise ParameterError(f"methods 'mst' and 'aim' need private-pgm (mbi): {SYNTH_EXTRA}")


@dataclass(frozen=True)
class _Synthetic(Method):
    """What MST and AIM share: encoding, accounting, decoding."""

    epsilon: float
    bins: int = BIN_CHOICES[0]
    delta: float = DEFAULT_DELTA
    axes: ClassVar[tuple[str, ...]] = ("epsilon",)
    randomized: ClassVar[bool] = True
    partition: ClassVar[str | None] = None
    record_aligned: ClassVar[bool] = False  # synthetic records match no original record
    carries_class: ClassVar[bool] = True  # the class is synthesised with the records
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "bins": BIN_CHOICES,
        "delta": DELTA_CHOICES,
    }

    def check_dataset(self, dataset: Dataset) -> None:
        require_mbi()
        if dataset.n < 1:
            raise ParameterError(f"method {self.name!r} needs at least one record")
        values = dataset.protected_values
        for j, attr in enumerate(dataset.protected_attributes):
            size = _attribute_size(attr, self.bins)
            if attr.categorical and values.shape[0] and values[:, j].max() >= size:
                raise ParameterError(
                    f"method {self.name!r} synthesises the labels of "
                    f"taxonomy {attr.taxonomy.name!r}; column {attr.name!r} "
                    "also holds inner concepts: map them to labels first"
                )

    @property
    def rho(self) -> float:
        """The zCDP ρ the mechanism spends (:func:`zcdp_rho` of ε and δ)."""
        return zcdp_rho(self.epsilon, self.delta)

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        raise NotImplementedError

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        encoding = _Encoding.of(dataset, self.bins)
        synthetic = self.synthesize(encoding.codes, encoding.sizes, rng)
        values, target = encoding.decode(dataset, synthetic, rng)
        return Release(
            dataset,
            postprocess(dataset, values, noisy=True, in_place=True),
            target=target,
            record_aligned=False,
        )


@dataclass(frozen=True)
class Mst(_Synthetic):
    """MST synthetic data (McKenna, Miklau & Sheldon 2021), (ε, δ)-DP. Noisy one-way
    marginals, a private maximum spanning tree of attribute pairs and its noisy 2-way
    marginals; Private-PGM fits a graphical model to them, sampled to n records. Options
    ``bins`` (numerical attributes, equal-width over their domains) and ``delta``
    (default 1e-9); see :mod:`anonlab.methods.synthetic` for what differs from the
    published script."""

    name: ClassVar[str] = "mst"

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        return run_mst(codes, sizes, self.rho, rng)


@dataclass(frozen=True)
class Aim(_Synthetic):
    """AIM synthetic data (McKenna, Mullins, Sheldon & Vietri 2022), (ε, δ)-DP. One-way
    marginals, then rounds that each measure the marginal of the 2-way workload the model
    estimates worst (exponential mechanism), with budget annealing (AIM §4); Private-PGM
    fits the model, sampled to n records. Options ``bins`` and ``delta`` (default 1e-9)
    as for ``mst``."""

    name: ClassVar[str] = "aim"

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        return run_aim(codes, sizes, self.rho, rng)
