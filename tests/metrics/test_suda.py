"""SUDA (anonlab.metrics.suda) against worked examples with known minimal sample uniques:
the example of Templ's book and the one of the sdcMicro guidelines, as sdcMicro's own
tests state their scores (tests/testthat/test_suda2.R), and a brute-force search of every
attribute subset."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from anonlab.conformance import IDENTITY, tiny_dataset
from anonlab.datasets import build_dataset
from anonlab.metrics import get_metric
from anonlab.metrics.suda import dis_suda, minimal_sample_uniques, suda
from anonlab.release import Release
from anonlab.validation import ParameterError

#: Templ (2017), Statistical Disclosure Control for Microdata, the SUDA example
BOOK = pd.DataFrame(
    {
        "age": ["20s"] * 7 + ["60s"],
        "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
        "income": ["50k+", "50k+"] + ["50k-"] * 6,
        "education": ["highschool"] * 4
        + ["university", "highschool", "middleschool", "university"],
    }
)
#: the sdcMicro guidelines' example (Benschop, Machingauta & Welch)
GUIDELINES = pd.DataFrame(
    {
        "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
        "Gender": ["F", "F", "F", "M", "F", "M", "F", "M", "F", "F"],
        "Education": [
            "Secondary incomplete",
            "Secondary incomplete",
            "Primary incomplete",
            "Secondary complete",
            "Secondary complete",
            "Secondary complete",
            "Primary complete",
            "Post-secondary",
            "Secondary incomplete",
            "Secondary incomplete",
        ],
        "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed"]
        + ["Employed", "Non-LF", "Unemployed", "Non-LF", "Non-LF"],
    }
)


def test_the_book_example_scores_and_msus():
    """Record 8 (60s, male, 50k−, university) has MSUs {age} (unique age) and {gender,
    education}; with A = 4 keys an MSU of size k scores (4 − k)!: 3! + 2! = 8. sdcMicro:
    scores[5:8] = 4, 2, 6, 8."""
    result = suda(BOOK, list(BOOK.columns), max_size="all")
    np.testing.assert_array_equal(result.score, [0, 0, 0, 0, 4, 2, 6, 8])
    np.testing.assert_array_equal(result.msu[7], [1, 1, 0, 0])  # one of size 1, one of 2
    np.testing.assert_array_equal(result.msu[4], [0, 2, 0, 0])  # female university, …
    assert result.special_unique_share == 0.5
    capped = suda(BOOK, list(BOOK.columns), max_size=1)  # only single attributes
    np.testing.assert_array_equal(capped.score, [0, 0, 0, 0, 0, 0, 6, 6])
    assert capped.special_unique_share == 0.25


def test_the_sdcmicro_guidelines_example():
    """sdcMicro: suda2(testdat)$score == c(0, 0, 6, 0, 12, 0, 6, 10, 0, 0); record 5 is
    the only rural one (6) and unique on three pairs (2 each)."""
    result = suda(GUIDELINES, list(GUIDELINES.columns), max_size="all")
    np.testing.assert_array_equal(result.score, [0, 0, 6, 0, 12, 0, 6, 10, 0, 0])
    np.testing.assert_array_equal(result.msu[4], [1, 3, 0, 0])
    default = suda(GUIDELINES, list(GUIDELINES.columns))  # auto: MSUs of up to 3
    np.testing.assert_array_equal(default.score, result.score)
    assert default.max_size == 3


def brute_force_msus(table: np.ndarray, max_size: int) -> np.ndarray:
    """Record by record and subset by subset: unique on S and on no proper subset."""
    n, a = table.shape
    out = np.zeros((n, max_size), dtype=int)

    def unique(i: int, subset: tuple[int, ...]) -> bool:
        same = np.all(table[:, list(subset)] == table[i, list(subset)], axis=1)
        return same.sum() == 1

    for i in range(n):
        for size in range(1, max_size + 1):
            for subset in combinations(range(a), size):
                smaller = [s for r in range(size) for s in combinations(subset, r)]
                if unique(i, subset) and not any(unique(i, s) for s in smaller):
                    out[i, size - 1] += 1
    return out


@pytest.mark.parametrize("seed", range(6))
def test_minimal_sample_uniques_match_a_brute_force_search(seed):
    rng = np.random.default_rng(seed)
    n, a = int(rng.integers(2, 25)), int(rng.integers(1, 5))
    table = rng.integers(0, int(rng.integers(2, 5)), (n, a))
    table[: n // 4] = table[n // 4 : 2 * (n // 4)]  # some duplicated records
    for max_size in range(1, a + 1):
        got = minimal_sample_uniques(table, max_size)
        np.testing.assert_array_equal(got, brute_force_msus(table, max_size))


def test_a_lone_record_is_unique_on_no_attribute():
    """With one record, the empty set already singles it out: it has no MSU."""
    assert suda(pd.DataFrame({"a": [1], "b": [2]}), ["a", "b"]).score.tolist() == [0]


def test_microaggregation_leaves_no_special_unique_on_its_keys():
    """A microaggregation releases groups of k ≥ 2 identical records (here 4, by the
    first attribute): no record is unique on any subset of the attributes, so every score
    is 0; the original file is not so."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 50, (40, 3)), columns=["q1", "q2", "c"])
    view = build_dataset("toy", frame, ["q1", "q2", "c"], domains=dict.fromkeys(frame, [0, 60]))
    order = np.argsort(view.protected_values[:, 0], kind="stable")
    centroids = view.protected_values[order].reshape(-1, 4, 3).mean(axis=1)  # groups of 4
    released = np.empty((40, 3))
    released[order] = np.repeat(centroids, 4, axis=0)
    release = Release(view, released)
    original = Release(view, view.protected_values)
    for name in ("suda_score", "special_uniques"):
        assert get_metric(name).of_release(view, release) == 0.0
        assert get_metric(name).of_release(view, original) > 0.0
    share = get_metric("special_uniques").of_release(view, original)
    assert share == suda(frame, ["q1", "q2", "c"]).special_unique_share


