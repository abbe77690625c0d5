"""The method registry: every paper method by one name, usable from config and Python.

Adding a method is one module and one entry in :data:`METHODS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonlab.methods.base import FORMS, Method, Release, postprocess
from anonlab.methods.idp import Dp, DpUm, IdpCbls, IdpLs, Original
from anonlab.methods.individual_ranking import IndividualRankingLaplace, IndividualRankingMethod
from anonlab.methods.laplace import Laplace
from anonlab.methods.multivariate import Imdav, ImdavLaplace, ImdavLaplaceComposed, Mdav
from anonlab.methods.synthetic import Aim, Mst
from anonlab.methods.tcloseness import (
    TCloseKFirst,
    TCloseMerge,
    TCloseTFirst,
    TCloseTFirstMerged,
)
from anonlab.validation import ParameterError, check_choice, check_options

__all__ = [
    "ALIASES",
    "METHODS",
    "Method",
    "Release",
    "make_method",
    "method_class",
    "postprocess",
    "split_variant",
]

METHODS: dict[str, type[Method]] = {
    cls.name: cls
    for cls in (
        Laplace,
        IndividualRankingMethod,
        IndividualRankingLaplace,
        Mdav,
        Imdav,
        ImdavLaplace,
        ImdavLaplaceComposed,
        TCloseMerge,
        TCloseKFirst,
        TCloseTFirst,
        TCloseTFirstMerged,
        Dp,
        DpUm,
        IdpLs,
        IdpCbls,
        Original,
        Mst,
        Aim,
    )
}

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

    sdcMicro's ``aggr`` is accepted for ``k``. ``options`` (``{option: value}``) chooses
    among the readings the method declares in ``option_choices``; an unknown option or
    value raises a :class:`~anonlab.validation.ParameterError` naming
    ``options.<name>.<option>``. Omitted options keep their defaults.
    """
    cls = method_class(name)
    form = split_variant(name)[1]
    if form is not None:
        options = {**(options or {}), "form": form}
    params = dict(params)
    if "aggr" in params and "k" not in params:
        params["k"] = params.pop("aggr")
    missing = [axis for axis in cls.axes if axis not in params]
    if missing:
        raise TypeError(f"method {cls.name!r} needs parameter(s) {missing}")
    chosen = check_options(cls.name, options, cls.choices())
    return cls(**{axis: params[axis] for axis in cls.axes}, **chosen)
