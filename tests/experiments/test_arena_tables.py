"""The arena's disclosure table at matched utility, from a small hand-made results table:
which setting each method is shown at, and which of its measures the table reads."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from anonlab.experiments import arena
from anonlab.plotting.tables import to_markdown
from anonlab.validation import ParameterError

#: (dataset, method, epsilon, noise, cell id, marginal TVD of each repetition); the TVDs
#: are binary fractions, so equal distances to the target are equal in floating point
SETTINGS = [
    ("a", "laplace", 0.1, None, 1, [0.5]),
    ("a", "laplace", 1.0, None, 2, [0.125, 0.375]),  # mean 0.25
    ("a", "laplace", 10.0, None, 3, [0.125]),
    ("a", "additive_noise", None, 50.0, 4, [0.125]),
    ("a", "additive_noise", None, 150.0, 5, [0.375]),
    ("a", "tclose_tfirst_merged", None, None, 6, [0.5]),
    ("b", "laplace", 0.1, None, 7, [1.0]),
    ("b", "laplace", 1.0, None, 8, [0.5]),
    ("b", "laplace", 10.0, None, 9, [0.25]),
    ("b", "tclose_tfirst_merged", None, None, 10, [0.125]),
]


def results() -> pd.DataFrame:
    """Marginal TVD of every setting; record linkage of each (its cell id / 100); the
    singling-out rates of every setting, and the risk alone of data set b's."""
    rows = []
    for dataset, method, epsilon, noise, cell, tvds in SETTINGS:
        base = {"dataset": dataset, "method": method, "epsilon": epsilon, "noise": noise}
        base |= {"cell_id": cell, "guarantee": "ε-DP" if method == "laplace" else "none"}
        for rep, tvd in enumerate(tvds):
            at = {**base, "rep": rep, "seed": 1}
            rows.append({**at, "metric": "marginal_tvd", "attribute": None, "value": tvd})
            rows.append({**at, "metric": "record_linkage", "attribute": None, "value": cell / 100})
            if dataset == "a":
                for part, value in (("risk", 0.01), ("attack_rate", 0.3), ("baseline_rate", 0.2)):
                    value = value + cell / 1000
                    rows.append({**at, "metric": "singling_out", "attribute": part, "value": value})
            else:
                rows.append({**at, "metric": "singling_out", "attribute": None, "value": 0.5})
    table = pd.DataFrame(rows)
    table["attribute"] = table["attribute"].astype("string")
    return table


def test_each_method_is_shown_at_its_setting_closest_to_the_median_of_the_methods():
    chosen = arena.matched_utility(results()).set_index(["dataset", "method"])
    # data set a: medians laplace 0.25, additive_noise 0.25, t-closeness 0.5 → target 0.25
    assert chosen["target"].loc["a"].tolist() == [0.25, 0.25, 0.25]
    assert chosen.loc[("a", "laplace"), "epsilon"] == 1.0  # the mean over repetitions: 0.25
    # 0.125 and 0.375 are equally close: the better utility (the lower TVD) is chosen
    assert chosen.loc[("a", "additive_noise"), "noise"] == 50.0
    assert chosen.loc[("a", "additive_noise"), "utility"] == 0.125
    assert chosen.loc[("a", "tclose_tfirst_merged"), "cell_id"] == 6  # its one setting
    # data set b: its own target, the median of laplace's 0.5 and t-closeness's 0.125
    assert chosen.loc[("b", "laplace"), "target"] == 0.3125
    assert chosen.loc[("b", "laplace"), "epsilon"] == 10.0
    assert list(chosen.index.get_level_values("method")[:3]) == [
        "laplace",
        "additive_noise",
        "tclose_tfirst_merged",
    ]  # the table's order


def test_a_declared_target_replaces_the_median():
    chosen = arena.matched_utility(results(), target=0.5).set_index(["dataset", "method"])
    assert chosen.loc[("a", "laplace"), "epsilon"] == 0.1
    assert chosen.loc[("b", "laplace"), "epsilon"] == 1.0
    by_data = arena.matched_utility(results(), target={"a": 0.125, "b": 1.0})
    by_data = by_data.set_index(["dataset", "method"])
    assert by_data.loc[("a", "laplace"), "epsilon"] == 10.0
    assert by_data.loc[("b", "laplace"), "epsilon"] == 0.1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"utility": "jsd"}, r"utility='jsd': the results hold no data-set-level value"),
        ({"target": {"a": 0.1}}, r"names no target for data sets \['b'\]"),
    ],
)
def test_an_absent_utility_or_target_is_refused_naming_it(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        arena.matched_utility(results(), **kwargs)


def test_the_table_reads_the_measures_of_the_chosen_setting_only():
    table = arena.disclosure(results())
    a = table[table["dataset"] == "a"].set_index("method")
    assert a.loc["laplace", "setting"] == "ε = 1"
    assert a.loc["additive_noise", "setting"] == "noise = 50"
    assert a.loc["tclose_tfirst_merged", "setting"] == "–"  # no axis of the table
    assert a.loc["laplace", "guarantee"] == "ε-DP"
    assert a.loc["laplace", "marginal_tvd"] == "0.25" and a.loc["laplace", "target"] == "0.25"
    assert a.loc["laplace", "record_linkage"] == "0.02"  # cell 2's, not cells 1 or 3's
    assert a.loc["additive_noise", "singling_out risk"] == "0.014"
    assert a.loc["additive_noise", "singling_out baseline_rate"] == "0.204"
    b = table[table["dataset"] == "b"].set_index("method")
    assert b.loc["laplace", "singling_out risk"] == "0.5"  # a run without report: rates
    assert math.isnan(b.loc["laplace", "singling_out baseline_rate"])
    assert "singling_out control_rate" not in table and "dcr" not in table
    line = next(s for s in to_markdown(table).splitlines() if s.startswith("| b | laplace |"))
    assert line.endswith("| 0.5 |  |  |")  # the rates of a run without them: blank
