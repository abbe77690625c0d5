"""The suite's kept compositions (:mod:`tests.composition`) give what Hydra composes
afresh: the same config for the same overrides, whatever was composed before with the same
group choices and other values, and the same error for a composition that fails."""

from __future__ import annotations

import pytest

from anonlab.config import compose_config
from tests import composition

pytestmark = pytest.mark.integration  # composes the real configs, each case afresh too

BASE = ["+experiment=census_ir", "grid.k=[2]", "reps=1"]
# (overrides composed first with the same group choices, overrides compared)
CASES = {
    "values": (["+experiment=census_ir", "reps=3"], [*BASE, "grid.epsilon=[0.5]"]),
    "group_and_values": (
        ["+experiment=census_ir", "dataset=csv", "dataset.path=a.csv"],
        [*BASE, "dataset=csv", "dataset.path=b.csv", "runner=dask"],
    ),
    "add_force_delete": (
        [*BASE, "+extra=1"],
        [*BASE, "+extra=2", "++grid.t=[0.1]", "~readings", "~dataset.name"],
    ),
    "another_experiment": (
        ["+experiment=tclose_sse_kt"],
        ["+experiment=tclose_sse_kt", "grid.t=[0.2]", "n_jobs=1"],
    ),
}
FAILING = {
    "unknown_key": [*BASE, "nope=1"],
    "unknown_group_choice": [*BASE, "dataset=nope"],
    "key_added_twice": [*BASE, "+reps=2"],
}


def composed(overrides: list[str]) -> dict | str:
    """The composed config, or the failure's type and message."""
    try:
        return compose_config(*overrides)
    except Exception as error:  # noqa: BLE001 - the failure itself is compared
        return f"{type(error).__name__}: {error}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_kept_composition_is_hydras_own(case):
    before, overrides = CASES[case]
    composed(before)  # keeps this choice of groups with other values
    with composition.fresh():
        expected = composed(overrides)
    assert isinstance(expected, dict)
    assert composed(overrides) == expected
    assert composed(overrides) == expected  # and again, from what was kept


@pytest.mark.parametrize("case", sorted(FAILING))
def test_a_failing_composition_fails_alike(case):
    composed(BASE)
    with composition.fresh():
        expected = composed(FAILING[case])
    assert isinstance(expected, str)
    assert composed(FAILING[case]) == expected
    assert composed(FAILING[case]) == expected


def test_a_config_file_edited_is_read_again(conf_copy):
    conf = conf_copy("census_ir")
    before = compose_config(*BASE, conf_dir=conf)
    path = conf / "experiment" / "census_ir.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\nedited: 1\n", encoding="utf-8")
    after = compose_config(*BASE, conf_dir=conf)
    assert "edited" not in before
    assert after == {**before, "edited": 1}
