"""Disclosure risk of a released file's key variables, as statistical disclosure control
practitioners measure it: sdcMicro's individual and global risk, and ARX's prosecutor,
journalist and marketer risks.

Both count, for each released record, the released records that share its combination of
key variables (its equivalence class; quasi-identifiers): an intruder who knows a
person's key values and matches them EXACTLY against the release cannot tell apart the
records of one class. Numerical keys are matched as released: after microaggregation the
key combinations are the centroids' combinations, so a k-anonymous release has classes of
at least k records.

* sdcMicro's ``measure_risk`` (Templ, Kowarik & Meindl 2015, "Statistical disclosure
  control for micro-data using the R package sdcMicro", J. Stat. Softw. 67(4); Franconi &
  Polettini 2004, "Individual risk estimation in μ-Argus: a review", PSD 2004, LNCS 3050;
  Benedetti & Franconi 1998): record i of class k has sample frequency f_k and estimated
  population frequency F_k = Σ of the class's sampling weights; with p_k = f_k / F_k its
  individual risk under the negative binomial model is, as sdcMicro's ``indivRisk``
  (method ``approx``) computes it,

  - f_k = 1: p_k/(1 − p_k) · log(1/p_k),
  - f_k = 2: p_k/(1 − p_k) − (p_k/(1 − p_k))² · log(1/p_k),
  - f_k > 2: p_k / (f_k − (1 − p_k)),
  - f_k = F_k (the class is its whole population): 1/f_k.

  The global risk is Σ_i r_i, the expected number of re-identifications
  (``global_risk_ER``), also reported as a share of the n records (``global_risk``).
  Without weights (sdcMicro's ``w = NULL``, and every data set of anonlab) the sample is
  taken as the population, F_k = f_k, so r_i = 1/f_k and the global risk is the number
  of classes.
* ARX's attacker models (Prasser, Eicher, Spengler, Bild & Kuhn 2020, "Flexible data
  anonymization using ARX", Softw. Pract. Exper.; ARX's ``RiskModelSampleSummary``): the
  prosecutor knows the person is in the release, so a record's risk is 1/|class|; ARX
  reports the highest risk (1/smallest class), the records at risk (the share of
  records whose risk exceeds a threshold, 0.2 in ARX's interface) and the success rate
  (the average risk, classes / n). The journalist does not know whether the person is
  in the release and matches against a population table: risk 1/|population class|;
  without one, the release is its own population and the journalist's risks equal the
  prosecutor's. The marketer re-identifies as many records as possible: success rate
  Σ_k f_k/F_k / n, classes / n without a population table.

What these measures assume: an intruder who matches released key values exactly. For a
perturbative release (noise, synthetic records) every released combination may be unique
while no one can be matched to it, so a high value there says the file has rare
combinations, not that its records are re-identified; record linkage
(:mod:`anonlab.metrics.risk`) and the attacks (:mod:`anonlab.metrics.attacks`) measure
matching by distance. A low value bounds only the exact-matching intruder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.metrics.risk import KNOWN, known_columns
from anonlab.release import Release
from anonlab.validation import ParameterError

#: ``threshold`` of ARX's records at risk: a record is at risk when its re-identification
#: risk exceeds it (ARX's interface defaults to 0.2)
THRESHOLDS: tuple[float, ...] = (0.2, 0.05, 0.1, 0.33, 0.5)
#: ``measure`` of ARX's prosecutor and journalist risks
MEASURES: tuple[str, ...] = ("highest_risk", "records_at_risk", "success_rate")
#: ``scale`` of sdcMicro's global risk: a share of the records (``global_risk``) or the
#: expected number of re-identifications (``global_risk_ER``)
SCALES: tuple[str, ...] = ("share", "expected")


# --- equivalence classes -----------------------------------------------------------------


def key_classes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The equivalence classes of the rows of ``keys`` (n × keys, released values): each
    row's class and each class's size f_k, classes in lexicographic order of their
    values."""
    keys = np.asarray(keys)
    if keys.ndim != 2 or len(keys) == 0:
        raise ParameterError(f"keys: need a non-empty (records × keys) array, got {keys.shape}")
    _, inverse, sizes = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    return inverse.reshape(-1), sizes


