"""DP-UNI Figure 1 (Adult AGE + HOURS-PER-WEEK): SSE of IR + Laplace, beside the paper's text.

Usage: ``python -m experiments.dp_uni_fig1 [results/adult_uni_sse/results.parquet]``

DP-UNI §5: "already for k > 1, our approach significantly reduces the noise … vs. plain
Laplace noise addition" and, for ε = 0.1, "for k = 100 the reduction of information loss
almost equals that of 1.0-differential privacy with plain Laplacian noise".
"""

from __future__ import annotations

import sys

import pandas as pd

from anonlab.plotting import curve_means
from anonlab.report import crossings


def main(path: str = "results/adult_uni_sse/results.parquet") -> None:
    table = pd.read_parquet(path)
    print("IR + Laplace above plain Laplace (paper: never for k > 1)")
    print(crossings(table, "sse", "ir_laplace", "laplace", by=("epsilon",)).to_string(index=False))
    means = curve_means(table, "sse")
    laplace = means[means["method"] == "laplace"].set_index("epsilon")["value"]
    irl = means[(means["method"] == "ir_laplace") & (means["epsilon"] == 0.1)]
    at_100 = irl.loc[irl["k"] == 100, "value"]
    if len(at_100):
        print(f"\nSSE/m of IR + Laplace at eps=0.1, k=100: {at_100.iloc[0]:.4g}")
        for eps, value in laplace.items():
            ratio = at_100.iloc[0] / value
            print(f"  plain Laplace at eps={eps:g}: {value:.4g}  (ratio {ratio:.3f})")
    ir = means[means["method"] == "ir"].set_index("k")["value"]
    shown = {int(k): round(v, 1) for k, v in ir.items() if k in (2, 10, 50, 100)}
    print("\nSSE/m of IR alone:", shown)


if __name__ == "__main__":
    main(*sys.argv[1:])
