"""A method that adds a grid axis is one class: it declares the axis as an
:class:`~anonlab.axes.Axis` (``own_axes``), and the grid validates the axis's values before
any work; a class that names an axis it does not declare is refused when it is defined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from anonlab.axes import Axis
from anonlab.methods import METHODS
from anonlab.methods.laplace import Laplace
from anonlab.plotting import axis_name, value_label
from anonlab.runner import build_experiment
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


@dataclass(frozen=True)
class RoundedLaplace(Laplace):
    """Plain Laplace, with a grid axis ``digits`` (the release is Laplace's)."""

    name: ClassVar[str] = "rounded_laplace"
    axes: ClassVar[tuple[str, ...]] = ("epsilon", "digits")
    own_axes: ClassVar[tuple[Axis, ...]] = (
        Axis("digits", int, low=0, high=6, symbol="d", label="decimal digits kept"),
    )
    digits: int = 2


def test_a_new_axis_is_declared_by_its_method_alone(monkeypatch, compose_config, tmp_path):
    monkeypatch.setitem(METHODS, "rounded_laplace", RoundedLaplace)
    base = [
        "+experiment=census_ir",
        "methods=[rounded_laplace]",
        "grid.epsilon=[1.0]",
        f"results_dir={tmp_path}",
        "~grid.k",
        "~grid.m",
        "figures=[]",
        "claims=[]",
    ]
    experiment = build_experiment(compose_config(*base, "+grid.digits=[1,3]"))
    assert sorted(dict(c.params)["digits"] for c in experiment.cells) == [1, 3]
    with pytest.raises(ParameterError, match=r"^grid.digits must be in 0..6, got 9$"):
        build_experiment(compose_config(*base, "+grid.digits=[9]"))
    # the figures name it as declared
    assert axis_name("digits") == "decimal digits kept" and value_label("digits", 3) == "d = 3"
    # an axis with a default may be left out: the cells run at it and record it
    experiment = build_experiment(compose_config(*base))
    assert [dict(c.params)["digits"] for c in experiment.cells] == [2]


def test_an_axis_without_a_check_is_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match="axis 'rounds' has no check; declare it in own_axes"):

        @dataclass(frozen=True)
        class Unchecked(Laplace):
            axes: ClassVar[tuple[str, ...]] = ("epsilon", "rounds")
            rounds: int = 1

    with pytest.raises(TypeError, match="own axis 'rounds' is not in axes"):

        @dataclass(frozen=True)
        class Unlisted(Laplace):
            own_axes: ClassVar[tuple[Axis, ...]] = (Axis("rounds", int, low=1),)
            rounds: int = 1


def test_a_default_is_declared_once_on_the_field():
    @dataclass(frozen=True)
    class Twice(Laplace):
        name: ClassVar[str] = "twice"
        axes: ClassVar[tuple[str, ...]] = ("epsilon", "rounds")
        own_axes: ClassVar[tuple[Axis, ...]] = (Axis("rounds", int, low=1, default=3),)
        rounds: int = 2

    with pytest.raises(TypeError, match="declares default 3 but its dataclass field defaults"):
        Twice.axis_defaults()
