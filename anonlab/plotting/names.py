"""Human names for what figures show: methods, metrics and grid axes.

The one place a figure's reader-facing text comes from. A name missing from a table falls
back to the registry name, so a method registered by a user still plots.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

from anonlab.methods import ALIASES, split_variant

METHOD_NAMES: dict[str, str] = {
    "laplace": "Laplace",
    "ir": "Individual ranking (IR)",
    "ir_laplace": "IR + Laplace (DP-IR Alg. 1)",
    "mdav": "MDAV",
    "imdav": "Insensitive MDAV",
    "imdav_laplace": "Insensitive MDAV + Laplace [17]",
    "imdav_laplace_composed": "Insensitive MDAV + Laplace (ε/m per attribute)",
    "tclose_merge": "Alg. 1 (merge)",
    "tclose_kfirst": "Alg. 2 (k-anonymity first)",
    "tclose_tfirst": "Alg. 3 (t-closeness first)",
    "tclose_tfirst_merged": "Alg. 3 + merging",
    "dp": "DP (Laplace)",
    "dp_um": "DP-UM",
    "idp_ls": "iDP-LS",
    "idp_cbls": "iDP-CBLS",
    "original": "Original data",
    "mst": "MST (DP synthetic data)",
    "aim": "AIM (DP synthetic data)",
}
"""Display name of every registered method (:data:`anonlab.methods.METHODS`)."""

METRIC_NAMES: dict[str, str] = {
    "re": "Relative error (RE)",
    "jsd": "Jensen–Shannon divergence (bits)",
    "sse": "SSE / m",
    "sse_tcm": "Normalised SSE (TCM Eq. 5)",
    "variance_change": "Δσ² (relative variance change)",
    "cluster_min": "Smallest cluster size",
    "cluster_mean": "Mean cluster size",
    "max_emd": "Largest cluster EMD (t reached)",
    "runtime": "Run time (s)",
    "sse_idp": "Mean SSE (iDP Eq. 5)",
    "sse_idp_sd": "Mean SSE over σ (iDP)",
    "f_measure": "F-measure",
    "correlation_difference": "Mean |Δ correlation| over attribute pairs",
    "marginal_tvd": "2-way marginal TVD",
    "record_linkage": "Record linkage risk (DBRL)",
    "rank_linkage": "Rank-based record linkage risk",
    "interval_disclosure": "Interval disclosure risk",
}
"""Display name, with unit, of every registered metric (:data:`anonlab.metrics.METRICS`)."""

AXIS_NAMES: dict[str, str] = {
    "k": "k (cluster size)",
    "epsilon": "ε",
    "t": "t",
    "m": "m (protected attributes)",
    "alpha": "α",
}
"""Axis label of every grid axis."""

AXIS_SYMBOLS: dict[str, str] = {"epsilon": "ε", "alpha": "α"}
"""Short symbol of a grid axis in panel titles and legend entries (``ε = 0.1``)."""


def method_name(name: str) -> str:
    """Display name of method ``name`` (or of an alias of it); ``name`` if it has none.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"tclose_kfirst"``.

    Returns
    -------
    str
        E.g. ``"Alg. 2 (k-anonymity first)"``.
    """
    base, form = split_variant(name)
    if form is not None:
        return f"{method_name(base)}, {form.replace('_', ' ')}"
    return METHOD_NAMES.get(name) or METHOD_NAMES.get(ALIASES.get(name, ""), str(name))


def metric_name(name: str) -> str:
    """Display name, with unit, of metric ``name``; ``name`` if it has none."""
    return METRIC_NAMES.get(name, str(name))


def axis_name(name: str) -> str:
    """Axis label of grid axis ``name`` (e.g. ``"k (cluster size)"``); ``name`` if none."""
    return AXIS_NAMES.get(name, str(name))


def format_value(value: Any) -> str:
    """``value`` as a figure shows it: floats in ``%g`` form, the rest as ``str``."""
    if isinstance(value, Integral) or not isinstance(value, Real):
        return str(value)
    return f"{float(value):g}"


def value_label(axis: str, value: Any) -> str:
    """Label of one value of a facet, row or series axis.

    Parameters
    ----------
    axis : str
        The column the value comes from: a grid axis, ``"dataset"``, ``"method"``,
        ``"attribute"`` or ``"class"``.
    value : Any
        The value.

    Returns
    -------
    str
        ``"ε = 0.1"``, ``"m = 8"``, ``"dataset = census_mcd"``; a method's display name
        for ``axis == "method"``.
    """
    if axis == "method":
        return method_name(value)
    return f"{AXIS_SYMBOLS.get(axis, axis)} = {format_value(value)}"
