"""Time TCM Algorithm 2 (k_anonymity_first, the microaggregation of tclose_kfirst): the
compiled loop against the NumPy loop it matches (benchmarks/references/reference_kfirst.py), on the
Patient Discharge data of TCM §8.2 / Fig. 5.

Usage: ``python benchmarks/timings/bench_kfirst.py [--k 2] [--t 0.02 0.1 0.25] [--repeats 3]
[--grounds distinct] [--grid]``

Data: the data set of ``conf/dataset/patient_discharge.yaml`` as the ``tclose_runtime``
experiment loads it (23,435 records, 7 quasi-identifiers, the confidential attribute of
``dataset.roles``). The first line times the first call, which compiles the loop or loads
it from numba's cache. For every t it prints the compiled loop's median of ``--repeats``
runs, one run of the NumPy loop, their ratio and whether both give the same partition.
``--grid`` compares the partitions over the t grid of
``conf/experiment/tclose_runtime.yaml`` instead (one run each). Budget: 1.5 s per call.
The NumPy loop takes 10-20 s per call with the distinct ground and minutes with the rank
ground (``--grounds rank``).
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
from anonlab.tcloseness import GROUNDS  # noqa: E402
from anonlab.tcloseness.kfirst import k_anonymity_first  # noqa: E402
from benchmarks.references.reference_kfirst import k_anonymity_first_numpy  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

BUDGET_S = 1.5
TS = (0.02, 0.1, 0.25)


def runtime_experiment() -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Quasi-identifiers and confidential attribute as the tclose_runtime experiment's
    t-closeness methods receive them (anonlab.methods.tcloseness), and its t grid."""
    config = compose_config("+experiment=tclose_runtime")
    dataset = load_dataset(config["dataset"])
    qis, confidential = roles(dataset)
    return (
        dataset.protected_values[:, qis],
        dataset.frame[confidential].to_numpy(dtype=float),
        list(config["grid"]["t"]),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--t", type=float, nargs="+", default=list(TS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--grounds", nargs="+", choices=GROUNDS, default=["distinct"])
    parser.add_argument(
        "--grid", action="store_true", help="compare the partitions over the experiment's t grid"
    )
    args = parser.parse_args()
    small = np.arange(12.0)
    clock = time.perf_counter()
    k_anonymity_first(small[:, None], small, 2, 0.1)
    print(f"first call (compilation, or loading the cache): {time.perf_counter() - clock:.2f} s")
    qi, confidential, grid = runtime_experiment()
    print(
        f"Patient Discharge: n={len(qi)}, {qi.shape[1]} quasi-identifiers, "
        f"{len(np.unique(confidential))} distinct confidential values, k={args.k}; "
        f"budget {BUDGET_S} s per call",
        flush=True,
    )
    for ground in args.grounds:
        if args.grid:
            same = []
            for t in grid:
                labels = k_anonymity_first(qi, confidential, args.k, t, ground)
                same.append(
                    np.array_equal(
                        labels, k_anonymity_first_numpy(qi, confidential, args.k, t, ground)
                    )
                )
                print(
                    f"{ground} t={t:<5} same partition: {'yes' if same[-1] else 'NO'}", flush=True
                )
            print(f"{ground}: {sum(same)} of {len(grid)} values of t give the same partition")
            continue
        for t in args.t:
            compiled = statistics.median(
                timed(lambda t=t, g=ground: k_anonymity_first(qi, confidential, args.k, t, g))
                for _ in range(args.repeats)
            )
            clock = time.perf_counter()
            expected = k_anonymity_first_numpy(qi, confidential, args.k, t, ground)
            plain = time.perf_counter() - clock
            labels = k_anonymity_first(qi, confidential, args.k, t, ground)
            same = np.array_equal(labels, expected)
            print(
                f"{ground} t={t:<5} ({labels.max() + 1} clusters): compiled "
                f"{compiled:.3f} s (median of {args.repeats}), NumPy {plain:.2f} s, "
                f"x{plain / compiled:.1f}, same partition: {'yes' if same else 'NO'}, "
                f"ratio to budget {compiled / BUDGET_S:.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
