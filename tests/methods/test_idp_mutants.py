"""The iDP sensitivity tests can fail: each deliberately broken copy of a formula (a
"mutant") is patched in, and at least one test of tests/methods/test_idp_sensitivity.py must then
fail. A test that passes on a mutant would prove nothing about the real formula."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import Phase, settings

import anonlab.methods.idp as idp
import tests.methods.test_idp_sensitivity as suite
from anonlab.mechanisms import sensitivity


def prop3_missing_term(smallest, largest, sizes):
    """Expression (2) and (3) without the third-smallest / third-largest term."""
    x_min, x_min1, _ = (np.asarray(v, dtype=float) for v in smallest)
    x_max, x_max1, _ = (np.asarray(v, dtype=float) for v in largest)
    up = np.abs(x_max - x_min1) + np.abs(x_max - x_max1)
    down = np.abs(x_min - x_max1) + np.abs(x_min - x_min1)
    return np.maximum(up, down) / np.asarray(sizes, dtype=float)[:, None]


def prop2_min_not_max(smallest, largest, low, high, sizes):
    """Proposition 2 with min{…} instead of max{…}."""
    spread = np.minimum(
        np.asarray(high) - np.asarray(smallest), np.asarray(largest) - np.asarray(low)
    )
    return spread / np.asarray(sizes, dtype=float)[:, None]


def dp_um_halved(width, sizes):
    """(max A − min A)/(2|C|)."""
    return sensitivity.centroid_global_sensitivity(width, sizes) / 2


def plain_means(ranking):
    """iDP-CBLS without the §3.2.2 pre-processing."""
    return ranking.centroids


def min_only_preprocessing(ranking):
    """§3.2.2 replacing only the smallest value."""
    return (ranking.sums - ranking.smallest(0) + ranking.smallest(1)) / ranking.sizes[:, None]


def whole_budget(epsilon, m):
    """ε per attribute instead of ε/m."""
    return float(epsilon)


FOUND = (Phase.explicit, Phase.reuse, Phase.generate)  # every phase but shrinking

MUTANTS = {
    "prop3_missing_term": (
        "cluster_based_local_sensitivity",
        prop3_missing_term,
        lambda: suite.test_one_cluster_bound_holds_for_every_change(name="idp_cbls"),
    ),
    "prop2_min_not_max": (
        "centroid_local_sensitivity",
        prop2_min_not_max,
        lambda: suite.test_one_cluster_bound_holds_for_every_change(name="idp_ls"),
    ),
    "dp_um_halved": (
        "centroid_global_sensitivity",
        dp_um_halved,
        lambda: suite.test_one_cluster_bound_holds_for_every_change(name="dp_um"),
    ),
    "plain_means": (
        "preprocessed_centroids",
        plain_means,
        lambda: suite.test_methods_release_their_own_centroids(
            name="idp_cbls", expected=[2.0, 2.0, 2.0, 11.0, 11.0, 11.0]
        ),
    ),
    "min_only_preprocessing": (
        "preprocessed_centroids",
        min_only_preprocessing,
        suite.test_preprocessed_centroids_match_the_reference,
    ),
    "whole_budget": (
        "attribute_budget",
        whole_budget,
        lambda: suite.test_methods_release_one_noisy_centroid_per_cluster(name="idp_ls"),
    ),
}


@pytest.mark.parametrize("mutant", list(MUTANTS))
def test_sensitivity_tests_catch_the_mutant(mutant, monkeypatch):
    attribute, broken, run = MUTANTS[mutant]
    for module in (suite, idp):  # where the tests and the methods look the name up
        if hasattr(module, attribute):
            monkeypatch.setattr(module, attribute, broken)
    # a caught mutant need not be shrunk to a minimal example: the suite's property tests
    # run here without Hypothesis's shrink phase (the assertion they fail is the same)
    for test in vars(suite).values():
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if chosen is not None:
            monkeypatch.setattr(
                test, "_hypothesis_internal_use_settings", settings(chosen, phases=FOUND)
            )
    with pytest.raises(AssertionError):
        run()
