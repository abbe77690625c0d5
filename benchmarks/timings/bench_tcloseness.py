"""Time TCM Algorithm 3 (tclose_tfirst) and Algorithm 1's merging loop
(merge_until_t_close): the compiled loops against the NumPy loops they match
(benchmarks/references/reference_tcloseness.py), on the Patient Discharge data of TCM
§8.2 / Fig. 5.

Usage: ``python benchmarks/timings/bench_tcloseness.py [--k 2] [--t 0.02 0.1 0.25] [--repeats 3]
[--numpy-repeats 1] [--grounds distinct rank]``

Data: the data set of ``conf/dataset/patient_discharge.yaml`` as the ``tclose_runtime``
experiment loads it (23,435 records, 7 quasi-identifiers, the confidential attribute of
``dataset.roles``). For every t it prints the compiled loop's median of ``--repeats`` runs,
the NumPy loop's median of ``--numpy-repeats`` (wall clock, and CPU time beside it), their
ratio and whether both give the same partition: ``tclose_tfirst`` on the raw
quasi-identifiers, and the merging loop on MDAV's partition
at k (computed once, outside the timings) with the standardised quasi-identifiers, for
every EMD ground. The first line times the first calls, which compile the loops or load
them from numba's cache. Budget: tclose_tfirst ≤ 0.5 s per call at any t.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from anonlab.config import compose_config  # noqa: E402
from anonlab.datasets import load_dataset  # noqa: E402
from anonlab.methods.tcloseness import roles  # noqa: E402
from anonlab.microaggregation import mdav, standardise  # noqa: E402
from anonlab.tcloseness import GROUNDS, OrderedEMD  # noqa: E402
from anonlab.tcloseness.merge import merge_until_t_close  # noqa: E402
from anonlab.tcloseness.tfirst import tclose_tfirst, tfirst_cluster_size  # noqa: E402
from benchmarks.references.reference_tcloseness import (
    merge_until_t_close_numpy,
    tclose_tfirst_numpy,
)  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

TFIRST_BUDGET_S = 0.5
TS = (0.02, 0.1, 0.25)


def patient_discharge() -> tuple[np.ndarray, np.ndarray]:
    """Quasi-identifiers and confidential attribute as the tclose_runtime experiment's
    t-closeness methods receive them (anonlab.methods.tcloseness)."""
    config = compose_config("+experiment=tclose_runtime")["dataset"]
    dataset = load_dataset(config)
    qis, confidential = roles(dataset)
    return (dataset.protected_values[:, qis], dataset.frame[confidential].to_numpy(dtype=float))


def median_times(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU seconds of ``repeats`` calls (on a shared machine
    the wall clock also counts waits for a core)."""
    walls, cpus = [], []
    for _ in range(repeats):
        clock = time.process_time()
        walls.append(timed(fn))
        cpus.append(time.process_time() - clock)
    return statistics.median(walls), statistics.median(cpus)


def compare(
    name: str, compiled_fn, numpy_fn, repeats: int, numpy_repeats: int, budget: float | None
) -> None:
    compiled, compiled_cpu = median_times(compiled_fn, repeats)
    plain, plain_cpu = median_times(numpy_fn, numpy_repeats)
    same = np.array_equal(compiled_fn(), numpy_fn())
    line = (
        f"{name}: compiled {compiled:.3f} s (CPU {compiled_cpu:.3f} s; median of "
        f"{repeats}), NumPy {plain:.3f} s (CPU {plain_cpu:.3f} s; median of "
        f"{numpy_repeats}), x{plain / compiled:.1f}, same partition: "
        f"{'yes' if same else 'NO'}"
    )
    if budget:
        line += f", ratio to budget {compiled / budget:.2f} (CPU {compiled_cpu / budget:.2f})"
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--t", type=float, nargs="+", default=list(TS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--numpy-repeats", type=int, default=1)
    parser.add_argument("--grounds", nargs="+", choices=GROUNDS, default=list(GROUNDS))
    args = parser.parse_args()
    small = np.arange(12.0)
    clock = time.perf_counter()
    tclose_tfirst(small[:, None], small, 2, 0.3)
    first_tfirst = time.perf_counter() - clock
    clock = time.perf_counter()
    for ground in args.grounds:
        merge_until_t_close(small[:, None], np.arange(12) // 2, OrderedEMD(small, ground), 0.1)
    print(
        f"first calls (compilation, or loading the cache): tclose_tfirst "
        f"{first_tfirst:.2f} s, merge_until_t_close {time.perf_counter() - clock:.2f} s"
    )
    qi, confidential = patient_discharge()
    n = len(qi)
    print(
        f"Patient Discharge: n={n}, {qi.shape[1]} quasi-identifiers, "
        f"{len(np.unique(confidential))} distinct confidential values, k={args.k}"
    )
    for t in args.t:
        size = tfirst_cluster_size(n, args.k, t)
        compare(
            f"tclose_tfirst t={t:<5} k'={size:<3}",
            lambda t=t: tclose_tfirst(qi, confidential, args.k, t),
            lambda t=t: tclose_tfirst_numpy(qi, confidential, args.k, t),
            args.repeats,
            args.numpy_repeats,
            TFIRST_BUDGET_S,
        )
    clock = time.perf_counter()
    labels = mdav(qi, args.k)
    points = standardise(qi)
    print(
        f"MDAV k={args.k}: {labels.max() + 1} clusters in {time.perf_counter() - clock:.2f} s "
        "(not in the timings below)"
    )
    for ground in args.grounds:
        emd = OrderedEMD(confidential, ground)
        for t in args.t:
            merged = merge_until_t_close(points, labels, emd, t)
            compare(
                f"merging {ground:8s} t={t:<5} ({merged.max() + 1:5d} clusters)",
                lambda t=t, emd=emd: merge_until_t_close(points, labels, emd, t),
                lambda t=t, emd=emd: merge_until_t_close_numpy(points, labels, emd, t),
                args.repeats,
                args.numpy_repeats,
                None,
            )


if __name__ == "__main__":
    main()
