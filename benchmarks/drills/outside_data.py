"""Four data sets from outside the project, each run as a study and through the arena, one
command each: scikit-learn's bundled diabetes, wine, breast cancer and iris tables, written
to CSV. Prints each command, its wall time, its notes and the figures it wrote.

    python benchmarks/drills/outside_data.py [--out /tmp/outside] [--arena-profile quick]

The bounds are read off the data (``dataset.domains=data``): none of these tables comes
with public bounds, so each DP release's ε holds only if those bounds were public, as its
guarantee's caveat says; the point is the
utility and risk comparison on data nobody here prepared.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

from sklearn import datasets

ROOT = Path(__file__).resolve().parents[2]
#: name → (loader, the threshold of its target that makes two classes)
SETS = {
    "diabetes": (datasets.load_diabetes, 140.0),
    "wine": (datasets.load_wine, 0.5),
    "breast_cancer": (datasets.load_breast_cancer, 0.5),
    "iris": (datasets.load_iris, 0.5),
}
STUDY = [
    "+experiment=study",
    "methods=[ir,ir_laplace,mdav,dp_um,idp_cbls]",
    "metrics=[re,jsd,record_linkage]",
    "grid.k=[3,5,10,20]",
    "grid.epsilon=[1.0]",
    "reps=3",
]


def write_csv(name: str, out: Path) -> tuple[Path, list[str], float]:
    loader, threshold = SETS[name]
    frame = loader(as_frame=True).frame
    frame.columns = [c.replace(" ", "_").replace("/", "_") for c in frame.columns]
    path = out / f"{name}.csv"
    frame.to_csv(path, index=False)
    return path, [c for c in frame.columns if c != "target"][:6], threshold


def run(argv: list[str], cwd: Path) -> tuple[float, str, int]:
    clock = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "run.py"), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return time.perf_counter() - clock, done.stdout + done.stderr, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/outside"))
    parser.add_argument("--arena-profile", default="quick")
    parser.add_argument("--only", nargs="*", choices=list(SETS), help="these data sets only")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {os.getloadavg()}")
    for name in args.only or SETS:
        path, columns, threshold = write_csv(name, args.out)
        data = [
            "dataset=csv",
            f"dataset.path={path}",
            # quoted: names such as "sepal_length_(cm)" are not bare words to Hydra
            "dataset.numeric=[" + ",".join(f'"{c}"' for c in columns) + "]",
            "dataset.domains=data",
            f"results_dir={args.out / 'results'}",
        ]
        target = f"+dataset.target={{column: target, threshold: {threshold}, labels: [a, b]}}"
        for what, argv in (
            ("study", [*STUDY, *data[1:]]),
            ("arena", ["+experiment=arena", *data, target, f"profile={args.arena_profile}"]),
        ):
            seconds, output, status = run(argv, args.out)
            figures = [line for line in output.splitlines() if line.endswith(".png")]
            notes = [line for line in output.splitlines() if line.startswith(("note:", "error:"))]
            print(f"\n== {name} {what}: status {status}, {seconds:.1f} s wall")
            print("   anonlab run " + " ".join(shlex.quote(a) for a in argv))
            for line in notes:
                print(f"   {line}")
            print(f"   figures: {[Path(f).name for f in figures]}")
    print(f"\nload average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
