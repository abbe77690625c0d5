"""Time one release of every method family at 10⁴–10⁶ records: seconds, peak memory and
how the time grows with n.

Usage: ``python benchmarks/timings/bench_scale.py [--families laplace ir mdav idp
tcloseness] [--methods M] [--sizes 10000 100000 1000000] [--quadratic-sizes 10000 30000
100000] [--repeats 3] [--long 60] [--timeout S] [--json results.json] [--quick]``

Families, with the registry's methods (``anonlab list``) and their parameters:

* ``laplace``: plain Laplace noise, m = 13, ε = 1;
* ``ir``: individual ranking ``ir`` and ``ir_laplace``, m = 13, k = 10 (ε = 1);
* ``mdav``: ``mdav`` (quadratic in n) and insensitive MDAV ``imdav_laplace`` (linear),
  m = 7, k = 5 (ε = 1);
* ``idp``: ``dp_um``, ``idp_ls``, ``idp_cbls``, m = 7, k = 10, ε = 1;
* ``tcloseness``: TCM Algorithms 1–3 ``tclose_merge``, ``tclose_kfirst``,
  ``tclose_tfirst`` (MDAV-based, quadratic), 7 quasi-identifiers + 1 confidential
  attribute, k = 5, t = 0.1.

Linear methods are measured at ``--sizes``; quadratic ones at ``--quadratic-sizes``, and
their time at every larger size of ``--sizes`` is extrapolated from the growth exponent
(printed as such, not measured). The growth exponent of a row is the slope of log time
against log n from the previous measured size, so the row of the largest measured size
carries the exponent between the two largest sizes.

Data: synthetic with a fixed seed, the arrays of ``bench_mdav.py`` (gamma columns rounded
to one decimal, so values tie) and, for t-closeness, those of ``bench_tcloseness_alg12.py``
(7 integer-coded quasi-identifiers, charges with about 300 distinct values); every domain
declared as [0, 1.5·max]. The data set is built by ``anonlab.datasets.build_dataset``, the
function :func:`anonlab.protect` builds its view with.

Each (method, n) runs in a fresh process (this script with ``--one``): numba and NumPy
allocate partly outside tracemalloc's view, so memory is read from the operating system.
That process compiles (or loads the cache of) the method's kernels on a tiny warm-up
release, builds the data set, resets the peak RSS (``/proc/self/clear_refs``), then runs
``--repeats`` releases (stopping early, after at least one, once they have taken over
``--long`` seconds: one release at the largest sizes of a long run), each on a fresh view
of the same data so that no sort or histogram is reused. Time is the wall clock of
``method.release`` (protection plus the guarantee check: the smallest cluster, the largest
EMD), the median over the repeats; "protect" is the protection alone, "cpu" the release's
processor time. Peak extra memory is ``ru_maxrss`` after the releases minus the RSS just
after building the data set, in MiB and as a multiple of the data's own float64 array (n ×
columns × 8 bytes). One core (the BLAS and OpenMP thread counts are set to 1)."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from anonlab.datasets import Dataset, build_dataset  # noqa: E402
from anonlab.methods import make_method  # noqa: E402
from benchmarks.timings.bench_mdav import synthetic as gamma_values  # noqa: E402
from benchmarks.timings.bench_tcloseness_alg12 import synthetic as discharge_like  # noqa: E402

MIB = 2**20
WARMUP_N = 400  # records of the warm-up release that compiles the kernels
BLOCK = 10_000  # records per block in the note on blocked MDAV


@dataclass(frozen=True)
class Case:
    """One method as benchmarked: its family, parameters and data."""

    family: str
    method: str
    params: dict[str, float] = field(default_factory=dict)
    m: int = 7  # protected attributes (quasi-identifiers for t-closeness)
    data: str = "gamma"  # "gamma", or "discharge": 7 quasi-identifiers + 1 confidential
    quadratic: bool = False

    @property
    def columns(self) -> int:
        """Columns of the data's float64 array."""
        return self.m + (self.data == "discharge")

    @property
    def shape(self) -> str:
        return f"{self.m}+1" if self.data == "discharge" else str(self.m)

    @property
    def setting(self) -> str:
        """ε or t, as printed."""
        if "t" in self.params:
            return f"t={self.params['t']:g}"
        return f"ε={self.params['epsilon']:g}" if "epsilon" in self.params else ""


