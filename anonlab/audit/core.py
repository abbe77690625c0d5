"""One audit: a method, an ε, its neighbouring data sets and the bound their releases give."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from anonlab.audit.bounds import epsilon_lower_bound
from anonlab.audit.data import Neighbour, audit_dataset, neighbours
from anonlab.audit.events import Measured, choose_event, measure
from anonlab.audit.noisefree import Aimed, NotAuditable, noise_free
from anonlab.audit.sampling import releases
from anonlab.audit.settings import Settings
from anonlab.audit.statistics import candidates, comparable, expected_loss
from anonlab.audit.views import VIEWS
from anonlab.datasets import Dataset
from anonlab.guarantee import DP, IDP, Guarantee
from anonlab.methods import Method, make_method, method_class
from anonlab.methods.guarantees import guarantee
from anonlab.validation import ParameterError

IDP_NOTE = (
    "claims ε-iDP (iDP §2: indistinguishable from the neighbours of the actual data "
    "set); the audited D is that data set and each D' one of its neighbours, so a "
    "bound above the claim contradicts ε-iDP of D as iDP §2 defines it: a neighbour "
    "that re-ranks records moves several centroids, which the local sensitivities "
    "(computed with the clustering fixed) do not count"
)


@dataclass(frozen=True)
class PairResult:
    """The bound one neighbour and one view gave (:mod:`anonlab.audit.views`)."""

    pair: str
    view: str
    statistic: str
    event: str
    loss_aimed: float
    measured: Measured | None

    @property
    def epsilon_lower(self) -> float:
        return 0.0 if self.measured is None else self.measured.epsilon_lower


@dataclass(frozen=True)
class AuditResult:
    """What one audit found.

    ``results`` holds one :class:`PairResult` per neighbour and view; every bound in it
    holds jointly with probability ≥ ``settings.confidence`` (Bonferroni over the
    ``len(results)`` tests, each test's two Clopper–Pearson bounds at error
    (1 − confidence) / (2·len(results))).
    """

    method: str
    epsilon: float
    settings: Settings
    claimed: Guarantee
    results: tuple[PairResult, ...]
    seconds: float
    seconds_per_call: float

    def best(self, view: str = "released") -> PairResult | None:
        """The result with the largest bound in ``view`` (``None`` without that view)."""
        return max(
            (r for r in self.results if r.view == view), key=lambda r: r.epsilon_lower, default=None
        )

    def epsilon_lower(self, view: str = "released") -> float | None:
        """The largest bound of ``view``: at the stated confidence the release as returned
        (``released``) or its rank-ordered centroid list (``centroids``) spends at least
        this ε."""
        best = self.best(view)
        return None if best is None else best.epsilon_lower

    @property
    def ceiling(self) -> float:
        """The largest bound these runs can give (every hold-out release of one data set
        in the event, none of the other's): a bound near it means the releases tell D
        from D' about every time."""
        trials = self.settings.runs - self.settings.runs // 2
        beta = (1 - self.settings.confidence) / (2 * len(self.results))
        return float(epsilon_lower_bound(trials, trials, 0, trials, beta))

    @property
    def exceeds_claim(self) -> list[str]:
        """The views whose bound exceeds the claimed ε in total."""
        claim = self.claimed.epsilon_total or math.inf
        return [view for view in VIEWS if (self.epsilon_lower(view) or 0.0) > claim]

    @property
    def note(self) -> str:
        parts = [IDP_NOTE] if self.claimed.claimed == IDP else []
        if self.claimed.caveat:
            parts.append(f"caveat: {self.claimed.caveat}")
        return "; ".join(parts)

    def row(self) -> dict[str, Any]:
        """One table row: the method, what it claims, the bound of each view with the pair
        and event that gave it, and every parameter."""
        row: dict[str, Any] = {
            "method": self.method,
            "form": self.settings.form,
            "epsilon": self.epsilon,
            "claimed": self.claimed.claimed,
            "claimed_eps_per_attribute": self.claimed.epsilon_per_attribute,
            "claimed_eps_total": self.claimed.epsilon_total,
            "notion": self.claimed.notion,
        }
        for view in VIEWS:
            best = self.best(view)
            row[f"eps_lower_{view}"] = None if best is None else round(best.epsilon_lower, 4)
            row[f"pair_{view}"] = None if best is None else best.pair
            row[f"event_{view}"] = None if best is None else best.event
        row["exceeds_claim"] = " ".join(self.exceeds_claim)
        row["eps_ceiling"] = round(self.ceiling, 4)
        row.update(self.settings.as_dict())
        row.update(
            {
                "tests": len(self.results),
                "seconds": round(self.seconds, 2),
                "us_per_call": round(self.seconds_per_call * 1e6, 1),
                "note": self.note,
            }
        )
        return row

    def summary(self) -> str:
        """A few lines for the terminal."""
        s, c = self.settings, self.claimed
        lines = [
            f"{self.method} ({s.form}) at epsilon={self.epsilon:g}: claims {c.claimed}, "
            f"{c.epsilon_per_attribute:g} per attribute, {c.epsilon_total:g} in total; "
            f"as released: {c.notion}",
            f"data: {s.data}, n={s.n} m={s.m} k={s.k} domain [{s.low:g}, {s.high:g}], "
            f"seed={s.seed}; "
            f"{s.runs} releases per data set ({self.seconds_per_call * 1e6:.0f} us each), "
            f"{self.seconds:.1f} s",
            f"lower bounds on epsilon, {s.confidence:.0%} jointly over "
            f"{len(self.results)} tests (the most these runs can show: "
            f"{self.ceiling:.2f}):",
        ]
        for view in VIEWS:
            best = self.best(view)
            if best is not None:
                flag = "  EXCEEDS THE CLAIM" if view in self.exceeds_claim else ""
                lines.append(
                    f"  {view:9} {best.epsilon_lower:.3f}{flag}  from {best.pair}, {best.event}"
                )
        lines.append("per neighbour and view (bound, loss the noise-free releases suggest):")
        lines += [
            f"  {r.epsilon_lower:7.3f} {r.loss_aimed:8.3f}  {r.view:9} {r.pair}"
            for r in self.results
        ]
        if self.note:
            lines.append(f"note: {self.note}")
        return "\n".join(lines)


def resolve_method(
    method: str | Method, epsilon: float | None, k: int, options: dict[str, Any] | None = None
) -> Method:
    """The randomised method to audit, built with ``k``, ``epsilon`` and ``options`` (its
    form and sampler) when named."""
    if isinstance(method, Method):
        if epsilon is not None and epsilon != getattr(method, "epsilon", None):
            raise ParameterError(
                f"epsilon={epsilon!r} given for a method built with "
                f"epsilon={getattr(method, 'epsilon', None)!r}"
            )
        return method
    cls = method_class(method)
    if not cls.randomized:
        raise ParameterError(
            f"method={method!r} is deterministic; the audit measures randomised methods"
        )
    chosen = {name: value for name, value in (options or {}).items() if name in cls.choices()}
    return make_method(cls.name, {"k": k, "epsilon": 1.0 if epsilon is None else epsilon}, chosen)


def choose_pairs(
    method: Method, dataset: Dataset, count: int
) -> tuple[Aimed, list[tuple[Neighbour, Aimed]]]:
    """The noise-free release of D and the ``count`` neighbours to sample with theirs:
    half chosen by the loss their noise-free releases suggest in the released view, the
    rest by the centroid view (the neighbours that re-rank most), when there is one."""
    base = noise_free(method, dataset)
    scored = []
    for moved in neighbours(dataset):
        aimed = noise_free(method, moved.dataset)
        scored.append(
            (
                moved,
                aimed,
                {
                    view: expected_loss(base, aimed, view)
                    for view in VIEWS
                    if comparable(base, aimed, view)
                },
            )
        )
    chosen: list[tuple[Neighbour, Aimed]] = []
    for view, quota in (("released", (count + 1) // 2), ("centroids", count), ("released", count)):
        for moved, aimed, loss in sorted(scored, key=lambda s: -s[2].get(view, -1.0)):
            if len(chosen) >= quota or view not in loss:
                break
            if all(moved is not c[0] for c in chosen):
                chosen.append((moved, aimed))
    return base, chosen


def bound_pair(
    base: Aimed,
    aimed: Aimed,
    on_d: dict[str, np.ndarray],
    on_d2: dict[str, np.ndarray],
    label: str,
    beta: float,
    tolerance: float,
) -> list[PairResult]:
    """One :class:`PairResult` per view: the statistic and event chosen on the first half
    of ``on_d`` and ``on_d2`` (releases of D and D'), bounded on the second."""
    results = []
    for view in (v for v in VIEWS if comparable(base, aimed, v)):
        half = len(on_d[view]) // 2
        loss = expected_loss(base, aimed, view)
        best = None
        for statistic in candidates(base, aimed, view, tolerance):
            s, s2 = statistic(on_d[view]), statistic(on_d2[view])
            event, score = choose_event(s[:half], s2[:half], beta)
            if best is None or score > best[2]:
                best = (statistic, event, score, s, s2)
        if best is None:  # no released value moves: nothing to aim at
            results.append(PairResult(label, view, "none", "no value moves", loss, None))
            continue
        statistic, event, _, s, s2 = best
        measured = measure(event, s[half:], s2[half:], beta)
        results.append(
            PairResult(label, view, statistic.name, event.describe(statistic.name), loss, measured)
        )
    return results


def audited_dataset(settings: Settings) -> tuple[Dataset, np.random.SeedSequence]:
    """The data set D of ``settings`` and the seed of every release's noise: children 0
    and 1 of ``SeedSequence(settings.seed)``."""
    data_seed, noise_seed = np.random.SeedSequence(settings.seed).spawn(2)
    dataset = audit_dataset(
        settings.n, settings.m, settings.low, settings.high, data_seed, settings.data
    )
    return dataset, noise_seed


def audit(
    method: str | Method,
    epsilon: float | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> AuditResult:
    """Audit ``method`` at ``epsilon``: a lower confidence bound on the ε its releases
    spend, from many seeded releases of neighbouring data sets.

    Parameters
    ----------
    method : a registered randomised method's name, or a built :class:`Method` (then
        ``epsilon`` is its own).
    epsilon : ε of the release (default 1).
    settings : :class:`Settings`; ``options`` override its fields (``runs=2000``).

    Returns
    -------
    :class:`AuditResult`; :meth:`AuditResult.summary` prints it.

    Raises
    ------
    ParameterError, TypeError : a bad parameter, before any release is drawn.
    NotAuditable : the method draws noise the audit cannot switch off.

    Notes
    -----
    For every sampled neighbour D' and view, the first half of the releases chooses a
    statistic, an event and its threshold; the second half bounds
    ε ≥ ln(P_D[S] / P_D'[S]) with Clopper–Pearson bounds (Jagielski, Ullman & Oprea
    2020; Nasr et al. 2021). Bonferroni over the tests gives joint confidence.
    """
    settings = replace(settings or Settings(), **options) if options else settings or Settings()
    method = resolve_method(
        method, epsilon, settings.k, {"form": settings.form, "sampler": settings.sampler}
    )
    settings = replace(
        settings,
        form=method.form,  # a built method brings its own
        sampler=method.sampler if method.draws_laplace else settings.sampler,
    )
    claimed = guarantee(method, settings.m)
    if claimed.claimed not in (DP, IDP):
        raise ParameterError(
            f"method={method.name!r} claims {claimed.claimed}, not ε-DP or "
            "ε-iDP; there is no ε to audit"
        )
    clock = time.perf_counter()
    dataset, noise_seed = audited_dataset(settings)
    method.check(dataset)
    base, chosen = choose_pairs(method, dataset, settings.pairs)
    streams = noise_seed.spawn(1 + len(chosen))
    started = time.perf_counter()
    on_d = releases(method, dataset, settings.runs, streams[0])
    per_call = (time.perf_counter() - started) / settings.runs
    tests = sum(comparable(base, aimed, view) for _, aimed in chosen for view in VIEWS)
    # Bonferroni: 2 Clopper–Pearson bounds per test, each at error (1 − confidence)/(2·tests)
    beta = (1 - settings.confidence) / (2 * tests)
    tolerance = 1e-9 * (settings.high - settings.low)
    results: list[PairResult] = []
    for (moved, aimed), stream in zip(chosen, streams[1:], strict=True):
        on_d2 = releases(method, moved.dataset, settings.runs, stream)
        results += bound_pair(base, aimed, on_d, on_d2, moved.label, beta, tolerance)
    return AuditResult(
        method.name,
        float(method.epsilon),
        settings,
        claimed,
        tuple(results),
        time.perf_counter() - clock,
        per_call,
    )


__all__ = ["AuditResult", "NotAuditable", "PairResult", "Settings", "audit"]
