"""Line styles shared by every figure: one fixed colour per method (its ``colour``), so
figures compare.

Colour tells the method, a marker tells the series value (ε, α, …), the line style tells a
curve (solid) from a reference line (a method that ignores the x axis: dashed, dotted, …).
A light band of the line's colour is its 95 % interval; a hollow triangle on the floor of a
log axis is a mean of 0 (or below), which the axis cannot show.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from anonlab.methods import method_class, split_variant
from anonlab.validation import ParameterError

# Methods that declare no colour (registered by a user): a colour chosen by name.
FALLBACK_COLORS = (
    "#5254a3",
    "#8ca252",
    "#bd9e39",
    "#ad494a",
    "#a55194",
    "#6b6ecf",
    "#b5cf6b",
    "#e7ba52",
    "#d6616b",
    "#ce6dbd",
    "#9c9ede",
    "#cedb9c",
)

REFERENCE_STYLES: tuple[Any, ...] = (
    "--",
    ":",
    "-.",
    (0, (5, 1, 1, 1, 1, 1)),
    (0, (8, 3)),
    (0, (1, 3)),
    (0, (3, 1, 1, 1, 1, 1, 1, 1)),
)
"""Line styles of reference lines, in order: each reference line of a figure gets its own."""

SERIES_MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Markers of the series values (ε, α, …), in order of value."""

CURVE_STYLES: tuple[Any, ...] = ("-", (0, (6, 2)), (0, (2, 1)), (0, (6, 2, 2, 2)))
"""Curve line styles by method when colours show series values instead (many of them)."""

CURVE_WIDTH = 1.6
REFERENCE_WIDTH = 1.4
BAND_ALPHA = 0.18  # the 95 % band behind a line: its colour, light
#: a band narrower than this fraction of its mean is no band (repetitions that agree up
#: to rounding, as a deterministic method's do)
BAND_TOLERANCE = 1e-9
ZERO_MARKER = "v"  # a mean of 0 or below on a log axis: on its floor, pointing down
ZERO_LABEL = "0 (below the log axis)"
MARKERS_PER_LINE = 10  # markers on a curve of many points; every point if it has fewer
REFERENCE_MARKERS = 8  # markers on a reference line, at most


#: how much darker a method's colour is for one of its release forms (``<method>/<form>``)
VARIANT_SHADE = 0.55


def method_color(name: str) -> str:
    """The fixed colour of method ``name``: the one its class declares, else by its name.

    Parameters
    ----------
    name : str
        Registry name of the method.

    Returns
    -------
    str
        A hex colour, the same in every figure and run.
    """
    base, form = split_variant(name)
    if form is not None:  # a release form of a method: its colour, darkened
        red, green, blue = (int(method_color(base)[i : i + 2], 16) for i in (1, 3, 5))
        return "#{:02x}{:02x}{:02x}".format(*(int(c * VARIANT_SHADE) for c in (red, green, blue)))
    try:
        declared = method_class(name).colour
    except ParameterError:  # not registered
        declared = None
    if declared:
        return declared
    return FALLBACK_COLORS[zlib.crc32(str(name).encode()) % len(FALLBACK_COLORS)]


def mark_every(
    n_points: int, index: int, n_series: int, sparse: bool = False
) -> tuple[int, int] | None:
    """Which points of a line carry its marker (``markevery``).

    Parameters
    ----------
    n_points : int
        Points on the line.
    index, n_series : int
        The line's series value's rank among ``n_series``: markers shift by it so that
        series do not stack.
    sparse : bool
        Mark a reference line: at most :data:`REFERENCE_MARKERS` markers, at least every
        second point.

    Returns
    -------
    tuple of int or None
        ``(start, step)``, or None: every point of a short curve.
    """
    most = REFERENCE_MARKERS if sparse else MARKERS_PER_LINE
    if not sparse and n_points <= 2 * MARKERS_PER_LINE:
        return None
    step = max(-(-n_points // most), 2 if sparse else 1)
    return (index * step // max(n_series, 1), step)


def band_visible(values: Any, lows: Any, highs: Any) -> bool:
    """Whether the band ``lows``–``highs`` around ``values`` shows: some point has an
    interval (more than one repetition) wider than :data:`BAND_TOLERANCE` of its mean.
    Repetitions that all agree (a deterministic method) draw no band."""
    values, lows, highs = (np.asarray(a, dtype=float) for a in (values, lows, highs))
    width = highs - lows
    scale = np.maximum(np.abs(values), np.finfo(float).tiny)
    return bool(np.any(np.isfinite(width) & (width > 2 * BAND_TOLERANCE * scale)))


def zero_marker_style(color: Any) -> dict[str, Any]:
    """Line properties of the markers of means of 0 on a log axis's floor: hollow
    triangles in the line's ``color``, drawn over the axis's edge (not clipped)."""
    return {
        "linestyle": "none",
        "marker": ZERO_MARKER,
        "markersize": 6,
        "markerfacecolor": "none",
        "markeredgecolor": color,
        "markeredgewidth": 1.2,
        "color": color,
        "clip_on": False,
        "zorder": 4,
    }
