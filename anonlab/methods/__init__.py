"""The method registry: every method by one name, usable from config and Python.

A method is one class in one module of this package: a subclass of
:class:`~anonlab.methods.base.Method` that sets ``name`` and declares its grid axes (the
shared ones it takes, and its own as :class:`~anonlab.axes.Axis` objects), options,
display name and colour, capability tags and guarantee
(:meth:`~anonlab.methods.base.Method.claim`). :data:`METHODS` is derived from the classes
found in the package's modules; a method defined elsewhere joins with :func:`register`.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Mapping
from typing import Any

from anonlab.axes import SHARED_AXES, Axis
from anonlab.datasets.axes import VIEW_AXES
from anonlab.methods.base import FORMS, Method, Release, postprocess
from anonlab.validation import ParameterError, check_choice, check_options

__all__ = [
    "ALIASES",
    "METHODS",
    "Method",
    "Release",
    "grid_axes",
    "make_method",
    "method_class",
    "postprocess",
    "register",
    "split_variant",
]

#: the modules whose methods come first, in this order (the order of figure legends and
#: listings); any other module of the package follows, by name
FAMILIES = ("laplace", "individual_ranking", "multivariate", "tcloseness", "idp", "synthetic")
#: the module of compiled loops (numba), which defines no method: imported where a release
#: calls a loop, not by the registry, so that composing, validating and drawing a run
#: import no numba
KERNELS = "kernels"


def _declared_in(module: Any) -> list[type[Method]]:
    """The registrable methods ``module`` defines, in definition order: concrete
    :class:`Method` subclasses that set their own ``name``."""
    return [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Method)
        and obj.__module__ == module.__name__
        and "name" in obj.__dict__
        and not inspect.isabstract(obj)
    ]


def _modules(name: str) -> list[Any]:
    """Module ``name`` of this package and, for a subpackage, its modules."""
    module = importlib.import_module(f"{__name__}.{name}")
    inner = getattr(module, "__path__", None)
    if inner is None:
        return [module]
    prefix = f"{module.__name__}."
    return [
        module,
        *(importlib.import_module(prefix + m.name) for m in pkgutil.iter_modules(inner)),
    ]


def _discover() -> dict[str, type[Method]]:
    modules = [m.name for m in pkgutil.iter_modules(__path__) if m.name != KERNELS]
    ordered = [*FAMILIES, *sorted(m for m in modules if m not in FAMILIES)]
    found: dict[str, type[Method]] = {}
    for name in ordered:
        for module in _modules(name):
            for cls in _declared_in(module):
                if found.setdefault(cls.name, cls) is not cls:
                    raise TypeError(f"two method classes are named {cls.name!r}")
    return found


METHODS: dict[str, type[Method]] = _discover()


def register(cls: type[Method]) -> type[Method]:
    """Add method class ``cls`` (defined outside this package) to :data:`METHODS` under
    its ``name``; usable as a class decorator. A name already taken by another class is
    an error."""
    if not (isinstance(cls, type) and issubclass(cls, Method)) or inspect.isabstract(cls):
        raise TypeError(f"{cls!r} is not a concrete subclass of anonlab.methods.Method")
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"method class {cls.__name__} sets no name")
    if METHODS.setdefault(name, cls) is not cls:
        raise TypeError(f"method {name!r} is already registered as {METHODS[name].__name__}")
    return cls


def grid_axes() -> dict[str, Axis]:
    """Every grid axis a run may sweep, by name: the axes the methods share
    (:data:`~anonlab.axes.SHARED_AXES`), each registered method's own (the first method
    to declare a name gives its declaration), then the data view's
    (:data:`~anonlab.datasets.axes.VIEW_AXES`)."""
    axes = dict(SHARED_AXES)
    for cls in METHODS.values():
        for axis in cls.own_axes:
            axes.setdefault(axis.name, axis)
    for name, axis in VIEW_AXES.items():
        axes.setdefault(name, axis)
    return axes


# sdcMicro's vocabulary for the same methods.
ALIASES: dict[str, str] = {"onedims": "ir", "microaggregation_mdav": "mdav"}


#: ``<method>/<form>`` names a method released in another form (:data:`FORMS`), e.g.
#: ``ir_laplace/shuffled_columns``: a run can put both forms of one method side by side
VARIANT_SEPARATOR = "/"


def split_variant(name: str) -> tuple[str, str | None]:
    """``(method, form)`` of a method name, ``form`` ``None`` for a plain name."""
    base, separator, form = str(name).partition(VARIANT_SEPARATOR)
    if separator and form not in FORMS:
        raise ParameterError(
            f"method {name!r}: {form!r} is not a release form; choose one of {list(FORMS)}"
        )
    return base, (form or None)


def method_class(name: str) -> type[Method]:
    """The registered class of ``name`` (or of an alias of it, or of a variant
    ``<method>/<form>``)."""
    name = split_variant(name)[0]
    name = ALIASES.get(name, name)
    return METHODS[check_choice(name, "method", list(METHODS))]


def make_method(
    name: str, params: Mapping[str, Any], options: Mapping[str, Any] | None = None
) -> Method:
    """Instantiate ``name`` with the grid parameters it depends on, ignoring the others.

    sdcMicro's ``aggr`` is accepted for ``k``; an axis with a default (a keyword default
    of the class's dataclass field) may be omitted and keeps it. ``options``
    (``{option: value}``) chooses among the readings the method declares in
    ``option_choices``; an unknown option or value raises a
    :class:`~anonlab.validation.ParameterError` naming ``options.<name>.<option>``.
    Omitted options keep their defaults.
    """
    cls = method_class(name)
    form = split_variant(name)[1]
    if form is not None:
        options = {**(options or {}), "form": form}
    params = dict(params)
    if "aggr" in params and "k" not in params:
        params["k"] = params.pop("aggr")
    defaults = cls.axis_defaults()
    missing = [axis for axis in cls.axes if axis not in params and axis not in defaults]
    if missing:
        raise TypeError(f"method {cls.name!r} needs parameter(s) {missing}")
    chosen = check_options(cls.name, options, cls.choices())
    return cls(**{axis: params[axis] for axis in cls.axes if axis in params}, **chosen)
