"""The bracketing attack (anonlab.audit.attack): every bracket holds the true value (against
a brute-force reading of its definition, ties and colliding clusters included), brackets
narrow as k shrinks, each seed an independent child stream summarised by its median and
range, what it finds on Census, a shuffled release is not attacked, and the command's
one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.audit.attack import (
    attack_row,
    attackable_methods,
    bracketing_attack,
    brackets,
    load_named_dataset,
    plan_attack,
    protected_view,
    summarise,
)
from anonlab.audit.command import main
from anonlab.datasets import build_dataset


def reference(
    true: np.ndarray, released: np.ndarray, domain: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The brackets and whether records bound both sides, by the definition, one record at
    a time."""
    n = len(true)
    low, high = np.full(n, domain[0]), np.full(n, domain[1])
    both = np.zeros(n, dtype=bool)
    for i in range(n):
        mates = [j for j in range(n) if j != i and released[j] == released[i]]
        if not mates:
            continue
        others = [j for j in range(n) if j != i and j not in mates]
        below = [true[j] for j in others if true[j] < min(true[mates])]
        above = [true[j] for j in others if true[j] > max(true[mates])]
        low[i] = max(below) if below else domain[0]
        high[i] = min(above) if above else domain[1]
        both[i] = bool(below) and bool(above)
    return low, high, both


def ranked_release(true: np.ndarray, k: int, rng: np.random.Generator, values: int) -> np.ndarray:
    """Individual ranking of ``true`` (ties in random order, the last cluster taking the
    remainder) with each cluster's released value drawn from ``values`` levels, so that
    clusters collide."""
    order = np.lexsort((rng.random(len(true)), true))
    clusters = max(len(true) // k, 1)
    labels = np.empty(len(true), dtype=int)
    labels[order] = np.minimum(np.arange(len(true)) // k, clusters - 1)
    return rng.integers(0, values, clusters)[labels].astype(float)


@pytest.mark.parametrize("seed", range(40))
def test_brackets_match_their_definition_and_hold_the_truth(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(4, 40)), int(rng.integers(2, 6))
    k = min(k, n)
    true = rng.integers(0, 6, n).astype(float)  # many ties
    released = ranked_release(true, k, rng, values=int(rng.integers(1, 8)))
    found = brackets(true, released, (0.0, 10.0))
    low, high, both = reference(true, released, (0.0, 10.0))
    np.testing.assert_array_equal(found.low, low)
    np.testing.assert_array_equal(found.high, high)
    np.testing.assert_array_equal(found.both_by_records, both)
    assert found.violations(true) == 0


def test_a_tie_at_the_edge_of_the_mates_is_not_a_bound():
    # clusters {1, 5} and {5, 7}: the target 1's mate is a 5; the other 5 lies above,
    # so "<= min over M" would bracket 1 in [5, 5]
    true = np.array([1.0, 5.0, 5.0, 7.0])
    found = brackets(true, np.array([2.0, 2.0, 6.0, 6.0]), (0.0, 10.0))
    assert found.low[0] == 0.0 and not found.low_by_record[0]
    assert found.violations(true) == 0
    assert found.grouped.all()


def test_a_record_without_mates_has_the_domain():
    found = brackets(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 2.0]), (0.0, 4.0))
    assert (found.low[0], found.high[0]) == (0.0, 4.0) and not found.grouped[0]
    assert (found.low[1], found.high[1]) == (1.0, 4.0)  # mate 3: above it nothing


def synthetic(n: int = 300, seed: int = 0, integer: bool = False):
    """A skewed numerical data set, with ties when ``integer``, protected attribute ``a``
    (and ``b``)."""
    rng = np.random.default_rng(seed)
    values = rng.lognormal(3, 1, (n, 2))
    values = np.round(values) if integer else values
    frame = pd.DataFrame(values, columns=["a", "b"])
    return build_dataset("synthetic", frame, ["a", "b"], domains={"a": [0, 5000], "b": [0, 5000]})


