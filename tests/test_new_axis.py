"""A method that adds a grid axis is one class: it declares the axis and its check
(``axis_checks``), and the grid validates the axis's values before any work; a class that
declares an axis without a check is refused when it is defined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest

from anonlab.methods import METHODS
from anonlab.methods.laplace import Laplace
from anonlab.runner import build_experiment
from anonlab.validation import ParameterError, check_int


@dataclass(frozen=True)
class RoundedLaplace(Laplace):
    """Plain Laplace, with a grid axis ``digits`` (the release is Laplace's)."""

    name: ClassVar[str] = "rounded_laplace"
    axes: ClassVar[tuple[str, ...]] = ("epsilon", "digits")
    axis_checks: ClassVar[dict] = {"digits": lambda value, name: check_int(value, name, 0, 6)}
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
    with pytest.raises(ParameterError, match="digits"):
        build_experiment(compose_config(*base, "+grid.digits=[9]"))
    # an axis with a default may be left out: the cells run at it and record it
    experiment = build_experiment(compose_config(*base))
    assert [dict(c.params)["digits"] for c in experiment.cells] == [2]


def test_an_axis_without_a_check_is_refused_when_the_class_is_defined():
    with pytest.raises(TypeError, match="axis 'rounds' has no check"):

        @dataclass(frozen=True)
        class Unchecked(Laplace):
            axes: ClassVar[tuple[str, ...]] = ("epsilon", "rounds")
            rounds: int = 1
