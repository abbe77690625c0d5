"""Time the ``record_linkage`` metric on Adult against a plain NumPy brute force.

Usage: ``python benchmarks/timings/bench_risk.py [--sample 200] [--k 5] [--repeats 2]``

Data: Adult's 30,162 complete records, as ``dataset=adult_numeric`` (age, hours-per-week)
and with all six numerical attributes (adding fnlwgt, education-num, capital-gain and
capital-loss; fnlwgt is almost unique, so few released records coincide). Releases: the
original data (identity), MDAV and individual ranking with ``--k``. Every timing uses a
fresh data set view, so the original's standardisation is included.

The reference is the definition, one original record at a time: the squared distances to
all n released records, summed column by column, the t records at the minimum, 1/t if the
record's own is among them. It runs on ``--sample`` records (evenly spaced) and is
extrapolated to n; the metric's probabilities for those records must equal it exactly.
Prints the metric's median time, the reference's extrapolated time and their ratio, the
number of distinct released records, and the metric's peak traced memory.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np

from anonlab.config import compose_config
from anonlab.datasets import Dataset, load_dataset
from anonlab.methods import make_method
from anonlab.metrics import get_metric
from anonlab.metrics.risk import known_columns, linkage_probabilities, standardised
from benchmarks.references.timing import timed

SIX = "[age,fnlwgt,education-num,capital-gain,capital-loss,hours-per-week]"


def brute(original: np.ndarray, released: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Linkage probability of each original record in ``rows``, one at a time."""
    out = np.zeros(len(rows))
    for r, i in enumerate(rows):
        d = np.zeros(len(released))
        for j in range(original.shape[1]):
            d += (original[i, j] - released[:, j]) ** 2
        nearest = np.flatnonzero(d == d.min())
        if i in nearest:
            out[r] = 1.0 / len(nearest)
    return out


def bench(view: Dataset, method: str, k: int, sample: int, repeats: int) -> None:
    release = make_method(method, {"k": k}).protect(view, np.random.default_rng(0))
    metric = get_metric("record_linkage")
    times = [timed(lambda: metric.of_release(replace(view), release)) for _ in range(repeats)]
    fresh = replace(view)
    tracemalloc.start()
    risk = metric.of_release(fresh, release)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    columns = known_columns(fresh)
    mean, sd, original = standardised(fresh, columns)
    released = (release.values[:, columns] - mean) / sd
    rows = np.linspace(0, view.n - 1, sample).astype(np.int64)
    clock = time.perf_counter()
    expected = brute(original, released, rows)
    per_record = (time.perf_counter() - clock) / sample
    exact = np.array_equal(linkage_probabilities(original, released)[rows], expected)
    distinct = len(np.unique(released, axis=0))
    median = statistics.median(times)
    label = f"{method}(k={k})" if method != "original" else "original"
    print(
        f"  {label:<14} risk {risk:.4f}  distinct released {distinct:>6}  "
        f"metric {median:6.2f} s  brute force {per_record * view.n:7.1f} s (from "
        f"{sample} records)  ratio {per_record * view.n / median:6.1f}x  "
        f"peak {peak:5.0f} MB  sample equal: {exact}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    for title, overrides in (
        ("adult_numeric (age, hours-per-week)", ()),
        ("adult, six numerical attributes", (f"dataset.attributes={SIX}",)),
    ):
        view = load_dataset(compose_config("dataset=adult_numeric", *overrides)["dataset"])
        print(f"{title}: n = {view.n}, m = {len(view.protected)}")
        for method in ("original", "mdav", "ir"):
            bench(view, method, args.k, args.sample, args.repeats)


if __name__ == "__main__":
    main()
