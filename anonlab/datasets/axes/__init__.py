"""The data view's grid axes: each selects a view of the data set a cell protects.

A data-view axis is one :class:`~anonlab.axes.Axis` with a ``view`` (``view(dataset,
value) -> Dataset``), declared in one module of this package (the module's axes join
:data:`VIEW_AXES` in the order they are defined), with a data set
(:attr:`~anonlab.datasets.sources.Source.axes`), or from a user's module with
:func:`register_axis`. A grid key that names one (``grid.m=[1,8]``) is checked by it,
selects the view of every cell (:meth:`anonlab.runner.grid.Cell.declared_view`), in
the order of :data:`VIEW_AXES`, and is labelled by it in figures and claims.
"""

from __future__ import annotations

import importlib
import pkgutil

from anonlab.axes import SHARED_AXES, Axis

__all__ = ["VIEW_AXES", "register_axis"]

#: the modules whose axes come first, in this order (the order of the cells' parameters
#: and of the views taken); any other module of the package follows, by name
FIRST = ("protected", "domains")

#: every data-view axis by name, in the order its view is taken
VIEW_AXES: dict[str, Axis] = {}


def register_axis(axis: Axis) -> Axis:
    """Add the data-view axis ``axis`` to :data:`VIEW_AXES` (registering the same object
    again changes nothing). A call registers it in this process only: a run whose cells
    go to worker processes (``n_jobs`` > 1, ``runner=dask``) needs it declared in a module
    of this package, which every process discovers.

    Raises
    ------
    TypeError
        ``axis`` is not an :class:`~anonlab.axes.Axis` with a ``view``, or its name is
        taken by a shared axis of the methods or by another data-view axis.
    """
    if not isinstance(axis, Axis) or not callable(axis.view):
        raise TypeError(f"{axis!r} is not an anonlab.axes.Axis with a view(dataset, value)")
    if axis.name in SHARED_AXES:
        raise TypeError(f"axis {axis.name!r} is an axis of the methods, not of the data view")
    if VIEW_AXES.setdefault(axis.name, axis) is not axis:
        raise TypeError(f"data-view axis {axis.name!r} is already registered")
    return axis


def _discover() -> None:
    modules = [m.name for m in pkgutil.iter_modules(__path__)]
    for name in [*FIRST, *sorted(m for m in modules if m not in FIRST)]:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if isinstance(value, Axis) and value.view is not None:
                register_axis(value)


_discover()
