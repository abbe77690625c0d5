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
from numba import njit

from anonlab.microaggregation.kernels import alive_centroid, select
from anonlab.microaggregation.mdav import standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.merge import LANES, merge_until_t_close, sq_distances_by_column
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


#: how many of the records farthest from a reference centroid are kept, sorted
_FAR_LIST = 256
#: relative slack of the bounds that skip records (rounding contributes below 1e-14)
_SLACK = 1e-10
#: distances scanned per block: a block whose minimum (maximum) cannot win is skipped
_SCAN = 16


@njit(cache=True)
def _distance(cols: np.ndarray, i: int, point: np.ndarray) -> float:
    """Squared distance of record ``i`` (column of ``cols``) to ``point``, the arithmetic of
    :func:`~anonlab.tcloseness.merge.sq_distances_by_column`."""
    d = cols[0, i] - point[0]
    total = d * d
    for j in range(1, cols.shape[0]):
        d = cols[j, i] - point[j]
        total += d * d
    return total


@njit(cache=True)
def _lower(a: float, b: float) -> float:
    return a if a < b else b


@njit(cache=True)
def _closest(distances: np.ndarray, start: int, stop: int) -> int:
    """First position of the smallest of ``distances[start:stop]``. Blocks of ``_SCAN``
    whose minimum is not below the best so far are skipped after a branch-free minimum."""
    first, low = -1, np.inf
    i = start
    while i + _SCAN <= stop:
        m = distances[i]
        for j in range(i + 1, i + _SCAN):
            m = _lower(m, distances[j])
        if m < low:
            for j in range(i, i + _SCAN):
                if distances[j] < low:
                    first, low = j, distances[j]
        i += _SCAN
    for j in range(i, stop):
        if distances[j] < low:
            first, low = j, distances[j]
    return first


@njit(cache=True)
def _two_closest(distances: np.ndarray, start: int, stop: int) -> tuple[int, int]:
    """First positions of the smallest and of the next smallest of
    ``distances[start:stop]``."""
    first, second = -1, -1
    low, next_low = np.inf, np.inf
    for i in range(start, stop):
        value = distances[i]
        if value < next_low:
            if value < low:
                second, next_low = first, low
                first, low = i, value
            else:
                second, next_low = i, value
    return first, second


@njit(cache=True)
def _farthest(distances: np.ndarray, size: int, records: np.ndarray) -> int:
    """Position of the largest finite one of the first ``size`` distances (∞ marks a used
    record), ties by lowest record index. Blocks of ``_SCAN`` whose maximum is below the
    best so far are skipped after a branch-free maximum."""
    best, largest, lowest = -1, -np.inf, len(records)
    i = 0
    while i < size:
        stop = min(i + _SCAN, size)
        m = -np.inf
        for j in range(i, stop):
            value = distances[j]
            value = value if value < np.inf else -np.inf
            m = m if m > value else value
        if m >= largest:
            for j in range(i, stop):
                value = distances[j]
                if value >= largest and value < np.inf and (value > largest or records[j] < lowest):
                    best, largest, lowest = j, value, records[j]
        i = stop
    return best


@njit(cache=True)
def _upper(reference: float, shift: float) -> float:
    """Upper bound of the computed squared distance of a record to a centroid at computed
    Euclidean distance ``shift`` from the reference centroid, given its computed squared
    distance ``reference`` to that one: (√reference + shift)², with slack for the rounding
    of all three."""
    grow = 1.0 + _SLACK
    return (np.sqrt(reference * grow) + shift * grow) ** 2 * grow


@njit(cache=True)
def _sift(positions: np.ndarray, values: np.ndarray, root: int, end: int) -> None:
    """Restore the min-heap (by ``values``) below ``root`` in ``positions[:end]``."""
    while 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end and values[positions[child + 1]] < values[positions[child]]:
            child += 1
        if values[positions[child]] < values[positions[root]]:
            positions[root], positions[child] = positions[child], positions[root]
            root = child
        else:
            return