def check_keys(data: pd.DataFrame, keys: Sequence[str], what: str = "keys") -> list[str]:
    """``keys`` as a list after checking each is a column of ``data`` (a
    :class:`~anonlab.validation.ParameterError` naming ``what`` otherwise)."""
    if isinstance(keys, str) or not isinstance(keys, Sequence) or not keys:
        raise ParameterError(f"{what}: give a non-empty list of key variables, got {keys!r}")
    missing = [k for k in keys if k not in data.columns]
    if missing:
        raise ParameterError(
            f"{what}: {missing[0]!r} is not a column of the data; its columns are "
            f"{[str(c) for c in data.columns]}"
        )
    if len(set(keys)) != len(keys):
        raise ParameterError(f"{what}: a key variable is listed twice in {list(keys)}")
    return list(keys)


def frame_classes(data: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`key_classes` of the ``keys`` columns of a DataFrame (numbers, text or
    categories); a missing value is a value of its own (sdcMicro instead lets it match
    every value, which makes classes larger and risks smaller)."""
    keys = check_keys(data, keys)
    if len(data) == 0:
        raise ParameterError("data: no records")
    grouped = data.groupby(keys, sort=True, dropna=False, observed=True)
    _, inverse = np.unique(grouped.ngroup().to_numpy(), return_inverse=True)
    return inverse.reshape(-1), np.bincount(inverse.reshape(-1))


# --- sdcMicro: individual and global risk ------------------------------------------------


def check_weights(weights: object, data: pd.DataFrame | None, n: int) -> np.ndarray:
    """Sampling weights as an array of ``n`` floats, from a column name of ``data`` or a
    sequence; each must be finite and ≥ 1 (a record stands for at least itself in the
    population, so F_k ≥ f_k), else a :class:`~anonlab.validation.ParameterError` naming
    ``weights``."""
    if isinstance(weights, str):
        if data is None or weights not in data.columns:
            columns = [] if data is None else [str(c) for c in data.columns]
            raise ParameterError(
                f"weights: {weights!r} is not a column of the data; its columns are {columns}"
            )
        weights = data[weights]
    try:
        values = np.asarray(weights, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ParameterError(f"weights: need numbers, got {weights!r}") from None
    if len(values) != n:
        raise ParameterError(f"weights: {len(values)} values for {n} records")
    bad = np.flatnonzero(~np.isfinite(values) | (values < 1.0))
    if len(bad):
        i = int(bad[0])
        raise ParameterError(
            f"weights: record {i} has weight {float(values[i])!r}; a sampling weight is the "
            "number of population units a record stands for, finite and >= 1 (weights <= 0 or "
            "below 1 would estimate fewer people in a class than the sample holds)"
        )
    return values


def individual_risks(fk: np.ndarray, Fk: np.ndarray | None = None) -> np.ndarray:  # noqa: N803
    """sdcMicro's individual risk of each class (``indivRisk``, method ``approx``;
    Franconi & Polettini 2004) from its sample frequency ``fk`` and estimated population
    frequency ``Fk`` (``None``: no weights, 1/f_k)."""
    fk = np.asarray(fk, dtype=float)
    if Fk is None:
        return 1.0 / fk
    Fk = np.asarray(Fk, dtype=float)  # noqa: N806
    pk = fk / Fk
    risk = np.zeros_like(fk)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = pk / (1.0 - pk)
        log_inverse = np.log(1.0 / pk)
        # Franconi & Polettini 2004, the approximations sdcMicro's indivRisk uses
        risk = np.where(fk == 1, odds * log_inverse, risk)
        risk = np.where(fk == 2, odds - odds**2 * log_inverse, risk)
        risk = np.where(fk > 2, pk / (fk - (1.0 - pk)), risk)
    return np.where(fk == Fk, 1.0 / fk, risk)  # a class that is its population: 1/f_k


@dataclass(frozen=True)
class MeasureRisk:
    """sdcMicro's ``measure_risk`` of a file: per record its individual ``risk``, its
    class's sample frequency ``fk`` and estimated population frequency ``Fk``."""

    risk: np.ndarray
    fk: np.ndarray
    Fk: np.ndarray  # noqa: N815 (sdcMicro's name)

    @property
    def global_risk_ER(self) -> float:  # noqa: N802 (sdcMicro's name)
        """Σ_i r_i: the expected number of re-identifications."""
        return float(self.risk.sum())

    @property
    def global_risk(self) -> float:
        """Σ_i r_i / n: the expected share of records re-identified."""
        return float(self.risk.mean())

    @property
    def global_risk_pct(self) -> float:
        """:attr:`global_risk` in percent."""
        return 100.0 * self.global_risk


