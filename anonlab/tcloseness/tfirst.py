"""t-Closeness-first microaggregation (TCM §7, Algorithm 3).

The records are split by the rank of the confidential attribute into k' subsets, and every
cluster, grown MDAV-like around extreme records of the standardised quasi-identifiers, takes
one record from each subset (plus at most one extra record from a central subset). When k'
divides n, TCM Proposition 2 bounds the EMD of every such cluster by (n − k')/(2(n − 1)k'),
and Expression (3) picks the smallest k' ≥ k for which that bound is at most t.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from anonlab.microaggregation.kernels import centroid, sq_distances
from anonlab.microaggregation.mdav import standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.merge import merge_until_t_close
from anonlab.validation import ParameterError, check_choice, check_int, check_t

ROUNDINGS = ("floor", "ceil")
DEFAULT_ROUNDING = "floor"


def tfirst_cluster_size(n: int, k: int, t: float, rounding: str = DEFAULT_ROUNDING) -> int:
    """Cluster size k' of Algorithm 3: Expression (3), then the adjustment of Expression (4).

    Expression (3) (TCM §7): k' = max{k, ⌈n / (2(n − 1)t + 1)⌉}, the smallest size ≥ k for
    which the Proposition 2 bound (n − k')/(2(n − 1)k') is ≤ t. It is evaluated exactly,
    with t taken as the decimal it prints as (``repr(t)``), so t = 0.05 means 1/20 and a
    quotient that is an integer is not pushed up by binary rounding.

    Expression (4) (TCM §7) adds the remainder r = n mod k' spread over the q = ⌊n/k'⌋
    clusters: the text writes k' + ⌊r/q⌋ (``rounding="floor"``), Algorithm 3's pseudo-code
    k' + ⌈r/q⌉ (``rounding="ceil"``).

    The default is ``"floor"``, because it reproduces TCM Table 3 (n = 1,080) and the
    ceiling does not. The two differ wherever Expression (3) leaves a remainder r > 0. The
    floor leaves k' unchanged while r < q, but the ceiling always adds at least 1. In
    Table 3 this happens at two places.

    * t = 0.01 (every k ≤ 30): Expression (3) gives 48, with r = 24 and q = 22. The floor
      gives 48 + ⌊24/22⌋ = 49: 22 clusters (two of 50), min 49 and mean 49.09, printed
      "49/49". The ceiling gives 50, which leaves r = 30 > q = 21, and then 54: "54/54".
    * k = 25, t ≥ 0.05: r = 5 and q = 43. The floor keeps 25: 43 clusters (five of 26),
      "25/25" as printed. The ceiling gives 26: 41 clusters (14 of 27), min 26 and mean
      26.34.

    On the real MCD and HCD data the floor matches all 98 cells (min exactly, mean to the
    printed integer) and the ceiling 72.

    With the floor, one adjustment always leaves a remainder below the cluster count, which
    is what Algorithm 3 needs to place every record. Let a = ⌊r/q⌋ ≥ 1 and b = r − aq < q.
    Then n = q(k' + a) + b, and b < q ≤ k' (as q ≤ r < k'), so the new remainder b is below
    the unchanged cluster count q. The ceiling can leave r > q. The pseudo-code needs r ≤ q:
    each cluster takes at most one extra record, and a larger remainder would leave records
    that cannot be placed. So in that mode Expression (4) is applied again while r > q.

    Parameters
    ----------
    n : number of records.
    k : k-anonymity level, 1 ≤ k ≤ n.
    t : t-closeness level, 0 < t ≤ 1.
    rounding : ``"floor"`` (TCM Expression (4) as printed in the text) or ``"ceil"`` (as
        printed in Algorithm 3).

    Returns
    -------
    int
        The cluster size k' (k ≤ k' ≤ n); clusters get k' or k' + 1 records.
    """
    n = check_int(n, "n", 1)
    k = check_int(k, "k", 1, n)
    t = check_t(t)
    rounding = check_choice(rounding, "rounding", ROUNDINGS)
    # Expression (3), exactly: ⌈n / (2(n − 1)t + 1)⌉.
    t_exact = Fraction(repr(t))
    size = max(k, math.ceil(Fraction(n) / (2 * (n - 1) * t_exact + 1)))
    # Expression (4): k' + ⌊(n mod k')/⌊n/k'⌋⌋ (text) or with ⌈ ⌉ (Algorithm 3).
    while True:
        remainder, clusters = n % size, n // size
        step = remainder // clusters if rounding == "floor" else -(-remainder // clusters)
        size += step
        if rounding == "floor" or n % size <= n // size:
            return size


def subset_sizes(n: int, size: int) -> np.ndarray:
    """Sizes of the subsets S_1..S_k' (k' = ``size``) of Algorithm 3 (TCM §7, Figs. 3–4).

    Every subset has q = ⌊n/k'⌋ records, and the r = n mod k' remaining ones go to the
    central subset(s). For odd k', all of them go to S_{(k'+1)/2} (Fig. 3). For even k' they
    are split between the two middle subsets S_{k'/2} and S_{k'/2+1} (Fig. 4): S_{k'/2} gets
    ⌊r/2⌋ and S_{k'/2+1} gets ⌈r/2⌉. An odd remainder's last record goes to the upper one
    because of k' = 2. There S_{k'/2} is S_1, and Algorithm 3's test |S_i| > |S_1| can never
    take a second record from S_1, so a remainder left there could not be placed. S_{k'/2}
    gets a record only when r ≥ 2, which needs k' ≥ 4. Then S_1..S_{k'/2} hold exactly the
    ⌊n/2⌋ lowest ranks.
    """
    q, r = divmod(n, size)
    sizes = np.full(size, q, dtype=np.int64)
    if size % 2:
        sizes[size // 2] += r
    else:
        sizes[size // 2 - 1] += r // 2
        sizes[size // 2] += r - r // 2
    return sizes


def _lowest_record(candidates: np.ndarray, records: np.ndarray) -> int:
    """The position in ``candidates`` (positions) holding the lowest record index."""
    return int(candidates[np.argmin(records[candidates])])


def tclose_tfirst(qi: np.ndarray, confidential: np.ndarray, k: int, t: float,
                  rounding: str = DEFAULT_ROUNDING) -> np.ndarray:
    """Cluster label of every record by t-closeness-first microaggregation (TCM Algorithm 3).

    1. k' = :func:`tfirst_cluster_size` (TCM Expressions (3) and (4)).
    2. The records are sorted by the confidential attribute (ties by record index) and split
       into k' subsets S_1..S_k' of consecutive ranks, with sizes from :func:`subset_sizes`:
       ⌊n/k'⌋ each, and the n mod k' remaining records in the central subset(s).
    3. Clusters are formed in pairs on the standardised quasi-identifiers, as in MDAV. Let
       x_a be the average of the remaining records and x_0 the remaining record farthest
       from x_a. One cluster takes, for i = 1..k', the record of S_i closest to x_0. It also
       takes the next-closest record of S_i when |S_i| > |S_1| (both counted after this
       cluster's picks so far) and no extra record is in the cluster yet ("|C| = i" in
       Algorithm 3). Then x_1, the remaining record farthest from x_0, gets a cluster the
       same way. This repeats until no record remains.

    Ties go to the lowest record index. Every subset loses exactly one record per cluster,
    except that the first r clusters take a second record from a central subset. So there
    are ⌊n/k'⌋ clusters: the first n mod k' have k' + 1 records and the rest k'. Extra
    records come first from S_{k'/2} and then from S_{k'/2+1} when k' is even. If k' divides
    n, every cluster holds one record of each subset and its EMD is at most
    (n − k')/(2(n − 1)k') ≤ t (TCM Proposition 2).

    Each step is vectorised: one distance pass over the remaining records and a segmented
    minimum per subset. The remaining records are kept ordered by (subset, record index) and
    compacted as they are used up.

    Parameters
    ----------
    qi : ``(n, p)`` (or ``(n,)``) quasi-identifier values.
    confidential : ``(n,)`` confidential values; only their order is used.
    k : k-anonymity level, 1 ≤ k ≤ n.
    t : t-closeness level, 0 < t ≤ 1.
    rounding : Expression (4) rounding, see :func:`tfirst_cluster_size`.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` int64 labels 0..c−1, numbered in the order the clusters are formed.
    """
    values = np.asarray(qi)
    if len(values) == 0:
        raise ParameterError("qi must hold at least one record, got 0")
    points = standardise(values)
    conf = np.asarray(confidential)
    if conf.ndim != 1 or len(conf) != len(points):
        raise ParameterError(
            f"confidential must be one value per record ({len(points)}), got shape {conf.shape}")
    n = len(points)
    k = check_int(k, "k", 1, n)
    check_t(t)
    size = tfirst_cluster_size(n, k, t, rounding)

    # Subset of every record: ranks by the confidential value, ties by record index.
    rank_order = np.argsort(conf, kind="stable")
    sizes = subset_sizes(n, size)
    subset = np.empty(n, dtype=np.int64)
    subset[rank_order] = np.repeat(np.arange(size), sizes)
    # Remaining records ordered by (subset, record index); segment i holds S_i.
    order = np.lexsort((np.arange(n), subset))
    state = _Subsets(points[order], order, subset[order], size)

    labels = np.full(n, -1, dtype=np.int64)
    cluster = 0
    while state.count:
        far = state.farthest(state.distances(state.centroid()))
        from_seed = state.distances(state.points[far])
        labels[state.take_cluster(from_seed)] = cluster
        cluster += 1
        if state.count:
            far = state.farthest(from_seed)
            labels[state.take_cluster(state.distances(state.points[far]))] = cluster
            cluster += 1
        state.compact()
    return labels


class _Subsets:
    """The remaining records of S_1..S_k', ordered by (subset, record index), compacted as
    they are used up so every pass stays O(remaining)."""

    def __init__(self, points: np.ndarray, records: np.ndarray, subset: np.ndarray,
                 size: int) -> None:
        self.points = points
        self.records = records
        self.subset = subset
        self.size = size
        self.alive = np.ones(len(points), dtype=bool)
        self.count = len(points)
        self.remaining = np.bincount(subset, minlength=size)  # |S_i|
        self._bounds()

    def _bounds(self) -> None:
        self.starts = np.searchsorted(self.subset, np.arange(self.size))
        self.lengths = np.diff(np.append(self.starts, len(self.subset)))

    def centroid(self) -> np.ndarray:
        return centroid(self.points[self.alive])

    def distances(self, point: np.ndarray) -> np.ndarray:
        """Squared Euclidean distances to ``point`` (assigned positions included)."""
        return sq_distances(self.points, point)

    def farthest(self, distances: np.ndarray) -> int:
        """Position of the remaining record farthest away, ties by lowest record index."""
        d = np.where(self.alive, distances, -np.inf)
        return _lowest_record(np.flatnonzero(d == d.max()), self.records)

    def take_cluster(self, distances: np.ndarray) -> np.ndarray:
        """One cluster around the seed that ``distances`` are measured from: the closest
        remaining record of every S_i, plus the next-closest of the first S_i with
        |S_i| > |S_1| (TCM Algorithm 3). Returns the record indices."""
        d = np.where(self.alive, distances, np.inf)
        # Closest remaining record of every subset. No subset runs out before the last
        # cluster, since each loses one record per cluster and the central ones keep at
        # least |S_1|. Positions in a segment follow the record index, so the first one
        # reaching the segment's minimum is the lowest record.
        if not self.remaining.all():  # cannot happen when n mod k' ≤ ⌊n/k'⌋
            raise RuntimeError("a subset ran out of records before the others")
        minima = np.minimum.reduceat(d, self.starts)
        hits = np.flatnonzero(d == np.repeat(minima, self.lengths))
        picks = hits[np.searchsorted(hits, self.starts)]
        left = self.remaining - 1
        # "if |S_i| > |S_1| and |C| = i": only the first subset that qualifies gives a second
        # record, since after it |C| = i + 1 for every later i.
        extra = np.flatnonzero(left > left[0])
        if len(extra):
            i = int(extra[0])
            segment = d[self.starts[i]:self.starts[i] + self.lengths[i]].copy()
            segment[picks[i] - self.starts[i]] = np.inf
            picks = np.append(picks, self.starts[i] + int(np.argmin(segment)))
            left[i] -= 1
        self.remaining = left
        self.alive[picks] = False
        self.count -= len(picks)
        return self.records[picks]

    def compact(self) -> None:
        if self.count * 2 < len(self.points):
            keep = self.alive
            self.points = self.points[keep]
            self.records = self.records[keep]
            self.subset = self.subset[keep]
            self.alive = np.ones(self.count, dtype=bool)
            self._bounds()


def tclose_tfirst_merged(qi: np.ndarray, confidential: np.ndarray, k: int,
                         t: float, ground: str = "distinct") -> np.ndarray:
    """Algorithm 3 followed by Algorithm 1's merging loop (TCM §5), so every cluster is
    t-close even where Proposition 2 does not hold (k' not dividing n, tied confidential
    values); clusters that are already t-close are left as they are. ``ground`` is the
    merging loop's EMD ground distance (:class:`~anonlab.tcloseness.emd.OrderedEMD`)."""
    labels = tclose_tfirst(qi, confidential, k, t)
    return merge_until_t_close(standardise(qi), labels, OrderedEMD(confidential, ground), t)
