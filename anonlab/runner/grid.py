"""Expand an experiment's grid into cells, one per distinct method configuration."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from anonlab.axes import Axis
from anonlab.datasets import Dataset
from anonlab.datasets.axes import VIEW_AXES
from anonlab.methods import Method, make_method, method_class, split_variant
from anonlab.runner.seeds import cell_id
from anonlab.runner.validate import listed
from anonlab.validation import ParameterError, check_options


@dataclass(frozen=True)
class Cell:
    """One method configuration on one data set view; repetitions share it.

    ``options`` are the method's chosen readings (config ``options.<method>``); they are
    not part of the ``id``, so a run under another reading draws the same random numbers
    as the primary run (common random numbers).
    """

    method: str
    params: tuple[tuple[str, Any], ...]
    dataset: str
    id: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def param_dict(self) -> dict[str, Any]:
        return dict(self.params)

    def build(self) -> Method:
        """The method instance of this cell, built (and its parameters checked) once."""
        return self._method

    @cached_property
    def _method(self) -> Method:
        return make_method(
            self.method, {k: v for k, v in self.params if k not in VIEW_AXES}, dict(self.options)
        )

    @property
    def view_key(self) -> tuple[Any, ...]:
        """What decides :meth:`view`: the data set, its axes' values, and whether the
        method takes numerical attributes only."""
        numeric = method_class(split_variant(self.method)[0]).numeric_only
        return (self.dataset, *(v for a, v in self.params if a in VIEW_AXES), numeric)

    def declared_view(self, dataset: Dataset) -> Dataset:
        """The data set as the grid declares it: the view each data-view axis of the cell
        selects (:attr:`~anonlab.axes.Axis.view`), in the order of its parameters, e.g.
        the first ``m`` attributes (DP-IR §4.2), domains [0, α·max] (iDP §4.1). A
        parameter of no data-view axis known to this process and of no axis of the method
        is an error, never a view silently not taken."""
        taken = method_class(split_variant(self.method)[0]).axes
        for name, value in self.params:
            axis = VIEW_AXES.get(name)
            if axis is not None:
                dataset = axis.view(dataset, value)
            elif name not in taken:
                raise ParameterError(
                    f"{name}={value!r} is no axis of method {self.method!r} and no data-view "
                    "axis of this process: declare the axis in a module of "
                    "anonlab/datasets/axes/ so that every worker finds it"
                )
        return dataset

    def view(self, dataset: Dataset) -> Dataset:
        """The data set as this cell protects it: :meth:`declared_view`, and for a method
        of numerical attributes only, the numerical ones among them when there are
        categorical ones too (:func:`numerical_part`)."""
        view = self.declared_view(dataset)
        if method_class(split_variant(self.method)[0]).numeric_only:
            return numerical_part(view)
        return view


def numerical_part(view: Dataset) -> Dataset:
    """``view`` protecting only its numerical attributes, when it protects categorical
    ones too (a method of numerical attributes runs on them, the others are released
    unchanged); unchanged when it protects only one kind."""
    numeric = tuple(a.name for a in view.protected_attributes if not a.categorical)
    if not numeric or len(numeric) == len(view.protected):
        return view
    return replace(view, protected=numeric)


def check_grid(
    grid: Mapping[str, Sequence[Any]], dataset: Dataset, axes: Mapping[str, Axis]
) -> dict[str, list[Any]]:
    """Check the grid values that depend on the data set, by the declaration of each axis
    (``axes``, by name): a value within the axis's limit on the data (k ≤ its records,
    m ≤ its attributes), and for an axis of the data view a view the data set can take
    (an α its domains can take); each value's type and range otherwise are checked before
    (:func:`~anonlab.runner.validate.validate`) or when its method is built."""
    checked: dict[str, list[Any]] = {}
    for name, values in grid.items():
        key, values = f"grid.{name}", listed(values, f"grid.{name}")
        axis = axes.get(name)
        if axis is None or (axis.limit is None and axis.view is None):
            checked[name] = values
            continue
        limit = axis.limit(dataset) if axis.limit is not None else None
        checked[name] = [axis.check(value, key, limit) for value in values]
        for value in checked[name] if axis.view is not None else ():
            try:
                axis.view(dataset, value)
            except ParameterError as error:
                raise ParameterError(f"{key}={value!r}: {error}") from None
    return checked


def expand_grid(
    methods: Sequence[str],
    grid: Mapping[str, Sequence[Any]],
    dataset: Dataset,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    grid_by_method: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
) -> list[Cell]:
    """Cells of every method over the product of the grid axes it depends on.

    A method ignores the axes it does not declare (plain Laplace ignores ``k``), so it
    gets one cell per combination of its own axes and of the data set axes only.
    ``options`` (``{method name: {option: value}}``) sets each method's options in every
    one of its cells, without changing the cell ids (:class:`Cell`). ``grid_by_method``
    (``{method name: {axis: values}}``, config ``grid_by_method``) replaces axes of the
    grid for one method, e.g. the k a paper suggests for it.
    """
    grid_by_method = dict(grid_by_method or {})
    unknown = [name for name in grid_by_method if name not in methods]
    if unknown:
        raise ParameterError(
            f"grid_by_method.{unknown[0]}: {unknown[0]!r} is not one of methods {list(methods)}"
        )
    common = grid
    options = options or {}
    cells: list[Cell] = []
    for name in methods:
        own = grid_by_method.get(name) or {}
        if not isinstance(own, Mapping):
            raise ParameterError(f"grid_by_method.{name} must map axes to values, got {own!r}")
        cls = method_class(name)
        # only the axes this method takes: an axis of another method is not its to check
        merged = {**common, **own}
        axes = {**cls.declared_axes(), **VIEW_AXES}
        grid = check_grid({a: v for a, v in merged.items() if a in axes}, dataset, axes)
        # a variant <method>/<form> is its own series: its name, not its class's, labels
        # its cells and enters their ids (a plain name's ids stay as they were)
        label = name if split_variant(name)[1] is not None else cls.name
        # an axis the grid leaves out runs at its declared default, recorded
        defaults = {
            **{a.name: a.default for a in VIEW_AXES.values() if a.default is not None},
            **cls.axis_defaults(),
        }
        grid = {**{a: [v] for a, v in defaults.items() if a not in grid}, **grid}
        missing = [axis for axis in cls.axes if axis not in grid]
        if missing:
            raise ParameterError(f"method {cls.name!r} needs grid axis grid.{missing[0]}")
        chosen = tuple(check_options(cls.name, options.get(cls.name), cls.choices()).items())
        order = [a for a in VIEW_AXES if a in grid] + list(cls.axes)
        for combo in itertools.product(*(grid[a] for a in order)):
            params = tuple(zip(order, combo, strict=True))
            # the id hashes the data set, method and parameters only, never the options
            key = {"dataset": dataset.name, "method": label, **dict(params)}
            cell = Cell(
                method=label, params=params, dataset=dataset.name, id=cell_id(key), options=chosen
            )
            # validates the parameter values, and the data set against the method, before
            # any work
            cell.build().check(cell.view(dataset))
            cells.append(cell)
    return cells