def risk_of_classes(inverse: np.ndarray, sizes: np.ndarray, weights: np.ndarray | None):
    """:class:`MeasureRisk` of records in classes ``inverse`` of sizes ``sizes``."""
    fk = sizes.astype(float)
    Fk = None if weights is None else np.bincount(inverse, weights=weights)  # noqa: N806
    per_class = individual_risks(fk, Fk)
    population = fk if Fk is None else Fk
    return MeasureRisk(per_class[inverse], fk[inverse], population[inverse])


def measure_risk(
    data: pd.DataFrame, keys: Sequence[str], weights: str | Sequence[float] | None = None
) -> MeasureRisk:
    """sdcMicro's ``measure_risk`` of ``data`` on the key variables ``keys``: individual
    risks and global risk (see the module). ``weights``: sampling weights, a column of
    ``data`` or one number per record, each ≥ 1; ``None`` (the default) takes the
    sample as the population (F_k = f_k, r_i = 1/f_k), as sdcMicro does without ``w``.

    Raises
    ------
    ParameterError
        Naming ``keys`` for a key variable not in the data, ``weights`` for a weight
        below 1, missing or not finite.
    """
    inverse, sizes = frame_classes(data, keys)
    w = None if weights is None else check_weights(weights, data, len(data))
    return risk_of_classes(inverse, sizes, w)


# --- ARX: prosecutor, journalist and marketer --------------------------------------------


@dataclass(frozen=True)
class AttackerRisk:
    """ARX's summary of one attacker model (``RiskModelSampleSummary.RiskSummary``):
    the share of records whose risk exceeds ``threshold`` (``records_at_risk``), the
    highest and lowest risk of a record, and the ``success_rate``, the share of records
    re-identified on average (the average risk)."""

    threshold: float
    records_at_risk: float
    highest_risk: float
    lowest_risk: float
    success_rate: float


@dataclass(frozen=True)
class ArxRisks:
    """ARX's three attacker models of one file."""

    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: float


def check_threshold(threshold: object) -> float:
    """``threshold`` as a float in (0, 1], else a ParameterError naming it."""
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ParameterError(f"threshold: need a number in (0, 1], got {threshold!r}")
    if not 0.0 < float(threshold) <= 1.0:
        raise ParameterError(
            f"threshold: a risk threshold is a probability in (0, 1], got {threshold!r}"
        )
    return float(threshold)


def prosecutor_risk_of(sizes: np.ndarray, threshold: float = THRESHOLDS[0]) -> AttackerRisk:
    """ARX's prosecutor risk of classes of ``sizes`` (a record's risk 1/|class|):
    records at risk (1/|class| > ``threshold``), highest and lowest risk, success rate
    (classes / records)."""
    sizes = np.asarray(sizes, dtype=float)
    n = sizes.sum()
    # ARX RiskModelSampleSummary.getProsecutorRisk
    at_risk = sizes[1.0 / sizes > threshold].sum() / n
    return AttackerRisk(
        threshold, float(at_risk), 1.0 / sizes.min(), 1.0 / sizes.max(), len(sizes) / float(n)
    )


