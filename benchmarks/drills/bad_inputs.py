"""The bad inputs of a user's first study, run against a checkout: what each prints (its
first error or note lines), its exit status, whether it ran any work, and what it left in
its results folder. Run it against two checkouts for a before/after table:

    python benchmarks/drills/bad_inputs.py [--root CHECKOUT] [--out /tmp/bad_inputs]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parents[2]


def data(folder: Path) -> dict[str, Path]:
    """A numeric CSV with negative values and no class (834 records), and one with a
    constant column."""
    rng = np.random.default_rng(1)
    numeric = pd.DataFrame(
        {
            "a": rng.normal(0.0, 4.0, 834).round(3),
            "b": rng.gamma(2.0, 5.0, 834).round(3),
            "c": rng.normal(50.0, 9.0, 834).round(3),
        }
    )
    constant = numeric.assign(a=7.0)
    paths = {"numeric": folder / "numeric.csv", "constant": folder / "constant.csv"}
    numeric.to_csv(paths["numeric"], index=False)
    constant.to_csv(paths["constant"], index=False)
    return paths


def cli_cases(paths: dict[str, Path]) -> dict[str, list[str]]:
    mine = ["dataset=csv", f"dataset.path={paths['numeric']}", "dataset.numeric=[a,b,c]"]
    quick = ["reps=1", "n_jobs=1"]
    return {
        "arena on a numeric CSV without a class": [
            "+experiment=arena",
            *mine,
            "dataset.domains=data",
            "profile=quick",
            "methods=[laplace,ir_laplace,mdav]",
            *quick,
        ],
        "iDP SSE on the same CSV": ["+experiment=census_idp_sse", *mine, "grid.k=[5]", *quick],
        "a paper experiment with another metric list": [
            "+experiment=census_ir",
            "metrics=[re]",
            "grid.k=[2,5]",
            *quick,
        ],
        "f_measure on data without a class": [
            "+experiment=census_ir",
            *mine,
            "metrics=[f_measure]",
            "grid.k=[5]",
            *quick,
        ],
        "a cluster metric of a method that does not cluster": [
            "+experiment=census_ir",
            "metrics=[cluster_min]",
            "grid.k=[5]",
            *quick,
        ],
        "a variance metric of a constant column": [
            "+experiment=census_ir",
            "dataset=csv",
            f"dataset.path={paths['constant']}",
            "dataset.numeric=[a,b,c]",
            "dataset.domains={a:[-20,20],b:[0,100],c:[0,100]}",
            "metrics=[variance_change]",
            "grid.k=[5]",
            *quick,
        ],
        "DP methods on columns with negative values": [
            "+experiment=census_ir",
            *mine,
            "methods=[ir,ir_laplace,laplace]",
            "grid.k=[5]",
            *quick,
        ],
        "no experiment": [],
    }


API_CASES = {
    "numbers stored as text": (
        "anonlab.protect(pd.DataFrame({'a': ['1', '2', '3']}), 'ir', ['a'], k=2)"
    ),
    "duplicate column names": (
        "anonlab.protect(pd.DataFrame([[1, 2], [3, 4]], columns=['a', 'a']), 'ir', k=2)"
    ),
    "zero rows": "anonlab.protect(pd.DataFrame({'a': []}), 'ir', ['a'], k=2)",
    "columns=5": "anonlab.protect(pd.DataFrame({'a': [1.0, 2.0]}), 'ir', 5, k=2)",
    "seed=2**64": "anonlab.protect(pd.DataFrame({'a': [1.0, 2.0]}), 'ir', k=2, seed=2**64)",
    "evaluate on a release with NaN": (
        "anonlab.evaluate(pd.DataFrame({'a': [1.0, 2.0]}), pd.DataFrame({'a': [1.0, None]}),"
        " ['re'], record_aligned=True)"
    ),
}


def first_lines(text: str, n: int = 3) -> str:
    lines = [line for line in text.splitlines() if line.strip() and "%|" not in line]
    picked = [line for line in lines if line.startswith(("error", "note", "Traceback"))] or lines
    return " / ".join(textwrap.shorten(line, 160) for line in picked[:n])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE)
    parser.add_argument("--out", type=Path, default=Path("/tmp/bad_inputs"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    paths = data(args.out)
    print("| input | exit | what it says | left in the results folder |\n|---|---|---|---|")
    for name, argv in cli_cases(paths).items():
        results = args.out / "results" / name.replace(" ", "_")
        done = subprocess.run(
            [sys.executable, str(args.root / "run.py"), *argv, f"results_dir={results}"]
            if argv
            else [sys.executable, str(args.root / "run.py")],
            cwd=args.out,
            capture_output=True,
            text=True,
        )
        left = sorted(p.name for p in results.rglob("*") if p.is_file()) if results.exists() else []
        shown = f"{len(left)} files" if left else "nothing"
        print(f"| {name} | {done.returncode} | {first_lines(done.stderr)} | {shown} |")
    for name, call in API_CASES.items():
        code = f"import pandas as pd, anonlab\n{call}"
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=args.root, capture_output=True, text=True
        )
        said = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "(no error)"
        print(f"| Python: {name} | {done.returncode} | {textwrap.shorten(said, 200)} | — |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
