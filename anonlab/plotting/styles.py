"""The visual grammar of every figure: one channel per thing a reader tells apart.

- **Hue and marker: the method.** Each method declares its colour and its marker on its
  class (:attr:`~anonlab.methods.base.Method.colour`, :attr:`~anonlab.methods.base.Method.marker`),
  the same in every figure. The declared colours come from the Okabe–Ito palette, extended
  with Paul Tol's and ColorBrewer's; any two registered methods differ by a CIE76 colour
  difference ΔE*ab of at least :data:`MIN_DELTA_E` (:func:`delta_e`, in CIELAB under D65),
  and no two share a marker, so a method stays recognisable where two hues come close
  under a colour-vision deficiency. A method that declares neither (one registered by a
  user) gets one of :data:`FALLBACK_COLORS`, chosen at least as far from every declared
  colour, and one of :data:`FALLBACK_MARKERS`, both by its name. Every line of a method
  carries its marker: at every point of a short curve, evenly spaced along a long one
  and along a reference line (:func:`mark_every`).
- **Line style: the release form.** A release form ``<method>/<form>``
  (:func:`~anonlab.methods.split_variant`) keeps its method's hue and marker and takes
  the form's line style (:data:`FORM_STYLES`: records solid, shuffled columns dashed,
  shuffled rows dotted). A method that ignores the x axis (plain Laplace against k) is a
  horizontal reference line, thinner, in its form's reference style
  (:data:`REFERENCE_STYLES`: dash-dotted for records).
- **Marker fill and size: the series value** (ε, α, t, …, a figure's ``series``), in
  order: the smallest value's markers hollow and small, the largest's filled and large
  (:func:`series_marker`). In a panel of one method (a facet or row per method) the
  line's lightness follows the series value too, light to dark within the method's hue
  (:func:`series_shade`); the legend's keys are then grey.
- **Band: the 95 % interval of the mean** over repetitions, light, in the line's colour;
  the legend says how many repetitions it rests on (:func:`band_label`). A panel whose
  points of a method with random releases (or of a random metric) rest on fewer than
  :data:`MIN_REPETITIONS` repetitions says so on the panel (:func:`repetitions_note`).
- **Axes.** A continuous x axis (ε, δ, …) of positive values spanning a factor of
  :data:`LOG_SPAN` or more is logarithmic (:func:`log_x`); an integer axis (k, m, …) is
  linear, as the papers draw it, with whole-number ticks. A hollow triangle on the floor
  of a log axis is a mean of 0 (or below), which the axis cannot show
  (:data:`ZERO_MARKER`, ``"v"``; :data:`WALL_MARKER`, ``"<"``, on the left wall of a
  risk–utility map): a method's marker is neither.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from anonlab.methods import METHODS, method_class, split_variant
from anonlab.release import FORMS
from anonlab.validation import ParameterError

#: the least CIE76 colour difference between the declared colours of any two methods
MIN_DELTA_E = 20.0

# Methods that declare no colour (registered by a user): a colour chosen by name, each at
# a ΔE*ab of 28 or more from every declared colour and from one another.
FALLBACK_COLORS = (
    "#991122",
    "#3388ff",
    "#555522",
    "#ff77dd",
    "#66bb44",
    "#991188",
    "#444466",
    "#bb9977",
)

#: markers of methods that declare none, chosen by name: shapes no declared method uses
FALLBACK_MARKERS: tuple[Any, ...] = ((7, 1, 0), (5, 0, 180), (10, 1, 0), (4, 0, 22.5), (7, 0, 0))

FORM_STYLES: dict[str, Any] = {
    "records": "-",
    "shuffled_columns": (0, (5, 2)),
    "shuffled_rows": (0, (1.2, 1.6)),
}
"""Line style of a curve per release form (:data:`~anonlab.release.FORMS`)."""

REFERENCE_STYLES: dict[str, Any] = {
    "records": (0, (7, 2, 1.5, 2)),
    "shuffled_columns": (0, (7, 2, 1.5, 2, 1.5, 2)),
    "shuffled_rows": (0, (1.2, 3.5)),
}
"""Line style of a reference line (a method that ignores the x axis) per release form."""

CURVE_WIDTH = 1.6
REFERENCE_WIDTH = 1.2
MARKER_SIZE = 5.0  # points: a line's markers when the figure has no series
#: marker sizes (points) of the smallest and the largest series value
SERIES_SIZES = (3.8, 7.0)
MARKER_EDGE = 1.0  # width of a marker's edge, in its line's colour
BAND_ALPHA = 0.18  # the 95 % band behind a line: its colour, light
#: a band narrower than this fraction of its mean is no band (repetitions that agree up
#: to rounding, as a deterministic method's do)
BAND_TOLERANCE = 1e-9
ZERO_MARKER = "v"  # a mean of 0 or below on a log axis: on its floor, pointing down
WALL_MARKER = "<"  # a mean of 0 or below on a risk–utility map's log x axis: its left wall
ZERO_LABEL = "0 (below the log axis)"
MARKERS_PER_LINE = 10  # a curve of up to twice as many points is marked at every point
#: distance between the markers of a longer curve and of a reference line, as fractions
#: of the axes' diagonal (about 10 and 7 markers across a panel)
MARKER_SPACING = 0.08
REFERENCE_SPACING = 0.12
REFERENCE_MARKERS = 8  # zeros of a reference line marked on the floor of a log axis, at most
#: points resting on fewer repetitions than this decide nothing: the panel says so
MIN_REPETITIONS = 3
#: a positive x axis whose largest value is this many times its smallest is logarithmic
LOG_SPAN = 10.0
#: the grey of the legend's keys that stand for a series value in every method's hue
KEY_GREY = "#777777"


def _rgb(color: str | Sequence[float]) -> np.ndarray:
    """``color`` as 3 floats in [0, 1]: ``"#rrggbb"``, an RGB(A) sequence of floats, or
    any other colour matplotlib reads (a name such as ``"tab:blue"``, read by matplotlib,
    imported then)."""
    if isinstance(color, str) and len(color) == 7 and color.startswith("#"):
        try:
            return np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0
        except ValueError:
            pass
    if not isinstance(color, str):
        return np.asarray(color, dtype=float)[:3]
    from matplotlib.colors import to_rgb

    try:
        return np.asarray(to_rgb(color), dtype=float)
    except ValueError:
        raise ParameterError(f"colour {color!r} is no colour matplotlib knows") from None


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{int(round(float(c) * 255)):02x}" for c in rgb)


def cielab(color: str | Sequence[float]) -> np.ndarray:
    """CIELAB coordinates ``(L*, a*, b*)`` of an sRGB ``color`` under the D65 white point.

    Parameters
    ----------
    color : str or sequence of float
        ``"#rrggbb"``, RGB(A) floats in [0, 1] (as matplotlib returns them), or a colour
        name matplotlib knows.

    Returns
    -------
    numpy.ndarray
        ``L*`` in [0, 100] and ``a*``, ``b*``.
    """
    rgb = _rgb(color)
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = (
        np.array(
            [
                [0.4124564, 0.3575761, 0.1804375],
                [0.2126729, 0.7151522, 0.0721750],
                [0.0193339, 0.1191920, 0.9503041],
            ]
        )
        @ linear
    )
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e(one: str | Sequence[float], other: str | Sequence[float]) -> float:
    """CIE76 colour difference ΔE*ab of two colours: their Euclidean distance in CIELAB
    (:func:`cielab`); about 2 is just noticeable, 20 or more tells lines apart at a
    glance."""
    return float(np.linalg.norm(cielab(one) - cielab(other)))


def free_colours(count: int = 8, lightest: float = 80.0) -> list[str]:
    """Colours a new method may declare (its ``colour``): matplotlib's named CSS colours
    at a CIE76 ΔE of :data:`MIN_DELTA_E` or more from every registered method's, from
    every one of :data:`FALLBACK_COLORS` (kept for methods that declare none) and from
    one another, none lighter than ``lightest`` (L*), so a line shows on white.

    Parameters
    ----------
    count : int
        How many to return, at most.
    lightest : float
        The largest lightness L* in [0, 100] a colour may have.

    Returns
    -------
    list of str
        Hex colours, in order of hue name.
    """
    from matplotlib.colors import CSS4_COLORS

    taken = [*(cls.colour for cls in METHODS.values() if cls.colour), *FALLBACK_COLORS]
    free: list[str] = []
    for colour in sorted({c.lower() for c in CSS4_COLORS.values()}):
        if cielab(colour)[0] > lightest:
            continue
        if all(delta_e(colour, other) >= MIN_DELTA_E for other in [*taken, *free]):
            free.append(colour)
        if len(free) == count:
            break
    return free


#: shapes a method may take as its marker, in order of preference: matplotlib's filled
#: symbols, then stars of 3 to 12 points (``(points, 1, 0)``; the 5-point star is
#: ``"*"``), then line markers, which have no face, so a figure's series value shows on
#: them by size alone: plus, cross and asterisks of 3, 5 and 6 arms (``(arms, 2, 0)``)
_MARKER_SHAPES: tuple[Any, ...] = (
    *("o", "s", "^", "D", "P", "X", "*", "p", "h", "H", "8", "d", ">"),
    *((n, 1, 0) for n in range(3, 13) if n != 5),
    *("+", "x", (3, 2, 0), (5, 2, 0), (6, 2, 0)),
)


def _shape(marker: Any) -> Any:
    """``marker`` with a polygon's or star's angle taken modulo its symmetry, so two
    specifications of one drawn shape compare equal."""
    if isinstance(marker, tuple) and len(marker) == 3:
        n, style, angle = marker
        return (n, style, round(angle % (360 / n), 6))
    return marker


def free_markers(count: int = 5) -> list[Any]:
    """Markers a new method may declare (its ``marker``): shapes no registered method
    declares, none of :data:`FALLBACK_MARKERS` (kept for methods that declare none), and
    neither :data:`ZERO_MARKER` nor :data:`WALL_MARKER`, which mark a mean of 0.

    Parameters
    ----------
    count : int
        How many to return, at most.

    Returns
    -------
    list
        matplotlib marker specifications: a symbol such as ``"h"``, or
        ``(points, 1, angle)``, a star.
    """
    taken = [cls.marker for cls in METHODS.values() if cls.marker is not None]
    taken = {_shape(m) for m in (*taken, *FALLBACK_MARKERS, ZERO_MARKER, WALL_MARKER)}
    return [shape for shape in _MARKER_SHAPES if _shape(shape) not in taken][:count]


def _mix(color: str, other: str, share: float) -> str:
    """``color`` with ``share`` of ``other`` mixed in (sRGB, linear in the components)."""
    return _hex((1 - share) * _rgb(color) + share * _rgb(other))


def _by_name(name: str, choices: Sequence[Any]) -> Any:
    return choices[zlib.crc32(str(name).encode()) % len(choices)]


def _declared(name: str, attribute: str) -> Any:
    try:
        return getattr(method_class(name), attribute)
    except ParameterError:  # not registered
        return None


def method_color(name: str) -> str:
    """The fixed colour of method ``name``: the one its class declares, else by its name.

    Parameters
    ----------
    name : str
        Registry name of the method, or of one of its release forms
        (``<method>/<form>``), which keeps its method's colour.

    Returns
    -------
    str
        A hex colour, the same in every figure and run.
    """
    base, _ = split_variant(name)
    return _declared(base, "colour") or _by_name(base, FALLBACK_COLORS)


def method_marker(name: str) -> Any:
    """The fixed marker of method ``name`` (or of its release form ``<method>/<form>``):
    the one its class declares, else one of :data:`FALLBACK_MARKERS` by its name."""
    base, _ = split_variant(name)
    return _declared(base, "marker") or _by_name(base, FALLBACK_MARKERS)


def line_style(name: str, reference: bool = False) -> Any:
    """The line style of method ``name``'s lines: its release form's
    (:data:`FORM_STYLES`), or the form's reference style (:data:`REFERENCE_STYLES`) for
    a method drawn as a horizontal reference line."""
    form = split_variant(name)[1] or FORMS[0]
    return (REFERENCE_STYLES if reference else FORM_STYLES)[form]


def _fraction(rank: int, count: int) -> float:
    """Where series value ``rank`` of ``count`` lies between the smallest (0) and the
    largest (1); 1 when there is one value."""
    return 1.0 if count <= 1 else rank / (count - 1)


def series_marker(color: str, rank: int, count: int) -> dict[str, Any]:
    """Marker properties of the ``rank``-th of ``count`` series values (in order) on a
    line of ``color``: the smallest hollow (a white face) and small, the largest filled
    and large, the values between tinted and sized in proportion."""
    f = _fraction(rank, count)
    low, high = SERIES_SIZES
    return {
        "markersize": low + f * (high - low) if count > 1 else MARKER_SIZE,
        "markerfacecolor": _mix(color, "#ffffff", 1 - f),
        "markeredgecolor": color,
        "markeredgewidth": MARKER_EDGE,
    }


def series_shade(color: str, rank: int, count: int) -> str:
    """The line colour of the ``rank``-th of ``count`` series values in a panel of one
    method: its hue, light for the smallest value, dark for the largest, the method's own
    colour in the middle."""
    if count <= 1:
        return color
    t = 2 * _fraction(rank, count) - 1
    return _mix(color, "#ffffff", -0.6 * t) if t < 0 else _mix(color, "#000000", 0.35 * t)


def mark_every(
    n_points: int, index: int, n_series: int, sparse: bool = False
) -> tuple[float, float] | None:
    """Which points of a line carry its marker (``markevery``).

    Parameters
    ----------
    n_points : int
        Points on the line.
    index, n_series : int
        The line's series value's rank among ``n_series``: markers shift by it so that
        series do not stack.
    sparse : bool
        Mark a reference line: markers :data:`REFERENCE_SPACING` apart, whatever its
        number of points.

    Returns
    -------
    tuple of float or None
        ``(start, step)`` as fractions of the axes' diagonal (matplotlib's float
        ``markevery``: evenly spaced as drawn, on a log axis too), :data:`MARKER_SPACING`
        apart on a curve of more than ``2 ×`` :data:`MARKERS_PER_LINE` points; None:
        every point of a shorter curve.
    """
    if not sparse and n_points <= 2 * MARKERS_PER_LINE:
        return None
    step = REFERENCE_SPACING if sparse else MARKER_SPACING
    return (step * index / max(n_series, 1), step)


def band_visible(values: Any, lows: Any, highs: Any) -> bool:
    """Whether the band ``lows``–``highs`` around ``values`` shows: some point has an
    interval (more than one repetition) wider than :data:`BAND_TOLERANCE` of its mean.
    Repetitions that all agree (a deterministic method) draw no band."""
    values, lows, highs = (np.asarray(a, dtype=float) for a in (values, lows, highs))
    width = highs - lows
    scale = np.maximum(np.abs(values), np.finfo(float).tiny)
    return bool(np.any(np.isfinite(width) & (width > 2 * BAND_TOLERANCE * scale)))


def _count(n: int) -> str:
    return f"{n} repetition" + ("" if n == 1 else "s")


def band_label(repetitions: Iterable[int]) -> str:
    """The legend's entry for the bands: their level and the repetitions the banded
    points rest on (``"95 % interval of the mean over 10 repetitions"``; a range when
    points differ). No "n = …": a grid axis may be called n (a facet's "n = 100")."""
    ns = sorted({int(n) for n in repetitions})
    counted = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"
    return f"95 % interval of the mean over {counted} repetition" + ("s" if ns[-1] > 1 else "")


def repetitions_note(fewest: int) -> str:
    """The note on a panel whose points rest on ``fewest`` (< :data:`MIN_REPETITIONS`)
    repetitions."""
    if fewest <= 1:
        return f"{_count(fewest)}: no interval, decides nothing"
    return f"{_count(fewest)}: too few for an interval, decides nothing"


def log_x(values: Any) -> bool:
    """Whether an x axis through ``values`` is logarithmic: numeric, every value
    positive, the largest at least :data:`LOG_SPAN` times the smallest."""
    xs = np.asarray(values, dtype=float)
    xs = xs[np.isfinite(xs)]
    return bool(len(xs) and (xs > 0).all() and xs.max() >= LOG_SPAN * xs.min())


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