@njit(cache=True)
def _far_list(
    distances: np.ndarray, size: int, length: int, positions: np.ndarray, values: np.ndarray
) -> tuple[int, float]:
    """The records with the ``length`` largest finite ``distances``, and all ties of the
    smallest of them: their positions and distances into ``positions`` and ``values``, by
    decreasing distance (heap sort). Returns their number and the smallest distance kept
    (−∞ when every remaining record was kept)."""
    count = 0
    for i in range(size):
        if distances[i] < np.inf:
            values[count] = distances[i]
            count += 1
    floor = -np.inf
    if count > length:
        floor = select(values[:count], count - length)
    kept = 0
    for i in range(size):
        if floor <= distances[i] < np.inf:
            positions[kept] = i
            kept += 1
    for root in range(kept // 2 - 1, -1, -1):
        _sift(positions, distances, root, kept)
    for end in range(kept - 1, 0, -1):  # the smallest to the end: decreasing order
        positions[0], positions[end] = positions[end], positions[0]
        _sift(positions, distances, 0, end)
    for c in range(kept):
        values[c] = distances[positions[c]]
    return kept, floor


@njit(cache=True)
def _take(
    distances: np.ndarray, starts: np.ndarray, remaining: np.ndarray, taken: np.ndarray
) -> int:
    """One cluster around the seed that ``distances`` are measured from (∞ for used
    records): the closest remaining record of every subset (segment
    ``starts[s]:starts[s+1]``, where positions follow the record index, so the first
    position reaching the minimum is the lowest record), and the next-closest of the first
    subset with |S_s| > |S_1| (TCM Algorithm 3). Their positions go to ``taken`` and
    ``remaining`` is updated. Returns their number."""
    size = len(remaining)
    for s in range(size):
        if remaining[s] == 0:  # cannot happen when n mod k' ≤ ⌊n/k'⌋
            raise RuntimeError("a subset ran out of records before the others")
    extra = -1
    for s in range(size):
        if remaining[s] > remaining[0]:
            extra = s
            break
    number = 0
    for s in range(size):
        if s == extra:
            taken[number], taken[number + 1] = _two_closest(distances, starts[s], starts[s + 1])
            number += 2
            remaining[s] -= 2
        else:
            taken[number] = _closest(distances, starts[s], starts[s + 1])
            number += 1
            remaining[s] -= 1
    return number


@njit(cache=True)
def _tfirst_kernel(
    cols: np.ndarray, records: np.ndarray, remaining: np.ndarray, far_list: int
) -> np.ndarray:
    """Algorithm 3's clusters (see :func:`tclose_tfirst`). ``cols`` holds the standardised
    quasi-identifiers by column (padded with zero columns), the records ordered by (subset,
    record index); ``records`` their indices; ``remaining`` the size of every subset.

    Used records stay in place, with an infinite distance penalty, until 1/32 of the
    positions are used; then the remaining ones move to the front in the same order.

    The record farthest from the centroid is looked for among the ``far_list`` records that
    were farthest from an earlier (reference) centroid (:func:`_far_list`). A record at squared
    distance r from that one is at most :func:`_upper` (r, shift) from the new one, so the
    walk down the list stops as soon as that bound is below the best distance found. When
    it would pass the end of the list, a full pass answers and the list is made again."""
    n, size = len(records), len(remaining)
    width = cols.shape[0]
    point = np.empty(width)
    labels = np.full(n, -1, dtype=np.int64)
    alive = np.ones(n, dtype=np.bool_)
    penalty = np.zeros(n)
    starts = np.zeros(size + 1, dtype=np.int64)
    distances = np.empty(n)
    taken = np.empty(size + 1, dtype=np.int64)
    moved = np.empty(n, dtype=np.int64)
    far_positions = np.empty(n, dtype=np.int64)
    far_values = np.empty(n)
    reference = np.zeros(cols.shape[0])
    kept, floor = 0, np.inf  # no list yet
    slots, count, cluster = n, n, 0
    for s in range(size):
        starts[s + 1] = starts[s] + remaining[s]
    while count:
        if (slots - count) * 32 > slots:  # compact, keeping the order
            at = 0
            for i in range(slots):
                moved[i] = at
                if alive[i]:
                    for j in range(width):
                        cols[j, at] = cols[j, i]
                    records[at] = records[i]
                    at += 1
            listed = 0
            for c in range(kept):
                if alive[far_positions[c]]:
                    far_positions[listed] = moved[far_positions[c]]
                    far_values[listed] = far_values[c]
                    listed += 1
            kept, slots = listed, count
            for i in range(slots):
                alive[i] = True
                penalty[i] = 0.0
            for s in range(size):
                starts[s + 1] = starts[s] + remaining[s]
        centre = alive_centroid(cols, slots, alive, count)
        # the remaining record farthest from the centroid, from the list if it settles it
        shift = 0.0
        for j in range(width):
            shift += (centre[j] - reference[j]) ** 2
        shift = np.sqrt(shift)
        seed, largest, lowest = -1, -np.inf, n
        settled = False
        for c in range(kept):
            i = far_positions[c]
            if not alive[i]:
                continue
            if _upper(far_values[c], shift) < largest:
                settled = True
                break
            value = _distance(cols, i, centre)
            if value > largest or value == largest and records[i] < lowest:
                seed, largest, lowest = i, value, records[i]
        if not settled and seed >= 0 and (floor == -np.inf or _upper(floor, shift) < largest):
            settled = True
        if not settled:
            sq_distances_by_column(cols, slots, centre, penalty, distances)
            seed = _farthest(distances, slots, records)
            kept, floor = _far_list(distances, slots, far_list, far_positions, far_values)
            for j in range(width):
                reference[j] = centre[j]
        # a cluster around it, then one around the remaining record farthest from it
        for half in range(2):
            for j in range(width):
                point[j] = cols[j, seed]
            sq_distances_by_column(cols, slots, point, penalty, distances)
            number = _take(distances, starts, remaining, taken)
            for c in range(number):
                i = taken[c]
                alive[i] = False
                penalty[i] = np.inf
                distances[i] = np.inf
                labels[records[i]] = cluster
            count -= number
            cluster += 1
            if half or not count:
                break
            seed = _farthest(distances, slots, records)
    return labels


def tclose_tfirst(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, rounding: str = DEFAULT_ROUNDING
) -> np.ndarray:
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

    The loop is compiled (:func:`_tfirst_kernel`, numba) and keeps NumPy's arithmetic:
    squared distances summed in attribute order, the centroid summed in (subset, record
    index) order, so it gives the partitions of the plain NumPy loop
    (``benchmarks/references/reference_tcloseness.py``), ties included. Per pair of clusters it
    makes one pass for the centroid and one distance pass from each seed; the farthest record
    from the centroid comes from a short list of candidates (see :func:`_tfirst_kernel`).
    On Patient Discharge (23,435 records × 7 quasi-identifiers, k = 2) a call takes about
    0.05 s at t = 0.02 (k' = 25) and 0.35 s at t = 0.25 (k' = 2, the slowest), against
    0.7 s and 9 s for the NumPy loop (``benchmarks/timings/bench_tcloseness.py``).

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
            f"confidential must be one value per record ({len(points)}), got shape {conf.shape}"
        )
    n = len(points)
    k = check_int(k, "k", 1, n)
    check_t(t)
    size = tfirst_cluster_size(n, k, t, rounding)
    if points.shape[1] == 0 or not np.isfinite(points).all():
        raise ParameterError("qi must hold at least one attribute, all finite (no NaN or infinity)")

    # Subset of every record: ranks by the confidential value, ties by record index.
    rank_order = np.argsort(conf, kind="stable")
    sizes = subset_sizes(n, size)
    subset = np.empty(n, dtype=np.int64)
    subset[rank_order] = np.repeat(np.arange(size), sizes)
    # Remaining records ordered by (subset, record index); segment i holds S_i.
    order = np.lexsort((np.arange(n), subset))
    width = -(-points.shape[1] // LANES) * LANES
    cols = np.zeros((width, n))
    cols[: points.shape[1]] = points[order].T
    return _tfirst_kernel(cols, order.astype(np.int64), sizes.copy(), _FAR_LIST)


def tclose_tfirst_merged(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, ground: str = "distinct"
) -> np.ndarray:
    """Algorithm 3 followed by Algorithm 1's merging loop (TCM §5), so every cluster is
    t-close even where Proposition 2 does not hold (k' not dividing n, tied confidential
    values); clusters that are already t-close are left as they are. ``ground`` is the
    merging loop's EMD ground distance (:class:`~anonlab.tcloseness.emd.OrderedEMD`)."""
    labels = tclose_tfirst(qi, confidential, k, t)
    return merge_until_t_close(standardise(qi), labels, OrderedEMD(confidential, ground), t)