@pytest.mark.parametrize("method", ["ir", "ir_laplace", "dp_um", "idp_ls", "idp_cbls"])
def test_every_release_of_every_method_is_bracketed_correctly(method):
    table = bracketing_attack(
        synthetic(120, integer=True),
        method=method,
        k=3,
        epsilon=[0.1, 1.0, 10.0, 1000.0],
        attribute="b",
        seeds=3,
    )
    assert len(table) == 12 and (table["violations"] == 0).all()
    assert table["applicable"].all() and (table["grouped"] == 120).all()


def test_brackets_narrow_as_k_shrinks():
    def median_width(k: int) -> float:
        # a large ε keeps clusters apart, so the brackets are the noise-free ones
        table = bracketing_attack(synthetic(), k=k, epsilon=1000.0, attribute="a", seeds=1)
        return float(table["median_width_pct"].iloc[0])

    medians = [median_width(k) for k in (2, 5, 10, 25)]
    assert medians == sorted(medians) and medians[0] < medians[-1] / 5


def test_the_noise_only_matters_through_colliding_values():
    data = synthetic()
    table = bracketing_attack(
        data, method="ir_laplace", k=10, epsilon=[10.0, 1000.0], attribute="a", seeds=3
    )
    noise_free = bracketing_attack(data, method="ir", k=10, epsilon=1.0, attribute="a", seeds=1)
    distinct = table["released_values"] == noise_free["released_values"].iloc[0]
    assert distinct.any()
    for _, row in table[distinct].iterrows():
        assert row["median_width_pct"] == noise_free["median_width_pct"].iloc[0]
        assert row["bracketed"] == noise_free["bracketed"].iloc[0]


def test_each_seed_is_a_child_stream_of_the_master_seed():
    data = synthetic(60)
    table = bracketing_attack(data, k=3, epsilon=[1.0, 3.0], attribute="a", seed=7, seeds=5)
    assert list(table["stream"]) == [0, 1, 2, 3, 4] * 2 and (table["seed"] == 7).all()
    plan = plan_attack(data, k=3, epsilon=3.0, attribute="a", seed=7, seeds=5)
    eps, method = plan.methods[0]
    for i in range(5):  # child i of SeedSequence(7) has spawn key (i,)
        child = np.random.SeedSequence(7, spawn_key=(i,))
        row = attack_row(plan, eps, method, i, child)
        assert row["share_bracketed"] == table["share_bracketed"].iloc[5 + i]
    assert table["median_width_pct"].nunique() > 1  # the streams differ
    again = bracketing_attack(data, "ir_laplace", 3, [1.0, 3.0], "a", None, 7, None, 5)
    pd.testing.assert_frame_equal(table, again)


def test_the_summary_is_the_median_and_range_over_the_seeds():
    rows = bracketing_attack(synthetic(60), k=3, epsilon=[1.0, 3.0], attribute="a", seeds=5)
    summary = summarise(rows)
    assert list(summary["epsilon"]) == [1.0, 3.0] and (summary["seeds"] == 5).all()
    for (_, row), (_, group) in zip(summary.iterrows(), rows.groupby("epsilon"), strict=True):
        for column in ("share_bracketed", "median_width_pct"):
            values = group[column]
            assert row[f"{column}_median"] == pytest.approx(np.median(values))
            assert (row[f"{column}_min"], row[f"{column}_max"]) == (values.min(), values.max())
        assert row["violations"] == group["violations"].sum() == 0


def test_the_attacked_attribute_is_protected_with_the_first_others():
    census = load_named_dataset("census")
    assert protected_view(census, "FICA", 1).protected == ("FICA",)
    assert protected_view(census, "AFNLWGT", 8).protected == census.protect_first(8).protected
    eight = protected_view(census, "FICA", 8).protected
    assert len(eight) == 8 and "FICA" in eight and eight[:7] == census.protect_first(7).protected