def journalist_risk_of(
    sizes: np.ndarray, population: np.ndarray, threshold: float = THRESHOLDS[0]
) -> AttackerRisk:
    """ARX's journalist risk of sample classes of ``sizes`` whose classes in the
    population table hold ``population`` records each (a record's risk 1/|population
    class|): success rate max(classes / Σ population sizes, Σ_k (f_k / F_k) / n)."""
    sizes, population = np.asarray(sizes, dtype=float), np.asarray(population, dtype=float)
    n = sizes.sum()
    # ARX RiskModelSampleSummary.getJournalistRisk
    at_risk = sizes[1.0 / population > threshold].sum() / n
    success = max(len(sizes) / population.sum(), float((sizes / population).sum() / n))
    return AttackerRisk(
        threshold, float(at_risk), 1.0 / population.min(), 1.0 / population.max(), success
    )


def marketer_risk_of(sizes: np.ndarray, population: np.ndarray | None = None) -> float:
    """ARX's marketer success rate: Σ_k (f_k / F_k) / n; classes / n without a
    population table (F_k = f_k)."""
    sizes = np.asarray(sizes, dtype=float)
    population = sizes if population is None else np.asarray(population, dtype=float)
    return float((sizes / population).sum() / sizes.sum())  # ARX getMarketerRisk


def arx_risks(
    data: pd.DataFrame,
    keys: Sequence[str],
    threshold: float = THRESHOLDS[0],
    population: pd.DataFrame | None = None,
) -> ArxRisks:
    """ARX's prosecutor, journalist and marketer risks of ``data`` on ``keys`` (see the
    module). ``population``: a population table holding at least the sample's records,
    with the same key columns; without one the sample is its own population and the
    journalist's risks are the prosecutor's.

    Raises
    ------
    ParameterError
        Naming ``keys`` for a key variable not in the data, ``threshold`` outside
        (0, 1], ``population`` for a key it lacks or a sample class it holds fewer
        records of than the sample.
    """
    threshold = check_threshold(threshold)
    inverse, sizes = frame_classes(data, keys)
    keys = list(keys)
    if population is None:
        population_sizes = sizes
    else:
        check_keys(population, keys, "population")
        counts = population.groupby(keys, dropna=False, observed=True).size().rename("F")
        first = pd.Series(np.arange(len(data))).groupby(inverse).first().to_numpy()
        classes = data[keys].iloc[first].reset_index(drop=True)
        joined = classes.merge(counts.reset_index(), on=keys, how="left")
        population_sizes = joined["F"].to_numpy(dtype=float)
        short = np.flatnonzero(~(population_sizes >= sizes))  # also a class it lacks (NaN)
        if len(short):
            k = int(short[0])
            held = np.nan_to_num(population_sizes[k])
            raise ParameterError(
                f"population: the sample's class {classes.iloc[k].to_dict()} has {sizes[k]} "
                f"records but the population table {held:g}; a population table holds every "
                "sample record"
            )
    return ArxRisks(
        prosecutor_risk_of(sizes, threshold),
        journalist_risk_of(sizes, population_sizes, threshold),
        marketer_risk_of(sizes, population_sizes),
    )


# --- the metrics -------------------------------------------------------------------------


def released_classes(view: Dataset, release: Release, known: str) -> np.ndarray:
    """The class sizes f_k of the released records on the key variables (``known``:
    the protected quasi-identifiers, or every protected attribute without roles or with
    ``known: protected``)."""
    columns = list(known_columns(view, known))
    return key_classes(release.values[:, columns])


def individual_risk(view: Dataset, release: Release, known: str = KNOWN[0]) -> float:
    """The highest individual risk of a released record (sdcMicro's ``measure_risk``,
    without weights: 1 / the smallest class size)."""
    inverse, sizes = released_classes(view, release, known)
    return float(risk_of_classes(inverse, sizes, None).risk.max())


