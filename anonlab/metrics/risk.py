"""Disclosure risk of record-aligned numerical releases, in the statistical disclosure
control tradition: record linkage and interval disclosure.

An intruder who knows original records tries to find their released versions
(re-identification). Record ``i`` of the release must be the protected version of record
``i``, so every metric here requires ``record_correspondence`` and refuses synthetic data.

* ``record_linkage``: distance-based record linkage, DBRL (Pagliuca & Seri 1999, "Some
  results of individual ranking method on the system of enterprise accounts annual
  survey", Esprit SDC project deliverable MI-3/D2; Domingo-Ferrer & Torra 2001, "A
  quantitative comparison of disclosure control methods for microdata", in Confidentiality,
  Disclosure and Data Access, §4; sdcMicro's ``dRisk``/``dRiskRMD`` give related
  distance-based risks).
* ``rank_linkage``: the same linkage on ranks instead of values (rank-based record
  linkage, Nin, Herranz & Torra 2008, "On the disclosure risk of multivariate
  microaggregation", Data & Knowledge Engineering 67(3)).
* ``interval_disclosure``: rank-based interval disclosure (Domingo-Ferrer, Mateo-Sanz &
  Torra 2001, "Comparing SDC methods for microdata on the basis of information loss and
  disclosure risk", ETK-NTTS; Domingo-Ferrer & Torra 2001 §4), or its standard-deviation
  variant.

Ties. A record whose nearest released records are ``t`` records at exactly the same
distance counts 1/t if its own released record is among them, 0 otherwise: the
probability that an intruder choosing at random among the nearest records links it
correctly. Microaggregation releases each cluster's k records as one point, so a
k-anonymous release has t ≥ k and a linkage risk ≤ 1/k.

Exactness and memory. Distances are exact: squared Euclidean distances computed column by
column in a fixed order, so identical released records always tie. The n × n distances
are never held at once: originals are taken in chunks (:data:`CHUNK_BYTES` per temporary
array), each chunk's distances to the DISTINCT released records come from one matrix
product (BLAS), and only the pairs within a rounding bound of a record's minimum are
recomputed exactly. With up to :data:`TREE_MAX_M` attributes an exact k-d tree gives the
candidates instead (no chunk at all). Identical released records are counted once with
their multiplicity.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Attribute, Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.release import Release

#: bytes of one chunk's temporary (chunk × distinct released records) float array; a
#: chunk holds about three of them, so the peak stays near 100 MB whatever n is
CHUNK_BYTES = 32 * 2**20


def exact_sq_distances(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Σ_j (left[:, j] − right[:, j])² of paired rows, summed column by column in a fixed
    order: the same two rows always give the same bits (exact ties)."""
    out = np.zeros(len(left))
    for j in range(left.shape[1]):
        diff = left[:, j] - right[:, j]
        out += diff * diff
    return out


#: up to this many attributes a k-d tree (scipy's cKDTree, exact) finds each record's
#: nearest distance in about n·log n; above it, k-d trees lose to the chunked product
TREE_MAX_M = 8


