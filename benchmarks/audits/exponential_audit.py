"""The exponential mechanism's audit, before (numpy's Gumbel-max) and after (the exact
sampler of anonlab/mechanisms/exponential.py), with each sampler's cost per selection.

Usage: ``python benchmarks/audits/exponential_audit.py [--selections 100000] [--rows 10000]
[--repeats 5]``

The table is :func:`anonlab.audit.exponential.audit_table` at ε = 1 (the design and the
event are in that module's docstring): utility ranges 10, 40, 60 and 200 logits, K
candidates spaced ε/2 apart. Columns: candidates with probability 0 on D and > 0 on the
neighbour D' (an unbounded loss) and their probability on D' under the exact law; the loss
that gives; the event's hits; the 95% lower bound on ε and the plug-in estimate; the
event's loss under the exact law (the most a sampled bound can show).

The cost is the median of ``--repeats`` calls (after one warm-up call) selecting from
``--rows`` rows of D's qualities, in µs per selection.
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

from anonlab.audit.exponential import (  # noqa: E402
    GUMBEL_HIGH,
    GUMBEL_LOW,
    RANGES,
    SENSITIVITY,
    TAIL,
    audit_table,
    design,
    format_table,
)
from anonlab.mechanisms import SAMPLERS  # noqa: E402
from anonlab.mechanisms.exponential import ExponentialMechanism  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

EPSILON = 1.0


def cost(sampler: str, logit_range: float, rows: int, repeats: int) -> float:
    """Median seconds per selection of ``sampler`` on ``rows`` rows of D's qualities."""
    _, quality, _, _ = design(logit_range, EPSILON)
    mechanism = ExponentialMechanism(EPSILON, SENSITIVITY, sampler)
    matrix = np.tile(quality, (rows, 1))
    rng = np.random.default_rng(0)
    mechanism.select(matrix, rng)  # warm-up
    return statistics.median(timed(lambda: mechanism.select(matrix, rng)) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selections", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(
        f"epsilon={EPSILON:g}; numpy's Gumbel draws lie in [{GUMBEL_LOW:.4f}, "
        f"{GUMBEL_HIGH:.4f}]: reach {GUMBEL_HIGH - GUMBEL_LOW:.4f} logits; event S: gap "
        f"on D >= {TAIL:g} logits; {args.selections} selections from each of D and D'\n",
        flush=True,
    )
    print(format_table(audit_table(RANGES, EPSILON, args.selections)), flush=True)
    print(f"\ncost per selection (median of {args.repeats} calls of {args.rows} rows)\n")
    print("| range (logits) | K | numpy (µs) | discrete (µs) | ratio |")
    print("|---:|---:|---:|---:|---:|")
    for logit_range in RANGES:
        seconds = {s: cost(s, logit_range, args.rows, args.repeats) for s in SAMPLERS}
        print(
            f"| {logit_range:g} | {design(logit_range, EPSILON)[0].size} | "
            f"{seconds['numpy'] / args.rows * 1e6:.2f} | "
            f"{seconds['discrete'] / args.rows * 1e6:.2f} | "
            f"x{seconds['discrete'] / seconds['numpy']:.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