EPS = {"epsilon": 1.0}
CASES: tuple[Case, ...] = (
    Case("laplace", "laplace", EPS, m=13),
    Case("ir", "ir", {"k": 10}, m=13),
    Case("ir", "ir_laplace", {"k": 10, **EPS}, m=13),
    Case("mdav", "mdav", {"k": 5}, quadratic=True),
    Case("mdav", "imdav_laplace", {"k": 5, **EPS}),
    Case("idp", "dp_um", {"k": 10, **EPS}),
    Case("idp", "idp_ls", {"k": 10, **EPS}),
    Case("idp", "idp_cbls", {"k": 10, **EPS}),
    *(
        Case("tcloseness", name, {"k": 5, "t": 0.1}, data="discharge", quadratic=True)
        for name in ("tclose_merge", "tclose_kfirst", "tclose_tfirst")
    ),
)
FAMILIES = tuple(dict.fromkeys(case.family for case in CASES))
CASE_OF = {case.method: case for case in CASES}


def synthetic_dataset(case: Case, n: int) -> Dataset:
    """``n`` synthetic records for ``case``, every domain declared as [0, 1.5·max]."""
    if case.data == "discharge":
        qi, charges = discharge_like(n)
        values = np.column_stack([qi, charges])
        names = [f"q{j}" for j in range(qi.shape[1])] + ["charge"]
        roles = {**dict.fromkeys(names[:-1], "quasi_identifier"), "charge": "confidential"}
    else:
        values = gamma_values(n, case.m)
        names = [f"a{j}" for j in range(case.m)]
        roles = None
    frame = pd.DataFrame(values, columns=names)
    domains = {
        name: [0.0, 1.5 * float(high)] for name, high in zip(names, values.max(0), strict=True)
    }
    dataset = build_dataset("synthetic", frame, names, domains=domains, roles=roles)
    return dataset.protect_first(case.m)


def fresh_view(dataset: Dataset) -> Dataset:
    """The same view with nothing computed yet (sorts, histograms) but its float matrix,
    which is the data's, not the method's."""
    view = dataclasses.replace(dataset)
    view.__dict__["protected_values"] = dataset.protected_values  # a cached property
    return view


