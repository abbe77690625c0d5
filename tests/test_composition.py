"""The suite's kept compositions (:mod:`tests.composition`) give what Hydra composes
afresh: the same config for the same overrides, whatever was composed before with the same
group choices and other values, and the same error for a composition that fails."""

from __future__ import annotations

import pickle

import pytest
from omegaconf import DictConfig

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
    "override_not_parsed": [*BASE, "grid.k=[2"],
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


def test_a_kept_composition_is_read_back_from_the_store(tmp_path, monkeypatch):
    monkeypatch.setattr(composition, "STORE", tmp_path)
    lists, configs = composition_memory()
    overrides = [*BASE, "grid.epsilon=[2.0]"]
    with composition.fresh():
        expected = composed(overrides)
    lists.clear(), configs.clear()
    assert composed(overrides) == expected
    stored = sorted(tmp_path.glob("*.pickle"))
    assert len(stored) == 2  # the defaults list and the merged config
    lists.clear(), configs.clear()  # as another process starts: read from the store
    assert composed(overrides) == expected
    for path in stored:  # what is read is what is stored
        value = pickle.loads(path.read_bytes())
        if isinstance(value, DictConfig):
            value.from_store = 1
            path.write_bytes(pickle.dumps(value))
    lists.clear(), configs.clear()
    assert composed(overrides) == {**expected, "from_store": 1}
    for path in stored:  # a torn file is composed again and written anew
        path.write_bytes(path.read_bytes()[:10])
    lists.clear(), configs.clear()
    assert composed(overrides) == expected
    assert all(path.stat().st_size > 10 for path in stored)
    lists.clear(), configs.clear()  # leave this process composing from conf/ again


def composition_memory() -> tuple[dict, dict]:
    """The in-memory kept defaults lists and configs of this process."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    return ConfigLoaderImpl._kept_compositions[:2]
