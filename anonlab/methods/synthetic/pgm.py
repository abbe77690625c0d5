"""The MST and AIM mechanisms on private-pgm (``mbi``): select, measure, fit
(:mod:`anonlab.methods.synthetic`)."""

from __future__ import annotations

import itertools
import logging
import math
import warnings
from typing import Any

import numpy as np

from anonlab.mechanisms.accounting import (
    L1_SENSITIVITY,
    SENSITIVITY_SQ,
    exponential_epsilon,
    gaussian_rho,
    gaussian_sigma,
)
from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.methods.synthetic.encoding import marginal
from anonlab.methods.synthetic.model import TreeModel
from anonlab.methods.synthetic.settings import (
    AIM_ITERS,
    AIM_MAX_MODEL_SIZE,
    AIM_ROUNDS_PER_ATTRIBUTE,
    COMPRESS_SIGMAS,
    MST_ITERS,
    MST_SELECT_ITERS,
    SYNTH_EXTRA,
)
from anonlab.validation import ParameterError

log = logging.getLogger(__name__)


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
        counts = marginal(self.codes, self.sizes, clique)
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
    independent = TreeModel(measured.fit(n, MST_SELECT_ITERS), sizes, n) if d > 1 else None
    compressed, mappings = _compress(mbi, measured)
    if independent is not None:
        edges = _mst_select(compressed, independent, mappings, phase, rng)
        # MST: the d − 1 tree edges share ρ/3: σ_i = σ·√(d − 1)
        sigma = gaussian_sigma(phase) * math.sqrt(len(edges))
        for edge in edges:
            compressed.measure(edge, sigma, rng)
    model = TreeModel(compressed.fit(n, MST_ITERS, fixed_step=True), compressed.sizes, n)
    return _decompress(model.sample(n, rng), mappings, rng)


def _mst_select(
    measured: _Measurements,
    independent: TreeModel,
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
        error[i] = np.abs(marginal(measured.codes, measured.sizes, (a, b)) - merged).sum()
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
    answers = {r: marginal(codes, sizes, r) for r in closure}
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
    model = TreeModel(fitted, sizes, n)
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
        model = TreeModel(fitted, sizes, n)
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
