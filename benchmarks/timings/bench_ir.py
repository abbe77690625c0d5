"""Time individual ranking (``ir``) and DP-IR Algorithm 1 (``ir_laplace``): the compiled
sort and spreading against the plain NumPy code they match (benchmarks/references/reference_ir.py).

Usage: ``python benchmarks/timings/bench_ir.py [--sizes 100000 1000000] [--m 13] [--k 5]
[--repeats 5] [--ref-repeats 5]``

Budget: ``ir_laplace`` on 10⁶ × 13 in ≤ 1.0 s, the sort included, with a peak memory
above the input of at most 2× the input array. Data: skewed synthetic attributes (gamma)
rounded to one decimal, so values tie (about 2,000 distinct values per attribute at 10⁶
records). Every run protects a fresh data set view (no cached sort; the protected
matrix, the input, is the same array) through ``Method.release``, as the runner calls
it. Prints the medians of ``--repeats`` runs (wall and CPU time), the first call's
compilation (or cache load), the ratio to the NumPy reference and to the budget; the
peak memory above the input as a multiple of the input array, split into what the call
leaves held (the release's values, the view's cached sort; the labels are computed only
when a cluster metric asks, ``Release.cluster_labels``) and its working
memory (``tracemalloc``, which traces NumPy's allocations and numba's ``np.empty`` as
well); and whether the releases equal the reference's byte for byte for the same seeds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from anonlab.datasets import Dataset, build_dataset  # noqa: E402
from anonlab.methods import Method, make_method  # noqa: E402
from anonlab.methods.base import Release  # noqa: E402
from anonlab.microaggregation import individual_ranking, sort_columns  # noqa: E402
from benchmarks.references.reference_ir import ir_laplace_numpy, ir_numpy  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

BUDGET_S = {(1_000_000, 13): 1.0}
BUDGET_MEMORY = 2.0  # peak above the input, in multiples of the input array
EPSILON = 1.0
SEEDS = (0, 1, 2)


def synthetic(n: int, m: int) -> Dataset:
    """Gamma(2, 10) attributes rounded to one decimal, domains by DP-IR's [0, 1.5·max]."""
    values = np.random.default_rng(0).gamma(2.0, 10.0, size=(n, m))
    np.round(values, 1, out=values)
    frame = pd.DataFrame(values, columns=[f"a{j}" for j in range(m)], copy=False)
    dataset = build_dataset("synthetic", frame, list(frame.columns))
    dataset.protected_values  # noqa: B018 - the input array, built once
    return dataset


def fresh(dataset: Dataset) -> Dataset:
    """A new view of ``dataset`` with no cached sort, sharing its protected matrix."""
    view = replace(dataset)
    view.__dict__["protected_values"] = dataset.protected_values
    return view


