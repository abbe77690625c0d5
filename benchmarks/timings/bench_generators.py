"""The cost of a cryptographic generator: ChaCha20 (a library release's default) against
PCG64 (numpy's, the research engine's), per value drawn.

Usage: ``python benchmarks/timings/bench_generators.py [--size 1000000] [--repeats 7]``

Three draws of ``size`` values each, timed on both bit generators (the median of
``--repeats`` calls after a warm-up): 64-bit integers (the raw stream), numpy's
floating-point Laplace (the papers' sampler), and the discretised Laplace mechanism
(:func:`anonlab.mechanisms.discrete.discretised_laplace`, the library's sampler, whose
rejection loops draw bounded integers). Prints nanoseconds per value and the ratio
ChaCha20 / PCG64, and numpy's Laplace on PCG64 as the plain reference.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from anonlab.mechanisms.discrete import discretised_laplace  # noqa: E402
from anonlab.mechanisms.generators import GENERATORS, make_generator  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402


def draws(size: int) -> dict[str, object]:
    """What is timed: each takes a generator and draws ``size`` values."""
    zeros = np.zeros(size)
    return {
        "integers (uint64)": lambda rng: rng.integers(0, 2**63, size=size),
        "numpy laplace": lambda rng: rng.laplace(0.0, 1.0, size=size),
        "discrete laplace": lambda rng: discretised_laplace(zeros, 1.0, 1.0, rng),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.size} values per call, median of "
        f"{args.repeats}"
    )
    reference = None
    for what, draw in draws(args.size).items():
        ns = {}
        for name in GENERATORS:
            rng = make_generator(name, 0)
            draw(rng)  # warm-up
            times = [timed(lambda d=draw, r=rng: d(r)) for _ in range(args.repeats)]
            ns[name] = statistics.median(times) / args.size * 1e9
        if what == "numpy laplace":
            reference = ns["pcg64"]
        print(
            f"{what:>18}: chacha20 {ns['chacha20']:6.1f} ns, pcg64 {ns['pcg64']:6.1f} ns, "
            f"ratio {ns['chacha20'] / ns['pcg64']:.2f}"
        )
    print(f"reference: numpy's Laplace on pcg64, {reference:.1f} ns per value")


if __name__ == "__main__":
    main()
