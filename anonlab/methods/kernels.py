"""The methods' compiled loops (numba), in a module of their own: the method registry
(:mod:`anonlab.methods`) imports every other module of this package, and this one only
when a release calls a loop, so that composing, validating or drawing a run does not
import numba."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def swap_partners(n: int, width: int, uniforms: np.ndarray) -> np.ndarray:
    """The ranks swapped with each rank: ``partner[i]`` is the rank whose value rank ``i``
    receives (``i`` when it keeps its own). Ranks are visited in order; a rank not swapped
    yet is swapped with one chosen uniformly (by ``uniforms[i]`` in [0, 1)) among the ranks
    ``i + 1 … i + width`` not swapped yet, if there is one (sdcMicro's ``RankSwap``). The
    ranks still free are counted and found in a Fenwick tree, O(n log n)."""
    partner = np.arange(n)
    tree = np.zeros(n + 1, dtype=np.int64)  # tree[i]: free ranks in (i − lowbit(i), i]
    for i in range(1, n + 1):
        tree[i] = i & -i
    top = 1
    while top * 2 <= n:
        top *= 2
    free = np.ones(n, dtype=np.bool_)
    for i in range(n):
        if not free[i]:
            continue
        free[i] = False
        position = i + 1
        while position <= n:
            tree[position] -= 1
            position += position & -position
        # every rank up to i is taken, so the free ranks up to i + width lie after i
        position, count = min(n - 1, i + width) + 1, 0
        while position > 0:
            count += tree[position]
            position -= position & -position
        if count == 0:
            continue
        wanted = min(int(uniforms[i] * count), count - 1) + 1  # the wanted-th free rank
        found, step = 0, top
        while step > 0:
            if found + step <= n and tree[found + step] < wanted:
                found += step
                wanted -= tree[found]
            step //= 2
        chosen = found  # 0-based: the first position whose prefix count reaches wanted
        partner[i], partner[chosen] = chosen, i
        free[chosen] = False
        position = chosen + 1
        while position <= n:
            tree[position] -= 1
            position += position & -position
    return partner
