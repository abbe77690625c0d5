"""Cross-check anonlab's attack-based risks against anonymeter 1.0.0 itself (Giomi et al.
2023), on the same training, control and released records.

Usage: ``python benchmarks/crosschecks/crosscheck_anonymeter.py [--dataset census_arena]
[--methods original laplace ir_laplace mdav idp_cbls mst] [--n-attacks 500] [--seed 0]
[--max-attempts 5000]``

anonlab's side splits the data set into training and control halves, runs each method on
the training half (the arena's k, ε = 1), measures the four attacks (singling out,
multivariate and univariate; linkability on the attributes' two halves; inference of
each confidential attribute from the quasi-identifiers) and writes the records and its
numbers to a temporary folder. The same script, run with ``--external FOLDER`` under an
environment of its own (``crosscheck_env``: anonymeter pins numpy < 1.27), imports only
pandas and anonymeter, runs its evaluators with the same ``n_attacks``, ``n_cols`` and
auxiliary columns, and writes its residual risks (unclipped, with their 95 % error) as
JSON. anonlab's side then prints both and their difference, then both sides' baseline
(random-guess) success rates, anonlab's asked for with ``baseline=True``.

Both are randomised attacks (their own target samples and predicates), so they agree
when the difference lies within the two intervals combined, √(e₁² + e₂²); the table marks
each row. Expected departures: where a release repeats records (``mdav``, k = 5, and
clusters of ``idp_cbls``), anonlab scores ties as a random pick among the tied nearest
records, anonymeter as the first index its sort returns. Both multivariate searches stop
after ``--max-attempts`` candidates (5,000 by default: anonymeter evaluates one pandas
query per candidate, about 10 ms, and a release whose records are rarely unique, such as
Laplace noise clipped to the domain, yields none in 200,000).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

HERE = Path(__file__).resolve()
#: the anonymeter environment (``crosscheck_env.environment``)
REQUIREMENTS = ["anonymeter==1.0.0"]
ATTACKS = ("singling_out_multivariate", "singling_out_univariate", "linkability", "inference")


def external(folder: Path) -> None:
    """anonymeter's side: read the cases, run its evaluators, write ``anonymeter.json``."""
    import numpy as np
    import pandas as pd
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
        singling_out_evaluator,
    )
    from anonymeter.stats.confidence import residual_success

    spec = json.loads((folder / "spec.json").read_text())
    out = {}
    for case in spec["cases"]:
        np.random.seed(spec["seed"])  # noqa: NPY002 (pandas sample() draws from it)
        singling_out_evaluator.rng = np.random.default_rng(spec["seed"])
        read = {
            p: pd.read_csv(folder / f"{case['name']}.{p}.csv")
            for p in ("train", "control", "release")
        }
        ori, ctrl, syn = read["train"], read["control"], read["release"]
        n = spec["n_attacks"]
        found = {}
        for mode in ("multivariate", "univariate"):
            evaluator = SinglingOutEvaluator(
                ori=ori,
                syn=syn,
                control=ctrl,
                n_attacks=n,
                n_cols=spec["n_cols"],
                max_attempts=spec["max_attempts"],
            ).evaluate(mode=mode)
            found[f"singling_out_{mode}"] = evaluator.results()
        n_link = min(n, len(ori), len(ctrl))
        found["linkability"] = (
            LinkabilityEvaluator(
                ori=ori,
                syn=syn,
                control=ctrl,
                n_attacks=n_link,
                aux_cols=tuple(spec["halves"]),
                n_neighbors=1,
            )
            .evaluate(n_jobs=1)
            .results()
        )
        inferences = [
            InferenceEvaluator(
                ori=ori, syn=syn, control=ctrl, aux_cols=aux, secret=secret, n_attacks=n_link
            )
            .evaluate(n_jobs=1)
            .results()
            for secret, aux in spec["inference"]
        ]
        found["inference"] = inferences
        row = {}
        for attack, results in found.items():
            results = results if isinstance(results, list) else [results]
            residuals = [residual_success(r.attack_rate, r.control_rate) for r in results]
            row[attack] = {
                "residual": float(np.mean([r.value for r in residuals])),
                "error": float(np.mean([r.error for r in residuals])),
                "main": float(np.mean([r.attack_rate.value for r in results])),
                "control": float(np.mean([r.control_rate.value for r in results])),
                "baseline": float(np.mean([r.baseline_rate.value for r in results])),
                "baseline_error": float(np.mean([r.baseline_rate.error for r in results])),
            }
        out[case["name"]] = row
        print(f"anonymeter: {case['name']} done", file=sys.stderr, flush=True)
    (folder / "anonymeter.json").write_text(json.dumps(out, indent=1))


