"""Check each method's and metric's declared cost (:class:`anonlab.cost.Cost`) against
measured time: the constants the plan stage (:mod:`anonlab.runner.plan`) multiplies.

Usage: ``python benchmarks/timings/cost_model.py [--only mdav f_measure …] [--quick] [--tables]``

Each method is timed releasing synthetic data at two or three sizes (n records, m
protected attributes, its grid parameters: k = 5, ε = 1, t = 0.1 unless a case varies
them), each metric computing its value on a ``laplace`` release (the attack-based risks on
the release of the training half, as the runner gives them); every case runs once on a
tiny data set first, so compiled kernels are loaded, then takes the shortest of
``--repeats`` timings (one when a timing exceeds ``--long`` seconds), each on a fresh view
of the data (no cached sort or histogram). The per-job overhead of the runner
(:data:`~anonlab.runner.plan.JOB_SECONDS`) is a batch of cheap jobs less their method and
metric; ``--tables`` also times the tables computed once per code version (minutes).

Printed per case: the measured seconds, the declared cost's prediction and their ratio;
then per component the declared constant (seconds per unit of the formula), the constant
fitted to the measurements (their geometric mean of seconds per unit; with a declared
``fixed`` part, a least-squares fit of both) and the range of the prediction's ratio.
Declared constants are calibrated from this output on the project's machine kind (2 cores,
one used here: BLAS and OpenMP threads set to 1)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
warnings.filterwarnings("ignore")  # mbi's notes on jax's precision and compilation cache

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from anonlab.cost import Cost  # noqa: E402
from anonlab.datasets import Dataset, build_dataset  # noqa: E402
from anonlab.methods import METHODS, make_method  # noqa: E402
from anonlab.metrics import METRICS  # noqa: E402
from anonlab.runner import plan  # noqa: E402
from anonlab.runner.execute import release_held_out, run_batch  # noqa: E402
from anonlab.runner.grid import Cell  # noqa: E402
from benchmarks.timings.bench_mdav import synthetic as gamma_values  # noqa: E402
from benchmarks.timings.bench_tcloseness_alg12 import synthetic as discharge_like  # noqa: E402

PARAMS = {"k": 5, "epsilon": 1.0, "t": 0.1}
WARMUP_N = 300


@dataclass(frozen=True)
class Case:
    """One component at its sizes: ``(n, m)`` pairs, with parameters changed per size
    where a case varies them (``{"epsilon": 10.0}``)."""

    kind: str  # "method" or "metric"
    name: str
    sizes: tuple[tuple[int, int], ...]
    changes: tuple[dict[str, float], ...] = ()
    data: str = "gamma"  # or "discharge": quasi-identifiers and a confidential attribute

    def params(self, index: int) -> dict[str, float]:
        return {**PARAMS, **(self.changes[index] if self.changes else {})}


LINEAR_SIZES = ((100_000, 4), (1_000_000, 4), (1_000_000, 1))
QUADRATIC_SIZES = ((10_000, 4), (20_000, 4), (40_000, 4))
METRIC_SIZES = ((2_000, 4), (20_000, 4), (20_000, 8))
ROLE_SIZES = ((2_000, 4), (20_000, 4), (20_000, 7))  # up to 7 quasi-identifiers
CASES: tuple[Case, ...] = (
    Case("method", "laplace", LINEAR_SIZES),
    Case("method", "dp", LINEAR_SIZES),
    Case("method", "original", LINEAR_SIZES),
    Case("method", "ir", LINEAR_SIZES),
    Case("method", "ir_laplace", LINEAR_SIZES),
    Case("method", "dp_um", LINEAR_SIZES),
    Case("method", "idp_ls", LINEAR_SIZES),
    Case("method", "idp_cbls", LINEAR_SIZES),
    Case("method", "imdav", LINEAR_SIZES),
    Case("method", "imdav_laplace", LINEAR_SIZES),
    Case("method", "imdav_laplace_composed", LINEAR_SIZES),
    Case("method", "mdav", ((20_000, 2), (20_000, 8), (50_000, 4), (100_000, 2))),
    *(
        Case("method", name, QUADRATIC_SIZES, data="discharge")
        for name in ("tclose_merge", "tclose_kfirst", "tclose_tfirst", "tclose_tfirst_merged")
    ),
    Case("method", "mst", ((1_000, 2), (1_000, 4), (4_000, 4))),
    Case(
        "method",
        "aim",
        ((1_000, 4), (1_000, 4), (1_000, 8)),
        ({"epsilon": 1.0}, {"epsilon": 10.0}, {"epsilon": 1.0}),
    ),
    *(
        Case("metric", name, ROLE_SIZES, data="discharge")
        if {"quasi_identifier", "confidential"} & set(metric.requires)
        else Case("metric", name, METRIC_SIZES)
        for name, metric in METRICS.items()
        if name != "runtime"  # reads the release's own timing
    ),
)
QUICK_SIZES = {
    "method": ((20_000, 4), (100_000, 4)),
    "metric": ((2_000, 4), (10_000, 4)),
}


def synthetic(n: int, m: int, data: str = "gamma") -> Dataset:
    """``n`` synthetic records of ``m`` protected attributes (``discharge``: ``m``
    quasi-identifiers and a confidential attribute), every domain [0, 1.5·max], and a
    class (``cls``: above the median of one more column) for the metrics that need one."""
    if data == "discharge":
        qi, charges = discharge_like(n)
        names = [f"q{j}" for j in range(m)]
        frame = pd.DataFrame(qi[:, :m], columns=names).assign(charge=charges)
        analysed = [*names, "charge"]
        roles = {**dict.fromkeys(names, "quasi_identifier"), "charge": "confidential"}
    else:
        values = gamma_values(n, m + 1)
        names = [f"a{j}" for j in range(m)]
        frame = pd.DataFrame(values[:, :m], columns=names).assign(cls=values[:, m])
        analysed, roles = names, None
    domains = {c: [0.0, 1.5 * float(frame[c].max())] for c in analysed}
    target = None
    if "cls" in frame:
        target = {
            "column": "cls",
            "threshold": float(frame["cls"].median()),
            "labels": ["lo", "hi"],
        }
    dataset = build_dataset(
        "synthetic", frame, analysed, domains=domains, roles=roles, target=target
    )
    return dataset.protect_first(m)


def fresh(view: Dataset) -> Dataset:
    """The same view with nothing computed yet (sorts, histograms) but its matrix."""
    copy = dataclasses.replace(view)
    copy.__dict__["protected_values"] = view.protected_values
    return copy


def shortest(call: Callable[[], Any], repeats: int, long_s: float) -> float:
    """The shortest of ``repeats`` timings of ``call``, stopping after one above
    ``long_s`` seconds."""
    times: list[float] = []
    for _ in range(repeats):
        clock = time.perf_counter()
        call()
        times.append(time.perf_counter() - clock)
        if times[-1] > long_s:
            break
    return min(times)


@dataclass
class Row:
    """One measured case and size."""

    case: Case
    n: int
    m: int
    params: dict[str, float]
    cost: Cost
    measured: float
    units: float = field(init=False)

    def __post_init__(self) -> None:
        self.units = self.cost.units(n=self.n, m=self.m, **self.params)

    @property
    def predicted(self) -> float:
        return self.cost.fixed + self.cost.seconds * self.units


def cost_of(case: Case) -> Cost:
    return METHODS[case.name].cost if case.kind == "method" else METRICS[case.name].cost


def releaser(metric: str) -> str:
    """The method whose release a metric is measured on: one with the partition it
    needs (``ir`` per attribute, ``imdav`` per record), else ``laplace``."""
    requires = METRICS[metric].requires
    if "record_partition" in requires or "quasi_identifier" in requires:
        return "imdav"
    return "ir" if "clusters" in requires else "laplace"


def measure(case: Case, index: int, n: int, m: int, repeats: int, long_s: float) -> float:
    """Seconds of one release (method) or value (metric) of ``case`` at ``(n, m)``."""
    params = case.params(index)
    rng = np.random.default_rng(0)
    if case.kind == "method":
        method = make_method(case.name, params)
        method.release(synthetic(WARMUP_N, m, case.data), rng)
        data = synthetic(n, m, case.data)
        return shortest(lambda: method.release(fresh(data), rng), repeats, long_s)
    metric = METRICS[case.name]
    method = make_method(releaser(case.name), params)
    cell = Cell(method.name, (("epsilon", 1.0),), "synthetic", 1)
    data = synthetic(n, m, case.data)

    def released(view: Dataset) -> Any:
        if "control" in metric.requires:
            return release_held_out(view, method, 0.5, 0, cell.id, 0)
        return method.release(view, rng)

    small = synthetic(WARMUP_N, m, case.data)
    metric.of_release(small, released(small), np.random.default_rng(1))
    view = fresh(data)
    release = released(view)
    return shortest(
        lambda: metric.of_release(view, release, np.random.default_rng(1)), repeats, long_s
    )


def job_overhead(jobs: int = 400, n: int = 200, m: int = 4) -> tuple[float, float]:
    """Seconds per job of a batch of ``jobs`` cheap ones (``laplace``, metric ``re``) on
    ``n`` records less their declared method and metric costs, and the declared
    :data:`~anonlab.runner.plan.JOB_SECONDS`."""
    data = synthetic(n, m)
    cell = Cell("laplace", (("epsilon", 1.0),), data.name, 1)
    batch = [(0, cell, rep) for rep in range(jobs)]
    run_batch(data, batch[:5], 0, ["re"], [])
    clock = time.perf_counter()
    run_batch(data, batch, 0, ["re"], [])
    per_job = (time.perf_counter() - clock) / jobs
    sizes = {"n": n, "m": m, "epsilon": 1.0}
    declared = METHODS["laplace"].cost.of(**sizes) + METRICS["re"].cost.of(**sizes)
    return per_job - declared, plan.JOB_SECONDS


def fitted(rows: Sequence[Row]) -> tuple[float, float]:
    """The constant (and, with a declared fixed part, the fixed seconds) fitted to
    ``rows``: the geometric mean of seconds per unit, or least squares of both."""
    cost = rows[0].cost
    if cost.fixed and len({r.units for r in rows}) > 1:
        units = np.array([r.units for r in rows])
        seconds = np.array([r.measured for r in rows])
        (slope, fixed), *_ = np.linalg.lstsq(np.column_stack([units, np.ones_like(units)]), seconds)
        if slope > 0 and fixed >= 0:
            return float(slope), float(fixed)
    ratios = [r.measured / r.units for r in rows if r.units > 0]
    return math.exp(statistics.fmean(map(math.log, ratios))), 0.0


def seconds_text(seconds: float) -> str:
    return f"{seconds:.4f}" if seconds < 10 else f"{seconds:.1f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", help="methods and metrics to measure")
    parser.add_argument("--quick", action="store_true", help="two small sizes each")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long", type=float, default=2.0, help="one timing above this (s)")
    parser.add_argument("--tables", action="store_true", help="also time the audit tables")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or c.name in args.only]
    if "mst" in [c.name for c in cases] or "aim" in [c.name for c in cases]:
        try:
            import mbi  # noqa: F401
        except ImportError:
            cases = [c for c in cases if c.name not in ("mst", "aim")]
            print("mst, aim: skipped (pip install -e '.[synth]')")
    header = (
        f"{'component':<32}{'formula':<28}{'n':>10}{'m':>3} {'params':<10}"
        f"{'measured s':>11}{'predicted s':>12}{'ratio':>7}"
    )
    print(header, flush=True)
    summary: list[tuple[Case, list[Row]]] = []
    for case in cases:
        sizes = QUICK_SIZES[case.kind] if args.quick and not case.changes else case.sizes
        rows = []
        for index, (n, m) in enumerate(sizes):
            try:
                seconds = measure(case, index, n, m, args.repeats, args.long)
            except Exception as error:  # a metric undefined on this data: said, skipped
                print(f"{case.kind} {case.name}: n={n} m={m} not measured ({error})")
                continue
            row = Row(case, n, m, case.params(index), cost_of(case), seconds)
            rows.append(row)
            changes = case.changes[index] if case.changes else {}
            changed = ",".join(f"{k}={v:g}" for k, v in changes.items())
            print(
                f"{case.kind + ' ' + case.name:<32}{row.cost.formula:<28}{n:>10,}{m:>3} "
                f"{changed:<10}{seconds_text(seconds):>11}{seconds_text(row.predicted):>12}"
                f"{row.predicted / seconds:>7.2f}",
                flush=True,
            )
        if rows:
            summary.append((case, rows))
    print()
    print(
        f"{'component':<32}{'formula':<28}{'declared':>10}{'fitted':>10}"
        f"{'fixed':>7}{'fitted':>7}  predicted/measured"
    )
    worst = []
    for case, rows in summary:
        constant, fixed = fitted(rows)
        ratios = [r.predicted / r.measured for r in rows]
        worst.extend(ratios)
        cost = rows[0].cost
        print(
            f"{case.kind + ' ' + case.name:<32}{cost.formula:<28}{cost.seconds:>10.2e}"
            f"{constant:>10.2e}{cost.fixed:>7.2g}{fixed:>7.2g}  "
            f"{min(ratios):.2f}–{max(ratios):.2f}"
        )
    if worst:
        spread = max(max(worst), 1 / min(worst))
        print(f"\nevery prediction within a factor of {spread:.2f} of its measurement")
    if not args.only:
        overhead, declared = job_overhead()
        print(f"job overhead: {overhead * 1000:.2f} ms measured, {declared * 1000:.2f} ms declared")
    if args.tables:
        from anonlab.experiments import arena

        for name in ("audited_epsilon", "floating_point", "attack"):
            builder = getattr(arena, name)
            clock = time.perf_counter()
            builder(None, n_jobs=1)
            took = time.perf_counter() - clock
            print(f"table {name}: {took:.1f} s measured, {plan.table_seconds(builder)} declared")


if __name__ == "__main__":
    main()