def test_a_size_beyond_the_keys_is_one_error_naming_max_size():
    with pytest.raises(ParameterError, match=r"max_size=5: an MSU is a set of 1 to 4 key"):
        suda(BOOK, list(BOOK.columns), max_size=5)
    with pytest.raises(ParameterError, match=r"max_size=0"):
        suda(BOOK, list(BOOK.columns), max_size=0)
    with pytest.raises(ParameterError, match=r"keys: 'zip' is not a column"):
        suda(BOOK, ["age", "zip"])
    # a run refuses it when the experiment is built: two quasi-identifiers there
    metric = get_metric("special_uniques", {"max_size": 3})
    with pytest.raises(
        ParameterError, match=r"options.special_uniques.max_size=3: .*\['q1', 'q2'\]"
    ):
        metric.check(tiny_dataset(), IDENTITY)
    get_metric("special_uniques", {"max_size": 2}).check(tiny_dataset(), IDENTITY)


# sdcMicro 5.8.1's suda2(...)$disScore on the two worked examples (DisFraction 0.01 and
# 0.1), printed to 8 digits; they agree to a relative 1e-6, single precision's, in which
# sdcMicro computes DIS and its exponent (float64 throughout here)
SDCMICRO_DIS = {
    "book": (
        [0, 0, 0, 0, 0.010859095, 0.0047558604, 0.017545170, 0.024601057],
        [0, 0, 0, 0, 0.10774943, 0.049939416, 0.16418954, 0.21718245],
    ),
    "guidelines": (
        [0, 0, 0.0049867977, 0, 0.011383007, 0, 0.0049867977, 0.0091666789, 0, 0],
        [0, 0, 0.052249219, 0, 0.11241669, 0, 0.052249219, 0.092366537, 0, 0],
    ),
}


@pytest.mark.parametrize("name", ["book", "guidelines"])
def test_dis_suda_is_sdcmicros_disscore(name):
    frame = BOOK if name == "book" else GUIDELINES
    found = suda(frame, list(frame.columns), max_size="all")
    for fraction, expected in zip((0.01, 0.1), SDCMICRO_DIS[name], strict=True):
        np.testing.assert_allclose(dis_suda(found, fraction), expected, rtol=1e-6, atol=0)


def test_dis_suda_of_a_whole_population_is_one_for_every_scored_record():
    found = suda(BOOK, list(BOOK.columns), max_size="all")
    assert (found.uniques, found.pairs) == (4, 4)  # four records alone, two pairs
    np.testing.assert_array_equal(dis_suda(found, 1.0), [0, 0, 0, 0, 1, 1, 1, 1])
    no_unique = suda(BOOK.iloc[:4], list(BOOK.columns), max_size="all")  # two pairs
    np.testing.assert_array_equal(dis_suda(no_unique), np.zeros(4))
    for bad in (0, -0.1, 1.5, True, "0.1", float("nan")):
        with pytest.raises(ParameterError, match="fraction"):
            dis_suda(found, bad)


def test_the_suda_metrics_of_one_release_search_its_msus_once(monkeypatch):
    from anonlab.metrics import suda as module

    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 6, (50, 3)), columns=["q1", "q2", "c"])
    view = build_dataset("toy", frame, ["q1", "q2", "c"], domains=dict.fromkeys(frame, [0, 9]))
    names = ("suda_score", "special_uniques", "dis_suda_score")
    apart = {n: get_metric(n).of_release(view, Release(view, view.protected_values)) for n in names}
    searches = []
    search = module.minimal_sample_uniques
    monkeypatch.setattr(
        module, "minimal_sample_uniques", lambda *a: searches.append(a) or search(*a)
    )
    release = Release(view, view.protected_values)
    assert {n: get_metric(n).of_release(view, release) for n in names} == apart
    assert len(searches) == 1  # three metrics, one search
    get_metric("suda_score", {"max_size": 1}).of_release(view, release)
    assert len(searches) == 2  # another max_size is another search
