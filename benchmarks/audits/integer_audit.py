"""Audit every method and release form on whole-number data, with and without the
``integer`` declaration: does "every released value is whole" tell neighbours apart?

Usage: ``python benchmarks/audits/integer_audit.py [--runs 200] [--seed 0] [--n 30]``

D holds ``n`` whole numbers in [0, 100] (declared bounds), one protected attribute. Each
method in each form it offers is released ``runs`` times from D and from a neighbour D′
through :func:`anonlab.protect` with the library's defaults (discrete sampler, fresh
ChaCha20 randomness), under three schemas:

- ``inferred``: ``integer="data"``, whole numbers read off the data (what every release
  did before the declaration existed); D′ sets one value to 50.5;
- ``undeclared``: the default, nothing rounded; D′ sets one value to 50.5;
- ``declared``: ``integer=True``; D′ sets that value to 51 (a fraction contradicts the
  public schema and is refused).

The event S is "every released value is whole". The bound is the larger of the two
one-sided bounds ln(P_D[S]/P_D′[S]) and ln(P_D′[S]/P_D[S]), each from Clopper–Pearson
bounds at error 0.0125 (Bonferroni: 95 % jointly for the pair). A label with ε (the
guarantee's ``notion_epsilon``) is contradicted when the bound exceeds it; the script
prints ``CONTRADICTED`` then and exits 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np
import pandas as pd

import anonlab
from anonlab.audit.bounds import epsilon_lower_bound
from anonlab.methods import METHODS

#: the design: values in [0, HIGH], the record D′ moves, its value there
HIGH = 100.0
FRACTION = 50.5
WHOLE = 51.0
#: each one-sided bound's error (two directions: 95 % jointly)
BETA = 0.0125
#: the parameters every method is released with
PARAMS = {"k": 3, "epsilon": 1.0, "t": 0.5}
SCHEMAS = ("inferred", "undeclared", "declared")


def design(n: int, seed: int) -> pd.DataFrame:
    """D: ``n`` whole numbers in [0, HIGH], none equal to :data:`FRACTION`'s floor."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.integers(0, int(HIGH) + 1, n).astype(float)})


def neighbour(frame: pd.DataFrame, schema: str) -> pd.DataFrame:
    """D′: record 0 set to a fraction, or (declared schema) to another whole number."""
    other = frame.copy()
    other.loc[0, "x"] = WHOLE if schema == "declared" else FRACTION
    return other


def cases() -> list[tuple[str, str]]:
    """Every registered method (but the unprotected ``original``) in every form."""
    return [
        (name, form)
        for name, cls in sorted(METHODS.items())
        if name != "original"
        for form in cls.forms
    ]


def audit_case(
    name: str, form: str, schema: str, frame: pd.DataFrame, runs: int
) -> dict[str, object]:
    """One row: the event's frequency on D and D′, the bound and the label."""
    cls = METHODS[name]
    params = {p: v for p, v in PARAMS.items() if p in cls.axes}
    integer = {"inferred": "data", "undeclared": None, "declared": True}[schema]
    options = {"domains": {"x": [0.0, HIGH]}, "integer": integer, "form": form, **params}
    if cls.needs_roles:
        return {}
    hits, label = [], None
    for data in (frame, neighbour(frame, schema)):
        whole = 0
        for _ in range(runs):
            released = anonlab.protect(data, name, ["x"], **options)
            values = released["x"].to_numpy(dtype=float)
            whole += bool(np.all(values == np.round(values)))
            label = label or released.attrs["guarantee"]
        hits.append(whole)
    bound = max(
        float(epsilon_lower_bound(hits[0], runs, hits[1], runs, BETA)),
        float(epsilon_lower_bound(hits[1], runs, hits[0], runs, BETA)),
    )
    eps = label["notion_epsilon"]
    return {
        "method": name,
        "form": form,
        "schema": schema,
        "P_D[whole]": hits[0] / runs,
        "P_D'[whole]": hits[1] / runs,
        "eps_lower_95": round(bound, 2),
        "label": label["notion"] + (f" ({eps:g})" if eps is not None else ""),
        "contradicted": eps is not None and bound > eps,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--methods", nargs="*", default=None, help="only these methods")
    parser.add_argument("--skip", nargs="*", default=[], help="leave these methods out")
    args = parser.parse_args(argv)
    frame = design(args.n, args.seed)
    rows = []
    clock = time.perf_counter()
    for name, form in cases():
        if (args.methods and name not in args.methods) or name in args.skip:
            continue
        for schema in SCHEMAS:
            try:
                row = audit_case(name, form, schema, frame, args.runs)
            except ImportError as error:  # mst, aim without the synth extra
                print(f"note: {name} left out: {error}", file=sys.stderr)
                break
            if row:
                rows.append(row)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(table.to_string(index=False))
    print(
        f"\n{len(table)} rows, {args.runs} releases of D and of D' each, "
        f"{time.perf_counter() - clock:.0f} s"
    )
    bad = table[table["contradicted"]]
    if len(bad):
        print("CONTRADICTED:", bad[["method", "form", "schema"]].to_dict("records"))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