def median_times(fn, repeats: int) -> tuple[float, float]:
    """Medians of the wall time and of the process's CPU time (kernel included: page
    faults) over ``repeats`` calls; on a shared machine the CPU time shows the cost
    without the waits for a core."""
    walls, cpus = [], []
    for _ in range(repeats):
        cpu = time.process_time()
        walls.append(timed(fn))
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def peak_above(fn) -> tuple[int, int]:
    """Bytes allocated at the peak of ``fn()`` and still held once it returns (while its
    result lives), both above the memory in use before the call."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    result = fn()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak - before, held - before


def same_release(ours: Release, theirs: Release) -> bool:
    # labels compared as numbers: ours are 32-bit, the reference's int64
    return (
        ours.values.tobytes() == theirs.values.tobytes()
        and np.array_equal(ours.cluster_labels, theirs.labels)
        and (ours.scale is None) == (theirs.scale is None)
        and (ours.scale is None or ours.scale.tobytes() == theirs.scale.tobytes())
    )


def compare(
    dataset: Dataset,
    method: Method,
    reference,
    repeats: int,
    ref_repeats: int,
    budget: float | None,
) -> None:
    """Time, memory and identity of ``method`` against ``reference(view, rng)``."""
    size = dataset.protected_values.nbytes
    compiled, compiled_cpu = median_times(
        lambda: method.release(fresh(dataset), np.random.default_rng(0)), repeats
    )
    plain, plain_cpu = median_times(
        lambda: reference(fresh(dataset), np.random.default_rng(0)), ref_repeats
    )
    line = (
        f"  {method.name:10s} {compiled:6.3f} s (CPU {compiled_cpu:.3f} s), NumPy "
        f"reference {plain:6.3f} s (CPU {plain_cpu:.3f} s), x{plain / compiled:.1f} faster"
    )
    if budget:
        line += f", budget {budget:.1f} s, ratio to budget {compiled / budget:.2f}"
    print(line, flush=True)
    view = fresh(dataset)  # the view keeps its sort: held after the call
    peak, held = peak_above(lambda: method.release(view, np.random.default_rng(0)))
    ref_peak, _ = peak_above(lambda: reference(fresh(dataset), np.random.default_rng(0)))
    print(
        f"    peak above the input {peak / size:.2f}x the input array (held after the "
        f"call, release and cached sort: {held / size:.2f}x; working memory "
        f"{(peak - held) / size:.2f}x); reference {ref_peak / size:.2f}x; budget "
        f"{BUDGET_MEMORY:.1f}x, ratio {peak / size / BUDGET_MEMORY:.2f}",
        flush=True,
    )
    same = all(
        same_release(
            method.protect(fresh(dataset), np.random.default_rng(seed)),
            reference(fresh(dataset), np.random.default_rng(seed)),
        )
        for seed in SEEDS
    )
    print(f"    release byte-identical to the reference (seeds {SEEDS}): {same}", flush=True)


def library_parts(dataset: Dataset, k: int) -> None:
    """The library calls alone, on the input matrix: the sort, the centroids from it, the
    labels (computed on demand); and the peak memory of ``individual_ranking(values, k)``,
    sort included."""
    values = dataset.protected_values
    clock = time.perf_counter()
    sorted_columns = sort_columns(values)
    sort = time.perf_counter() - clock
    clock = time.perf_counter()
    ranking = individual_ranking(values, k, sorted_columns)
    centroids = time.perf_counter() - clock
    clock = time.perf_counter()
    ranking.labels  # noqa: B018 - computed on first use
    labels = time.perf_counter() - clock
    del sorted_columns, ranking
    peak, held = peak_above(lambda: individual_ranking(values, k))
    print(
        f"  library: sort {sort:.3f} s, centroids {centroids:.3f} s, labels {labels:.3f} s;"
        f" individual_ranking(values, k) peak {peak / values.nbytes:.2f}x the input, held "
        f"{held / values.nbytes:.2f}x (order, centroids)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--m", type=int, default=13)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--ref-repeats", type=int, default=5)
    args = parser.parse_args()
    clock = time.perf_counter()
    warm = np.random.default_rng(1).random((20, 3))
    individual_ranking(warm, 2).release()
    print(f"first call (compilation, or loading the cache): {time.perf_counter() - clock:.2f} s")
    k = args.k
    ir = make_method("ir", {"k": k})
    ir_laplace = make_method("ir_laplace", {"k": k, "epsilon": EPSILON})
    for n in args.sizes:
        dataset = synthetic(n, args.m)
        print(
            f"n={n} m={args.m} k={k} ({dataset.protected_values.nbytes / 2**20:.0f} MiB "
            f"input), median of {args.repeats} (reference: {args.ref_repeats}), a fresh "
            "view each run:",
            flush=True,
        )
        compare(
            dataset, ir, lambda view, rng: ir_numpy(view, k), args.repeats, args.ref_repeats, None
        )
        compare(
            dataset,
            ir_laplace,
            lambda view, rng: ir_laplace_numpy(view, k, EPSILON, rng),
            args.repeats,
            args.ref_repeats,
            BUDGET_S.get((n, args.m)),
        )
        library_parts(dataset, k)


if __name__ == "__main__":
    main()