def current_rss() -> int:
    """Resident set size of this process now, in bytes (/proc/self/statm)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak_rss() -> int:
    """Peak resident set size of this process, in bytes (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def reset_peak_rss() -> bool:
    """Set the peak RSS to the current RSS (Linux ≥ 4.0), so that the warm-up's
    compilation does not count; whether it could."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def measure_one(case: Case, n: int, repeats: int, long_s: float, seed: int = 0) -> dict[str, Any]:
    """Time ``repeats`` releases of ``case`` on ``n`` records, in this process."""
    method = make_method(case.method, case.params)
    method.release(synthetic_dataset(case, WARMUP_N), np.random.default_rng(seed))
    dataset = synthetic_dataset(case, n)
    _ = dataset.protected_values
    gc.collect()
    reset = reset_peak_rss()
    baseline = current_rss()
    release_s, protect_s, cpu_s = [], [], []
    for repeat in range(repeats):
        view = fresh_view(dataset)
        clock, cpu = time.perf_counter(), time.process_time()
        released = method.release(view, np.random.default_rng(seed + repeat))
        release_s.append(time.perf_counter() - clock)
        cpu_s.append(time.process_time() - cpu)
        protect_s.append(released.seconds)
        del released, view
        if sum(release_s) > long_s:
            break
    return {
        "method": case.method,
        "n": n,
        "repeats": len(release_s),
        "release_s": statistics.median(release_s),
        "protect_s": statistics.median(protect_s),
        "cpu_s": statistics.median(cpu_s),
        "all_release_s": release_s,
        "peak_extra_bytes": peak_rss() - baseline,
        "baseline_bytes": baseline,
        "data_bytes": n * case.columns * 8,
        "peak_reset": reset,
    }


def run_child(
    case: Case, n: int, repeats: int, long_s: float, timeout: float | None = None
) -> dict[str, Any]:
    """:func:`measure_one` in a fresh Python process; an ``error`` entry if it failed or
    took over ``timeout`` seconds."""
    spec = json.dumps({"method": case.method, "n": n, "repeats": repeats, "long": long_s})
    try:
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--one", spec],
            capture_output=True,
            text=True,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"method": case.method, "n": n, "error": f"over the {timeout:g} s timeout"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"method": case.method, "n": n, "error": f"exit {done.returncode}: {tail}"}
    return json.loads(lines[-1])


def seconds_text(seconds: float) -> str:
    """Seconds to the millisecond below 10 s, to the tenth below 1,000 s, whole above."""
    return (
        f"{seconds:.3f}"
        if seconds < 10
        else (f"{seconds:.1f}" if seconds < 1000 else f"{seconds:,.0f}")
    )


def exponent(small: dict[str, Any], large: dict[str, Any]) -> float:
    """Slope of log time against log n between two measured rows."""
    return math.log(large["release_s"] / small["release_s"]) / math.log(large["n"] / small["n"])


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            model = next(
                (line.split(":", 1)[1].strip() for line in info if line.startswith("model name")),
                model,
            )
    except OSError:
        pass
    import numba

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"machine: {model}; {os.cpu_count()} CPUs ({usable} usable), load {load}\n"
        f"python {platform.python_version()}, numpy {np.__version__}, numba "
        f"{numba.__version__}, pandas {pd.__version__}; OMP_NUM_THREADS="
        f"{os.environ['OMP_NUM_THREADS']} OPENBLAS_NUM_THREADS="
        f"{os.environ['OPENBLAS_NUM_THREADS']}"
    )


HEADER = (
    f"{'family':<11}{'method':<15}{'n':>9} {'m':>4}{'k':>4} {'ε/t':<6}"
    f"{'seconds':>11}{'protect':>9}{'cpu':>9}{'reps':>5}{'peak MiB':>10}{'× data':>8}"
    f"{'exponent':>9}"
)


def row(
    case: Case,
    n: int,
    seconds: str,
    protect: str = "",
    cpu: str = "",
    reps: str = "",
    mib: str = "",
    multiple: str = "",
    slope: str = "",
) -> str:
    return (
        f"{case.family:<11}{case.method:<15}{n:>9,} {case.shape:>4}"
        f"{case.params.get('k', ''):>4} {case.setting:<6}{seconds:>11}{protect:>9}{cpu:>9}"
        f"{reps:>5}{mib:>10}{multiple:>8}{slope:>9}"
    )


def bench_case(
    case: Case,
    sizes: Sequence[int],
    quadratic_sizes: Sequence[int],
    repeats: int,
    long_s: float,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Measure ``case`` at its sizes, print one row per size (extrapolated ones marked)
    and return what the summary needs."""
    measured_sizes = sorted(set(quadratic_sizes if case.quadratic else sizes))
    rows: list[dict[str, Any]] = []
    for n in measured_sizes:
        result = run_child(case, n, repeats, long_s, timeout)
        if "error" in result:
            print(row(case, n, "failed") + f"  {result['error']}", flush=True)
            continue
        slope = exponent(rows[-1], result) if rows else None
        result["exponent"] = slope
        rows.append(result)
        print(
            row(
                case,
                n,
                seconds_text(result["release_s"]),
                seconds_text(result["protect_s"]),
                seconds_text(result["cpu_s"]),
                str(result["repeats"]),
                f"{result['peak_extra_bytes'] / MIB:.1f}",
                f"{result['peak_extra_bytes'] / result['data_bytes']:.2f}",
                "" if slope is None else f"{slope:.2f}",
            )
            + ("" if result["peak_reset"] else "  (peak RSS not reset: includes warm-up)"),
            flush=True,
        )
    extrapolated = []
    slope = rows[-1]["exponent"] if rows else None
    if case.quadratic and slope is not None:
        last = rows[-1]
        for n in sorted(set(sizes)):
            if n > last["n"]:
                seconds = last["release_s"] * (n / last["n"]) ** slope
                extrapolated.append({"n": n, "release_s": seconds})
                print(
                    row(case, n, f"~{seconds_text(seconds)}")
                    + f"  extrapolated (exponent {slope:.2f} from n={rows[-2]['n']:,}.."
                    f"{last['n']:,})",
                    flush=True,
                )
    return {"case": case, "measured": rows, "extrapolated": extrapolated, "exponent": slope}


def summary(results: Sequence[dict[str, Any]]) -> None:
    print(
        "\nsummary (exponent between the two largest measured sizes; time at the largest "
        "size, measured or extrapolated):"
    )
    for result in results:
        case, rows = result["case"], result["measured"]
        if not rows:
            print(f"  {case.method:<15} no measurement")
            continue
        last = (result["extrapolated"] or rows)[-1]
        kind = "extrapolated" if result["extrapolated"] else "measured"
        slope = "n/a" if result["exponent"] is None else f"{result['exponent']:.2f}"
        largest = rows[-1]
        print(
            f"  {case.method:<15} exponent {slope:>5}; n={last['n']:,}: "
            f"{seconds_text(last['release_s'])} s ({kind}); peak extra memory at "
            f"n={largest['n']:,}: "
            f"{largest['peak_extra_bytes'] / MIB:.0f} MiB "
            f"({largest['peak_extra_bytes'] / largest['data_bytes']:.1f}× the data)"
        )
    quadratic = [r for r in results if r["case"].quadratic and r["measured"]]
    if quadratic:
        note = (
            "Quadratic methods (MDAV and TCM Algorithms 1-3: one distance pass over the "
            "remaining records per cluster): what would make 10⁶ finish in minutes is "
            f"partitioning the records into blocks of about {BLOCK:,} (e.g. sorted on the "
            "first principal direction) and running the method inside each block, n/"
            f"{BLOCK:,} blocks at the cost of one, linear in n. That is a different "
            "algorithm (no cluster crosses a block, so other partitions; t-closeness held "
            "per block) and would be a separately named method."
        )
        print("\n" + textwrap.fill(note, width=100))
        for result in quadratic:
            at_block = [r for r in result["measured"] if r["n"] == BLOCK]
            target = max([r["n"] for r in result["extrapolated"]], default=None)
            if at_block and target:
                estimate = target / BLOCK * at_block[0]["release_s"]
                print(
                    f"  {result['case'].method}: in blocks of {BLOCK:,}, n={target:,} would "
                    f"take about {target // BLOCK} × {at_block[0]['release_s']:.2f} s = "
                    f"{seconds_text(estimate)} s"
                )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    parser.add_argument(
        "--methods", nargs="+", choices=list(CASE_OF), help="only these methods (within --families)"
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        help="sizes of the linear methods, and those the quadratic ones are "
        "extrapolated to (default 10⁴ 10⁵ 10⁶)",
    )
    parser.add_argument(
        "--quadratic-sizes",
        type=int,
        nargs="+",
        help="sizes measured for the quadratic methods (default 10⁴ 3·10⁴ 10⁵)",
    )
    parser.add_argument(
        "--repeats", type=int, help="releases per size, median (default 3, 1 with --quick)"
    )
    parser.add_argument(
        "--long",
        type=float,
        default=60.0,
        help="stop repeating once the releases of a size took this many seconds (default 60)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes only (2·10³ 5·10³ 2·10⁴, quadratic 2·10³ 5·10³), a smoke check",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        help="give up on a (method, n) after this many seconds (default none)",
    )
    parser.add_argument("--json", help="also write the measurements to this file")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        spec = json.loads(args.one)
        print(
            json.dumps(
                measure_one(CASE_OF[spec["method"]], spec["n"], spec["repeats"], spec["long"])
            )
        )
        return
    sizes = args.sizes or ([2_000, 5_000, 20_000] if args.quick else [10_000, 100_000, 1_000_000])
    quadratic_sizes = args.quadratic_sizes or (
        [2_000, 5_000] if args.quick else [10_000, 30_000, 100_000]
    )
    repeats = args.repeats or (1 if args.quick else 3)
    cases = [
        case
        for case in CASES
        if case.family in args.families and (not args.methods or case.method in args.methods)
    ]
    print(machine())
    legend = (
        f"sizes {sizes} (quadratic methods measured at {quadratic_sizes}, extrapolated "
        f"beyond); median of {repeats} release(s), fewer past {args.long:g} s. seconds: "
        "method.release (wall clock); protect: the protection alone; cpu: the release's "
        "processor time (less sensitive to other load on the machine); peak MiB: peak "
        "RSS over the data set's; × data: that over n × columns × 8 bytes; exponent: "
        "slope of log seconds against log n from the previous size."
    )
    print(textwrap.fill(legend, width=100) + "\n")
    print(HEADER)
    clock = time.perf_counter()
    results = [
        bench_case(case, sizes, quadratic_sizes, repeats, args.long, args.timeout) for case in cases
    ]
    summary(results)
    print(f"\ntotal wall time {time.perf_counter() - clock:.0f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(
                [
                    {
                        "family": r["case"].family,
                        "method": r["case"].method,
                        "params": r["case"].params,
                        "m": r["case"].m,
                        "measured": r["measured"],
                        "extrapolated": r["extrapolated"],
                    }
                    for r in results
                ],
                out,
                indent=1,
            )


if __name__ == "__main__":
    main()