def linkage_probabilities(
    original: np.ndarray, released: np.ndarray, chunk_bytes: int = CHUNK_BYTES, search: str = "auto"
) -> np.ndarray:
    """For each original record i, 1/t if its own released record ``released[i]`` is one
    of the t released records nearest to ``original[i]`` (squared Euclidean distance,
    :func:`exact_sq_distances`), else 0.

    Each chunk of originals is compared with the distinct released records by one matrix
    product, ‖x‖² + ‖u‖² − 2·x·u (as [x, ‖x‖², 1] · [−2u, 1, ‖u‖²]); every pair within a
    bound on that product's rounding error of a record's smallest value is a candidate,
    recomputed exactly; the exact
    minimum and its ties are found among the candidates. The bound, 16·(m + 3)·ε·(‖x‖² +
    max ‖u‖²), exceeds the rounding error of the product (a multiple of (m + 3)·ε·(‖x‖ +
    ‖u‖)², Higham's γ bound), so no exact nearest record is ever missed.

    With ``search="tree"`` (``"auto"``: when m ≤ :data:`TREE_MAX_M`) the candidates are
    instead the released records within the exact k-d tree's nearest distance, widened by
    a relative 10⁻¹⁰ (far above its rounding), and are recomputed exactly the same way;
    ``"product"`` forces the chunked product. Both give the same probabilities.
    """
    original = np.ascontiguousarray(original, dtype=float)
    released = np.ascontiguousarray(released, dtype=float)
    n, m = original.shape
    if m == 0 or n == 0:
        return np.ones(n)
    distinct, inverse, multiplicity = np.unique(
        released, axis=0, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    own = exact_sq_distances(original, distinct[inverse])
    if search == "tree" or (search == "auto" and m <= TREE_MAX_M):
        from scipy.spatial import cKDTree

        tree = cKDTree(distinct)
        nearest_distance, _ = tree.query(original, k=1)
        radius = nearest_distance * (1.0 + 1e-10) + 1e-300
        found = tree.query_ball_point(original, radius, return_sorted=False)
        sizes = np.fromiter(map(len, found), dtype=np.int64, count=n)
        ii = np.repeat(np.arange(n), sizes)
        jj = np.fromiter((j for c in found for j in c), dtype=np.int64, count=int(sizes.sum()))
        return _tied(original[ii], distinct[jj], ii, jj, multiplicity, own)
    u_norms = np.einsum("ij,ij->i", distinct, distinct)
    x_norms = np.einsum("ij,ij->i", original, original)
    # one product gives ‖x‖² + ‖u‖² − 2·x·u: [x, ‖x‖², 1] · [−2u, 1, ‖u‖²]
    left = np.column_stack([original, x_norms, np.ones(n)])
    right = np.column_stack([-2.0 * distinct, np.ones(len(distinct)), u_norms]).T.copy()
    tolerance = 16.0 * (m + 3) * np.finfo(float).eps * (x_norms + u_norms.max())
    chunk = max(1, int(chunk_bytes // (8 * len(distinct))))
    out = np.empty(n)
    for start in range(0, n, chunk):
        rows = slice(start, min(n, start + chunk))
        approx = left[rows] @ right
        bound = approx.min(axis=1)
        bound += 2.0 * tolerance[rows]
        # flatnonzero: an order of magnitude faster than a 2-D nonzero on sparse masks
        ii, jj = np.divmod(np.flatnonzero(approx <= bound[:, None]), len(distinct))
        del approx
        out[rows] = _tied(original[ii + start], distinct[jj], ii, jj, multiplicity, own[rows])
    return out


def _tied(
    left: np.ndarray,
    right: np.ndarray,
    ii: np.ndarray,
    jj: np.ndarray,
    multiplicity: np.ndarray,
    own: np.ndarray,
) -> np.ndarray:
    """From candidate pairs (record ``ii``, distinct released record ``jj``; sorted by
    ``ii``, at least one per record, the exact nearest ones among them): 1/t if the
    record's own squared distance ``own`` is the exact minimum, shared with released
    records of total multiplicity t, else 0."""
    exact = exact_sq_distances(left, right)
    starts = np.flatnonzero(np.r_[True, ii[1:] != ii[:-1]])
    if len(starts) != len(own):
        raise AssertionError("a record has no candidate nearest released record")
    ii = ii - ii[0]
    nearest = np.minimum.reduceat(exact, starts)
    tied = exact == nearest[ii]
    t = np.bincount(ii[tied], weights=multiplicity[jj[tied]], minlength=len(nearest))
    return np.where(own == nearest, 1.0 / t, 0.0)


#: ``known``: which attributes the intruder knows and links on. ``roles`` (default): the
#: protected quasi-identifiers when the data set declares some (dataset.roles, as TCM's
#: intruder, who does not know the confidential attribute), else every protected
#: attribute; ``protected``: every protected attribute (the SDC worst case of
#: Domingo-Ferrer & Torra 2001, where the intruder knows all masked attributes).
KNOWN: tuple[str, ...] = ("roles", "protected")


def known_columns(view: Dataset, known: str = KNOWN[0]) -> tuple[int, ...]:
    """Positions, among the protected attributes, of those the intruder links on."""
    everything = tuple(range(len(view.protected)))
    if known == "protected":
        return everything
    qis = tuple(j for j, a in enumerate(view.protected_attributes) if a.role == "quasi_identifier")
    return qis or everything


def standardised(
    view: Dataset, columns: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The original's mean and standard deviation (1 for a constant column) of the
    protected attributes at ``columns``, and its standardised values; computed once per
    view."""

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        values = view.protected_values[:, columns]
        mean = values.mean(axis=0)
        sd = values.std(axis=0, ddof=1) if view.n > 1 else np.zeros(values.shape[1])
        sd = np.where(sd > 0, sd, 1.0)
        return mean, sd, (values - mean) / sd

    return view.computed_once(("metric", "record_linkage", "standardised", columns), compute)


def record_linkage(view: Dataset, release: Release, known: str = KNOWN[0]) -> float:
    """Distance-based record linkage (DBRL; Pagliuca & Seri 1999; Domingo-Ferrer & Torra
    2001): the share of original records whose nearest released record is their own,
    with Euclidean distance on the attributes the intruder knows (``known``,
    :data:`KNOWN`) standardised by the ORIGINAL's mean and standard deviation (both files
    the same way; a constant column is only centred), and a tie among t nearest records
    counting 1/t (:func:`linkage_probabilities`). In [0, 1]; 1 for the identity release
    of distinct records."""
    columns = known_columns(view, known)
    mean, sd, original = standardised(view, columns)
    released = (release.values[:, columns] - mean) / sd
    return float(linkage_probabilities(original, released).mean())


def ranks(values: np.ndarray) -> np.ndarray:
    """Twice the average rank (1-based) of each value in its column: whole numbers, so
    rank distances are exact; tied values share their mean rank."""
    from scipy.stats import rankdata

    return 2.0 * rankdata(values, method="average", axis=0) if len(values) else values


def rank_linkage(view: Dataset, release: Release, known: str = KNOWN[0]) -> float:
    """Rank-based record linkage (Domingo-Ferrer & Torra 2001; Nin, Herranz & Torra
    2008): each known attribute's values (``known``, :data:`KNOWN`) replaced by their
    ranks in their own file (original or release; tied values share their average rank),
    divided by n, then DBRL on the ranks: the share of original records whose nearest
    released record in rank space is their own, ties at the minimum counting 1/t.
    Unit-free and insensitive to outliers; in [0, 1]."""
    columns = known_columns(view, known)
    original = view.computed_once(
        ("metric", "rank_linkage", "ranks", columns),
        lambda: ranks(view.protected_values[:, columns]),
    )
    # ranks / n: the common factor 2 / n changes no nearest record, so it is left out
    return float(linkage_probabilities(original, ranks(release.values[:, columns])).mean())


#: ``percent`` of interval disclosure: the source's average over p = 1, 2, ..., 10 %
#: ("1-10", the default), or one p
PERCENTS: tuple[str | int, ...] = ("1-10", 1, 2, 5, 10, 20)
#: ``interval``: rank-based (the source's first variant, the default) or
#: standard-deviation-based width
INTERVALS: tuple[str, ...] = ("rank", "sd")


def _percents(percent: str | int) -> list[int]:
    return list(range(1, 11)) if percent == "1-10" else [int(percent)]


def rank_interval_hits(original: np.ndarray, released: np.ndarray, p: float) -> np.ndarray:
    """Per attribute, the share of records whose original value lies in the rank interval
    around their released value: the released column is sorted, the released value's
    rank is the centre (its mean position among tied values), and the interval runs from
    the released value whose rank is the lowest to the one whose rank is the highest
    that differ from the centre by less than p/2 % of n (so ranks within the interval
    differ by less than p % of n); it always contains the released value itself. Bounds
    included."""
    n, m = original.shape
    half = p * n / 200.0
    hits = np.empty(m)
    for j in range(m):
        ordered = np.sort(released[:, j])
        value = released[:, j]
        centre = 0.5 * (
            np.searchsorted(ordered, value, "left") + np.searchsorted(ordered, value, "right") - 1
        )
        low = np.clip(np.floor(centre - half).astype(np.int64) + 1, 0, n - 1)
        high = np.clip(np.ceil(centre + half).astype(np.int64) - 1, 0, n - 1)
        lower = np.minimum(ordered[low], value)
        upper = np.maximum(ordered[high], value)
        hits[j] = np.mean((original[:, j] >= lower) & (original[:, j] <= upper))
    return hits


def sd_interval_hits(original: np.ndarray, released: np.ndarray, p: float) -> np.ndarray:
    """Per attribute, the share of records whose original value lies within ±(p/2) % of
    the attribute's ORIGINAL standard deviation of their released value (an interval of
    width p % of the standard deviation, centred on the released value; bounds
    included)."""
    sd = original.std(axis=0, ddof=1) if len(original) > 1 else np.zeros(original.shape[1])
    return np.mean(np.abs(original - released) <= p / 200.0 * sd, axis=0)


def interval_disclosure(
    original: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    percent: str | int = "1-10",
    interval: str = "rank",
) -> np.ndarray:
    """Interval disclosure per attribute (Domingo-Ferrer, Mateo-Sanz & Torra 2001;
    Domingo-Ferrer & Torra 2001): the proportion of original values that fall into an
    interval centred on their released value, averaged over p = 1, ..., 10 % as the source
    does (``percent="1-10"``) or for one p. ``interval="rank"`` (the source's rank-based
    intervals, default): ranks within the interval differ by less than p % of the records
    (:func:`rank_interval_hits`); ``"sd"``: the interval's width is p % of the
    attribute's standard deviation (:func:`sd_interval_hits`). The metric, the mean over
    attributes, is the share of (record, attribute) pairs disclosed, as the source counts
    values, not records; in [0, 1], 1 for the identity release.

    sdcMicro's ``dRisk`` differs: it counts records with at most one attribute outside
    ±k·sd of the released value's column (k = 0.05) and divides by n."""
    hits = rank_interval_hits if interval == "rank" else sd_interval_hits
    return np.mean([hits(original, released, p) for p in _percents(percent)], axis=0)


RECORD_LINKAGE = ReleaseMetric(
    "record_linkage",
    record_linkage,
    "distance-based record linkage (DBRL; Pagliuca & Seri 1999, Domingo-Ferrer & Torra "
    "2001): share of original records whose nearest released record (Euclidean distance, "
    "attributes standardised by the original's sd) is their own, t tied nearest records "
    "counting 1/t; linking on the quasi-identifiers if declared (option known: roles | "
    "protected)",
    option_choices={"known": KNOWN},
    requires=("record_correspondence", "numerical"),
    label="Record linkage risk (DBRL)",
    cost=Cost("n*log(n)*m", seconds=2e-7),  # a k-d tree's nearest records
)
RANK_LINKAGE = ReleaseMetric(
    "rank_linkage",
    rank_linkage,
    "rank-based record linkage (Domingo-Ferrer & Torra 2001; Nin, Herranz & Torra 2008): "
    "DBRL on each file's average ranks / n, t tied nearest records counting 1/t (option "
    "known: roles | protected)",
    option_choices={"known": KNOWN},
    requires=("record_correspondence", "numerical"),
    label="Rank-based record linkage risk",
    cost=Cost("n*log(n)*m", seconds=2e-7),  # ranks, then a k-d tree's nearest records
)


def interval_disclosure_of_release(
    view: Dataset, release: Release, percent: str | int = PERCENTS[0], interval: str = INTERVALS[0]
) -> float:
    """:func:`interval_disclosure` of the protected attributes, averaged over them: the
    share of (record, attribute) values disclosed. A release-level metric, not a
    per-attribute one: as a risk it is 1, not 0, for an unchanged attribute."""
    return float(
        np.mean(
            interval_disclosure(
                view.protected_values, release.values, view.protected_attributes, percent, interval
            )
        )
    )


INTERVAL_DISCLOSURE = ReleaseMetric(
    "interval_disclosure",
    interval_disclosure_of_release,
    "interval disclosure (Domingo-Ferrer, Mateo-Sanz & Torra 2001): share of original "
    "values within the rank interval (ranks within p% of n) around their released value, "
    "averaged over p = 1..10% (options percent, interval: rank | sd)",
    option_choices={"percent": PERCENTS, "interval": INTERVALS},
    requires=("record_correspondence", "numerical"),
    label="Interval disclosure risk",
    cost=Cost("n*log(n)*m", seconds=1e-7),  # ranks, ten intervals each
)