def global_risk(
    view: Dataset, release: Release, known: str = KNOWN[0], scale: str = SCALES[0]
) -> float:
    """sdcMicro's global risk of the release without weights: Σ_i 1/f_k, the expected
    re-identifications (``scale: expected``), or that over the n records (``share``)."""
    inverse, sizes = released_classes(view, release, known)
    measured = risk_of_classes(inverse, sizes, None)
    return measured.global_risk_ER if scale == "expected" else measured.global_risk


def prosecutor_risk(
    view: Dataset,
    release: Release,
    known: str = KNOWN[0],
    measure: str = MEASURES[0],
    threshold: float = THRESHOLDS[0],
) -> float:
    """ARX's prosecutor risk of the release: ``measure`` = ``highest_risk``,
    ``records_at_risk`` (risk above ``threshold``) or ``success_rate``."""
    _, sizes = released_classes(view, release, known)
    return float(getattr(prosecutor_risk_of(sizes, threshold), measure))


def journalist_risk(
    view: Dataset,
    release: Release,
    known: str = KNOWN[0],
    measure: str = MEASURES[0],
    threshold: float = THRESHOLDS[0],
) -> float:
    """ARX's journalist risk of the release; no data set carries a population table,
    so the release is its own population and this equals :func:`prosecutor_risk`."""
    _, sizes = released_classes(view, release, known)
    return float(getattr(journalist_risk_of(sizes, sizes, threshold), measure))


def marketer_risk(view: Dataset, release: Release, known: str = KNOWN[0]) -> float:
    """ARX's marketer risk of the release: classes / records (no population table)."""
    _, sizes = released_classes(view, release, known)
    return marketer_risk_of(sizes)


_KEYS = (
    "; key variables: the quasi-identifiers if declared, else every protected attribute "
    "(option known: roles | protected), matched exactly as released"
)
_COST = Cost("n*log(n)*m", seconds=2e-7)  # one lexicographic sort of the released keys

INDIVIDUAL_RISK = ReleaseMetric(
    "individual_risk",
    individual_risk,
    "sdcMicro's individual risk (Franconi & Polettini 2004), the highest over the released "
    "records; without sampling weights the sample is its own population: 1 / the smallest "
    "class of records sharing their key values" + _KEYS,
    option_choices={"known": KNOWN},
    label="Highest individual risk (sdcMicro)",
    cost=_COST,
)
GLOBAL_RISK = ReleaseMetric(
    "global_risk",
    global_risk,
    "sdcMicro's global risk: the sum of the individual risks, i.e. the expected "
    "re-identifications (option scale: expected), over the records (scale: share); "
    "without weights, classes / n" + _KEYS,
    option_choices={"known": KNOWN, "scale": SCALES},
    label="Global risk (sdcMicro)",
    cost=_COST,
)
PROSECUTOR_RISK = ReleaseMetric(
    "prosecutor_risk",
    prosecutor_risk,
    "ARX's prosecutor risk, a record's risk 1/|class|: the highest risk (option measure: "
    "highest_risk), the share of records whose risk exceeds the threshold (records_at_risk; "
    "option threshold, 0.2 as ARX) or the average risk (success_rate, classes / n)" + _KEYS,
    option_choices={"known": KNOWN, "measure": MEASURES, "threshold": THRESHOLDS},
    label="Prosecutor risk (ARX)",
    cost=_COST,
)
JOURNALIST_RISK = ReleaseMetric(
    "journalist_risk",
    journalist_risk,
    "ARX's journalist risk (options as prosecutor_risk); without a population table the "
    "release is its own population and it equals the prosecutor risk" + _KEYS,
    option_choices={"known": KNOWN, "measure": MEASURES, "threshold": THRESHOLDS},
    label="Journalist risk (ARX)",
    cost=_COST,
)
MARKETER_RISK = ReleaseMetric(
    "marketer_risk",
    marketer_risk,
    "ARX's marketer risk: the share of records re-identified by matching every record, "
    "classes / n without a population table" + _KEYS,
    option_choices={"known": KNOWN},
    label="Marketer risk (ARX)",
    cost=_COST,
)
