"""``anonlab.evaluate`` takes the metrics' options as a run does (config
``options.<metric>.<option>``): the value a run computes for the same release, and the same
one error, raised before any work, for an option or value the metric does not declare."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.datasets import build_dataset
from anonlab.methods import make_method
from anonlab.metrics import get_metric
from anonlab.runner.validate import components, split_options
from anonlab.validation import ParameterError

COLUMNS = ["q1", "q2", "c"]
ROLES = {"q1": "quasi_identifier", "q2": "quasi_identifier", "c": "confidential"}


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    return pd.DataFrame(
        {"q1": rng.integers(0, 50, 24), "q2": rng.integers(0, 50, 24), "c": rng.integers(0, 8, 24)}
    )


@pytest.fixture(scope="module")
def run(data):
    """A data set view and mdav's (k = 3) release of it, as a run's job makes them."""
    view = build_dataset("frame", data, COLUMNS, roles=ROLES)
    return view, make_method("mdav", {"k": 3}).release(view, np.random.default_rng(0))


@pytest.mark.parametrize("ground", ["distinct", "rank"])
def test_max_emd_of_the_released_classes_is_the_runs(data, run, ground):
    view, release = run
    options = {"unit": "class", "ground": ground}
    expected = get_metric("max_emd", options).of_release(view, release)
    assert 0 < expected < 1  # classes of 3 or more records, not the whole data set
    scores = anonlab.evaluate(
        data,
        release.frame,
        ["max_emd", "re"],
        COLUMNS,
        roles=ROLES,
        record_aligned=True,
        options={"max_emd": options},
    )
    assert scores["max_emd"] == expected
    assert scores["re"] == get_metric("re").of_release(view, release)


@pytest.mark.parametrize("options", [None, {"max_emd": {"unit": "cluster"}}])
def test_max_emd_of_the_clusters_is_still_refused(data, run, options):
    with pytest.raises(ParameterError, match="clusters or timing"):
        anonlab.evaluate(
            data,
            run[1].frame,
            ["max_emd"],
            COLUMNS,
            roles=ROLES,
            record_aligned=True,
            options=options,
        )


@pytest.mark.parametrize(
    "options",
    [
        {"max_emd": {"unit": "record"}},
        {"max_emd": {"units": "class"}},
        {"max_emd": "class"},
        {"jsd": {"bins": 100}},
    ],
)
def test_a_bad_option_is_the_runs_error_before_any_work(data, options):
    with pytest.raises(ParameterError) as in_a_run:  # a run's config options
        split_options(options, components())
    assert re.search(r"options\.(max_emd|jsd)", str(in_a_run.value))
    with pytest.raises(ParameterError, match=re.escape(str(in_a_run.value))):
        # released=None: the option is refused before the release is read
        anonlab.evaluate(data, None, ["max_emd", "jsd"], COLUMNS, options=options)


def test_options_name_the_metrics_measured(data):
    with pytest.raises(ParameterError, match=re.escape("options.jsd: 'jsd' is not among metrics")):
        anonlab.evaluate(data, None, ["re"], COLUMNS, options={"jsd": {"bins": "data_range"}})
    with pytest.raises(ParameterError, match="options must be a mapping"):
        anonlab.evaluate(data, None, ["max_emd"], COLUMNS, options="unit=class")


def test_strong_pair_trends_without_a_trend_is_one_error(data):
    # independent columns: no pair has |r| > 0.5, so the report's score is undefined
    with pytest.raises(ParameterError, match="'pair_trends' is nan.*pairs: strong"):
        anonlab.evaluate(
            data,
            data,
            ["pair_trends"],
            COLUMNS,
            record_aligned=True,
            options={"pair_trends": {"pairs": "strong"}},
        )
