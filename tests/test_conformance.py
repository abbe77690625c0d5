"""Every registered method, metric, grid axis and data set passes the conformance kit
(:mod:`anonlab.conformance`): the cases are generated from the registries, so a component
added in its own file is checked with no test edited; the kit reports a failure naming the
component and the check."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
import pytest

from anonlab import conformance
from anonlab.axes import Axis
from anonlab.methods import METHODS
from anonlab.methods.laplace import Laplace
from anonlab.metrics import METRICS
from anonlab.release import Release

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def cases(battery, names) -> list:
    """One ``pytest.param`` per component and check, with id ``<name>-<check>``."""
    return [
        pytest.param(name, check, id=f"{name}-{check_name}")
        for name in names
        for check_name, check in battery(name)
    ]


@pytest.mark.parametrize(("name", "check"), cases(conformance.check_method, METHODS))
def test_method_conforms(name, check):
    check()


@pytest.mark.parametrize(("name", "check"), cases(conformance.check_metric, METRICS))
def test_metric_conforms(name, check):
    check()


@pytest.mark.parametrize(("name", "check"), cases(conformance.check_axis, conformance.axis_names()))
def test_axis_conforms(name, check):
    check()


@pytest.mark.parametrize(
    ("name", "check"), cases(conformance.check_dataset, conformance.dataset_names())
)
def test_dataset_conforms(name, check):
    check()


# --- the kit itself ------------------------------------------------------------------------


@dataclass(frozen=True)
class Reversed(Laplace):
    """Laplace with its columns released in reverse order, and an axis of its own that
    accepts anything."""

    name: ClassVar[str] = "conformance_reversed"
    axes: ClassVar[tuple[str, ...]] = ("epsilon", "rounds")
    own_axes: ClassVar[tuple[Axis, ...]] = (Axis("rounds", int, rule=lambda value, name: value),)
    rounds: int = 1

    def protect(self, dataset, rng: np.random.Generator) -> Release:
        released = super().protect(dataset, rng)
        return replace(released, values=released.values[:, ::-1].copy())


@dataclass(frozen=True)
class Scaled(Laplace):
    """Laplace with an axis of its own without a default, declaring its test parameters."""

    scale: float
    name: ClassVar[str] = "conformance_scaled"
    axes: ClassVar[tuple[str, ...]] = ("epsilon", "scale")
    own_axes: ClassVar[tuple[Axis, ...]] = (Axis("scale", int, low=1, high=9),)
    test_params: ClassVar[tuple[dict, ...]] = ({"epsilon": 0.5, "scale": 2, "sampler": "numpy"},)


def test_a_failing_method_is_named_with_its_failed_checks(monkeypatch):
    monkeypatch.setitem(METHODS, Reversed.name, Reversed)
    with pytest.raises(AssertionError) as error:
        conformance.run_checks(conformance.check_method(Reversed.name), "method 'reversed'")
    text = str(error.value)
    assert text.startswith("method 'reversed' fails conformance check(s)")
    assert "bad_axis_values_refused: AssertionError: axis 'rounds' refuses none" in text
    assert "releases_keep_shape_and_columns: AssertionError: released column 2 leaves" in text
    assert "builds_from_test_params" not in text


def test_declared_test_params_build_the_method_and_defaults_may_be_omitted(monkeypatch):
    monkeypatch.setitem(METHODS, Scaled.name, Scaled)
    assert Scaled.test_parameters() == [{"epsilon": 0.5, "scale": 2, "sampler": "numpy"}]
    ran = conformance.run_checks(conformance.check_method(Scaled.name), "method 'scaled'")
    assert "options_each_build" in ran
    assert Reversed.test_parameters() == [{"epsilon": 1.0, "rounds": 1}]
    assert Reversed.axis_defaults() == {"rounds": 1}


def test_an_own_axis_without_a_default_needs_declared_test_params():
    @dataclass(frozen=True)
    class Undeclared(Laplace):
        scale: float
        name: ClassVar[str] = "conformance_undeclared"
        axes: ClassVar[tuple[str, ...]] = ("epsilon", "scale")
        own_axes: ClassVar[tuple[Axis, ...]] = (Axis("scale", rule=lambda value, name: value),)

    with pytest.raises(TypeError, match="axis 'scale' has no default; declare its test_value"):
        Undeclared.test_parameters()


def test_an_axis_that_accepts_a_bad_value_is_named_with_its_failed_check():
    lax = Axis("lax", int, low=0, bad_values=(-1, 0))
    with pytest.raises(AssertionError) as error:
        conformance.run_checks(conformance.check_axis(lax), "axis 'lax'")
    assert "bad_values_refused: AssertionError: grid.lax=0 is accepted" in str(error.value)