def anonlab_side(args: argparse.Namespace, folder: Path) -> dict:
    """Write the cases' records and ``spec.json``; return anonlab's numbers per case."""
    import numpy as np
    import pandas as pd

    from anonlab.config import compose_config
    from anonlab.datasets import load_dataset
    from anonlab.metrics import attacks
    from anonlab.metrics.base import control_split
    from anonlab.release import Release
    from benchmarks.audits.attack_risks import METHODS, release_of

    attacks.MAX_ATTEMPTS = args.max_attempts  # the same search budget as anonymeter's
    view = load_dataset(compose_config(f"dataset={args.dataset}")["dataset"])
    train_rows, control_rows = control_split(view.n, 0.5, np.random.default_rng(args.seed))
    training, control = view.rows(train_rows), view.rows(control_rows)
    names = list(view.protected)
    first, second = attacks._halves(len(names))
    spec = {
        "seed": args.seed,
        "n_attacks": args.n_attacks,
        "n_cols": min(attacks.N_COLS, len(names)),
        "max_attempts": args.max_attempts,
        "halves": [[names[j] for j in first], [names[j] for j in second]],
        "inference": [
            [names[s], [names[j] for j in aux]] for s, aux in attacks.secrets_and_aux(view)
        ],
        "cases": [],
    }
    ours = {}
    for index, method in enumerate(args.methods):
        if method == "original":
            release = Release(training, training.protected_values)
        else:
            METHODS.setdefault(method, {})
            release = release_of(method, training, 1.0, args.seed, index)
        parts = (training.protected_values, control.protected_values, release.values)
        for part, values in zip(("train", "control", "release"), parts, strict=True):
            pd.DataFrame(values, columns=names).to_csv(folder / f"{method}.{part}.csv", index=False)
        rng = np.random.default_rng([args.seed, index, 1])
        attributes = view.protected_attributes
        held_out = Release(training, release.values, control=control)
        found = {
            "singling_out_multivariate": attacks.singling_out_attack(
                *parts, attributes, rng, "multivariate", args.n_attacks, baseline=True
            ),
            "singling_out_univariate": attacks.singling_out_attack(
                *parts, attributes, rng, "univariate", args.n_attacks, baseline=True
            ),
            "linkability": attacks.linkability_attack(
                *parts, attributes, rng, args.n_attacks, baseline=True
            ),
            "inference": attacks.mean_result(
                attacks.inference_attacks(view, held_out, rng, args.n_attacks, baseline=True)
            ),
        }
        ours[method] = {
            a: {
                "residual": r.residual,
                "error": r.error,
                "main": r.main_rate.value,
                "control": r.control_rate.value,
                "baseline": r.baseline_rate.value,
                "baseline_error": r.baseline_rate.error,
            }
            for a, r in found.items()
        }
        spec["cases"].append({"name": method})
    (folder / "spec.json").write_text(json.dumps(spec, indent=1))
    (folder / "anonlab.json").write_text(json.dumps(ours, indent=1))
    return ours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--external", type=Path, help="run anonymeter's side on FOLDER")
    parser.add_argument("--dataset", default="census_arena")
    parser.add_argument(
        "--methods",
        nargs="+",
        default=["original", "laplace", "ir_laplace", "mdav", "idp_cbls", "mst"],
    )
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-attempts", type=int, default=5000)
    args = parser.parse_args()
    if args.external is not None:
        external(args.external)
        return
    from benchmarks.crosschecks.crosscheck_env import environment, run_external

    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        ours = anonlab_side(args, folder)
        run_external(environment("anonymeter", REQUIREMENTS), HERE, "--external", str(folder))
        theirs = json.loads((folder / "anonymeter.json").read_text())
    print(
        f"\n{args.dataset}, ε = 1, n_attacks {args.n_attacks}, seed {args.seed}: residual risk "
        "(r_main − r_control)/(1 − r_control), unclipped, ± its 95 % error; "
        "main / control are Wilson success rates\n"
    )
    print("| method | attack | anonlab | anonymeter | difference | within CIs |")
    print("|---|---|---|---|---|---|")
    agree = total = 0
    for method, row in ours.items():
        for attack in ATTACKS:
            a, b = row[attack], theirs[method][attack]
            difference = a["residual"] - b["residual"]
            within = abs(difference) <= (a["error"] ** 2 + b["error"] ** 2) ** 0.5
            agree, total = agree + within, total + 1
            print(
                f"| {method} | {attack} | {a['residual']:+.3f} ± {a['error']:.3f} "
                f"({a['main']:.0%} / {a['control']:.0%}) | {b['residual']:+.3f} ± {b['error']:.3f} "
                f"({b['main']:.0%} / {b['control']:.0%}) | {difference:+.3f} | "
                f"{'yes' if within else 'NO'} |"
            )
    print(f"\n{agree} of {total} within the combined 95 % intervals")
    print("\nbaseline (random-guess) success rates, Wilson estimates ± their 95 % half-widths\n")
    print("| method | attack | anonlab | anonymeter | difference | within CIs |")
    print("|---|---|---|---|---|---|")
    agree = total = 0
    for method, row in ours.items():
        for attack in ATTACKS:
            a, b = row[attack], theirs[method][attack]
            difference = a["baseline"] - b["baseline"]
            within = abs(difference) <= (a["baseline_error"] ** 2 + b["baseline_error"] ** 2) ** 0.5
            agree, total = agree + within, total + 1
            print(
                f"| {method} | {attack} | {a['baseline']:.3f} ± {a['baseline_error']:.3f} | "
                f"{b['baseline']:.3f} ± {b['baseline_error']:.3f} | {difference:+.3f} | "
                f"{'yes' if within else 'NO'} |"
            )
    print(f"\n{agree} of {total} baseline rates within the combined 95 % intervals")


if __name__ == "__main__":
    main()