def test_census_at_the_papers_epsilons():
    # 20 releases per ε (the child streams of seed 0), FICA alone (m = 1) and with the 12
    # other attributes (m = 13, the budget ε/13 each)
    alone = summarise(bracketing_attack(m=1)).set_index("epsilon")
    every = summarise(bracketing_attack()).set_index("epsilon")
    for table in (alone, every):
        assert (table["n"] == 1080).all() and (table["seeds"] == 20).all()
        assert (table["violations"] == 0).all()
    # measured: m = 1, share 0.75 / 0.95 / 0.95 (median), widths 1.67 / 1.22 / 1.22 %;
    # m = 13, share 0.46 (0.05-0.72) / 0.75 (0.60-0.95) / 0.95, widths 40.7 / 1.95 / 1.22 %.
    # Clipping to the domain merges the clusters whose noisy value leaves it, more of them
    # at small ε and under m = 13's smaller budget
    assert (alone.loc[[1.0, 10.0], "share_bracketed_median"] >= 0.9).all()
    assert (alone.loc[[1.0, 10.0], "median_width_pct_median"] <= 1.5).all()
    assert 0.6 <= every.loc[1.0, "share_bracketed_median"] <= 0.9
    assert every.loc[1.0, "share_bracketed_max"] - every.loc[1.0, "share_bracketed_min"] >= 0.2
    assert every.loc[1.0, "median_width_pct_median"] <= 5.0
    assert every.loc[10.0, "share_bracketed_median"] >= 0.85
    assert every.loc[10.0, "median_width_pct_max"] <= 2.0
    assert every.loc[0.1, "median_width_pct_median"] >= 20.0


def test_the_command_prints_the_table_and_writes_it(tmp_path, capsys):
    folder = tmp_path / "out"
    assert main(["attack", "epsilon=[1,10]", "seeds=3", f"results_dir={folder}"]) == 0
    out = capsys.readouterr().out
    assert "| 1 | 1080 | 3 |" in out and "| 10 | 1080 | 3 |" in out
    written = pd.read_csv(folder / "attack.csv")
    assert list(written["epsilon"]) == [1.0, 10.0] and (written["violations"] == 0).all()
    assert (written["seeds"] == 3).all()
    releases = pd.read_csv(folder / "attack_releases.csv")
    assert list(releases["stream"]) == [0, 1, 2] * 2
    assert (folder / "attack.md").read_text(encoding="utf-8") == out


def test_a_shuffled_release_is_not_attacked(capsys):
    table = bracketing_attack(epsilon=1.0, form="shuffled_columns", seeds=2)
    row = table.iloc[0]
    assert not row["applicable"] and row["share_bracketed"] == 0 and row["bracketed"] == 0
    assert "no row" in row["reason"]
    assert main(["attack", "epsilon=1", "seeds=2", "form=shuffled_columns"]) == 0
    assert "not applicable" in capsys.readouterr().out
    variant = bracketing_attack(epsilon=1.0, method="ir_laplace/shuffled_columns", seeds=1)
    variant = variant.iloc[0]
    assert not variant["applicable"] and variant["form"] == "shuffled_columns"
    assert main(["attack", "method=ir_laplace/shuffled_columns", "form=records"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_the_attack_applies_to_per_attribute_clusters_only():
    assert set(attackable_methods()) == {"ir", "ir_laplace", "dp_um", "idp_ls", "idp_cbls"}


@pytest.mark.parametrize(
    "args",
    [
        ["k=1"],
        ["k=abc"],
        ["k=2000"],
        ["epsilon=0"],
        ["epsilon=-1"],
        ["epsilon=[]"],
        ["epsilon=abc"],
        ["epsilon=[1,1]"],
        ["epsilon=inf"],
        ["attribute=NOPE"],
        ["attribute=NOPE", "m=8"],
        ["seeds=0"],
        ["seeds=abc"],
        ["m=0"],
        ["m=14"],
        ["method=mdav"],
        ["method=laplace"],
        ["method=nope"],
        ["method=mst"],
        ["dataset=nope"],
        ["dataset=csv"],
        ["seed=-1"],
        ["form=bogus"],
        ["colour=red"],
        ["k"],
        ["k=2", "k=3"],
        ["method=idp_cbls", "k=2"],
        ["dataset=adult", "attribute=FICA"],
    ],
)
def test_bad_inputs_are_one_error_line_and_status_2(args, capsys):
    assert main(["attack", *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and captured.out == ""


def test_a_file_as_results_dir_is_refused(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    assert main(["attack", f"results_dir={path}"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_the_command_exits_with_status_2(capsys):
    load_named_dataset("census")  # a failed load would not be a usage error
    assert main(["attack", "k=1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("error: k must be")
