"""What every method shares: the call shape and the release it returns."""

from __future__ import annotations

import dataclasses
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from anonlab.axes import SHARED_AXES, Axis
from anonlab.cost import LINEAR, Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import Guarantee
from anonlab.mechanisms import SAMPLERS
from anonlab.mechanisms.generators import generator_name
from anonlab.mechanisms.measurements import Measurement
from anonlab.release import FORMS, Release
from anonlab.validation import ParameterError, check_option


@dataclass(frozen=True)
class Method(ABC):
    """A registered protection method, called as ``method.protect(dataset, rng)``.

    ``axes`` names the grid parameters the method depends on (besides the data view's,
    such as ``m``), so the runner skips cells that differ only in other parameters and
    plots draw it as a horizontal line against an axis it ignores; each is a shared axis
    (:data:`~anonlab.axes.SHARED_AXES`: ε, k, t) or one of ``own_axes``. ``randomized`` is false for
    deterministic methods, which the runner computes once instead of once per repetition.
    ``partition`` says what the release's cluster labels are: ``None`` (no clusters),
    ``"attribute"`` (one partition per attribute, individual ranking) or ``"record"``
    (one cluster per record, multivariate microaggregation); cluster metrics check it.
    ``record_aligned`` is false for methods whose released records do not correspond to
    the original ones (synthetic data): metrics that compare each record with its own
    release refuse them (requirement ``record_correspondence``).

    ``option_choices`` names the method's options, each a reading of its paper that a run
    may choose (config ``options.<name>.<option>``), with its allowed values, the first the
    default; each option is also a dataclass field with that default. Options are not grid
    axes: they do not enter the cell id, so a reading reuses the primary run's random
    streams.
    """

    form: str = field(default=FORMS[0], kw_only=True)
    sampler: str = field(default=SAMPLERS[0], kw_only=True)
    name: ClassVar[str]
    axes: ClassVar[tuple[str, ...]]
    randomized: ClassVar[bool] = True
    partition: ClassVar[str | None] = None  # clusters: None, "attribute" or "record"
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {}
    #: the release forms (:data:`FORMS`) the method's privacy proof covers; any other is
    #: refused. ``records`` is always allowed: it is the papers' release
    forms: ClassVar[tuple[str, ...]] = ("records",)
    #: whether ``shuffled_rows`` needs one protected attribute (a partition per attribute:
    #: whole rows would keep the clusters' co-membership across attributes)
    rows_need_one_attribute: ClassVar[bool] = False
    #: whether the method draws Laplace noise, so that it takes option ``sampler``
    draws_laplace: ClassVar[bool] = False
    #: whether its noisy values are rounded to the whole numbers of attributes that hold
    #: them (:func:`postprocess`; DP-IR §4.3), so the release depends on the ``integer``
    #: flag, which must then be declared, not read off the data
    round_integers: ClassVar[bool] = False
    #: whether the release synthesises its own class (synthetic data), so that a metric
    #: of the class may train on it without record correspondence
    carries_class: ClassVar[bool] = False

    #: display name in figures and tables (empty: the registry name), and the method's
    #: colour and marker (a matplotlib marker), the same in every figure (``None``: one
    #: chosen from its name); :mod:`anonlab.plotting.styles` says how figures use them
    label: ClassVar[str] = ""
    colour: ClassVar[str | None] = None
    marker: ClassVar[str | tuple[int, int, float] | None] = None
    #: whether the method adds noise to cluster centroids and releases every record with
    #: its cluster's noisy value (in record order equal values show the partition)
    cluster_noise: ClassVar[bool] = False
    #: why a neighbour that re-ranks records costs more than the claim (``None``: no such
    #: loss), for sensitivities that hold with the clustering fixed
    reranking: ClassVar[str | None] = None

    #: capabilities and needs, declared (:meth:`tags` lists them): numerical attributes
    #: only; the attribute roles the method needs; whether it needs public bounds (a
    #: domain for noise or binning)
    numeric_only: ClassVar[bool] = False
    needs_roles: ClassVar[tuple[str, ...]] = ()
    needs_bounds: ClassVar[bool] = False
    needs_class: ClassVar[bool] = False
    #: whether every protected attribute needs a public set of categories to draw among
    #: (a categorical attribute's taxonomy, or the whole numbers of a whole-numbered
    #: attribute's domain): the method's :meth:`check_dataset` refuses any other (PRAM)
    needs_categories: ClassVar[bool] = False

    #: the grid axes this method adds (or a shared one it constrains further), each an
    #: :class:`~anonlab.axes.Axis`: its range or check, label and symbol, test and bad
    #: values; its default is the dataclass field's
    own_axes: ClassVar[tuple[Axis, ...]] = ()
    #: seconds of one release as the data grows (:class:`~anonlab.cost.Cost`: a formula in
    #: n, m and the method's parameters, with its constant measured on this machine kind
    #: by ``benchmarks/timings/cost_model.py``); the plan stage sums it over a run's jobs
    cost: ClassVar[Cost] = LINEAR
    #: small parameter sets the conformance checks (:mod:`anonlab.conformance`) build the
    #: method with, each ``{axis or option: value}``; empty: one set derived from its axes'
    #: test values (:attr:`~anonlab.axes.Axis.test_value`), else their defaults
    #: (:meth:`test_parameters`)
    test_params: ClassVar[tuple[dict[str, Any], ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A method's every axis is declared: shared, or one of its ``own_axes``."""
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:  # a method of its own: no label, colour or marker inherited
            cls.label = cls.__dict__.get("label", "")
            cls.colour = cls.__dict__.get("colour")
            cls.marker = cls.__dict__.get("marker")
        axes = getattr(cls, "axes", ())
        for axis in cls.own_axes:
            if not isinstance(axis, Axis):
                raise TypeError(f"method class {cls.__name__}: {axis!r} in own_axes is no Axis")
            if axis.name not in axes:
                raise TypeError(
                    f"method class {cls.__name__}: own axis {axis.name!r} is not in axes {axes}"
                )
            if axis.view is not None:
                raise TypeError(
                    f"method class {cls.__name__}: axis {axis.name!r} has a view: an axis "
                    "of the data view is declared with the data sets (anonlab.datasets.axes)"
                )
        own = {axis.name for axis in cls.own_axes}
        unchecked = [a for a in axes if a not in own and a not in SHARED_AXES]
        if unchecked:
            raise TypeError(
                f"method class {cls.__name__}: axis {unchecked[0]!r} has no "
                "check; declare it in own_axes (an anonlab.axes.Axis)"
            )

    @classmethod
    def axis(cls, name: str) -> Axis:
        """The declaration of grid axis ``name`` of the method: its own, else the shared
        one (:data:`~anonlab.axes.SHARED_AXES`)."""
        for axis in cls.own_axes:
            if axis.name == name:
                return axis
        return SHARED_AXES[name]

    @classmethod
    def declared_axes(cls) -> dict[str, Axis]:
        """The declaration of each of the method's grid axes, in ``axes`` order."""
        return {name: cls.axis(name) for name in cls.axes}

    @classmethod
    def tags(cls) -> tuple[str, ...]:
        """The method's capability tags: ``numeric-only``, ``clusters`` (its release
        carries a partition), ``record-aligned`` (released row i is record i in form
        ``records``), ``randomized``, ``needs-roles``, ``needs-class``, ``public-bounds``,
        ``needs-categories``."""
        aligned = cls.__dict__.get("record_aligned", getattr(cls, "record_aligned", True))
        flags = (
            ("numeric-only", cls.numeric_only),
            ("clusters", cls.partition is not None),
            ("record-aligned", not isinstance(aligned, bool) or aligned),
            ("randomized", cls.randomized),
            ("needs-roles", bool(cls.needs_roles)),
            ("needs-class", cls.needs_class),
            ("public-bounds", cls.needs_bounds or cls.draws_laplace),
            ("needs-categories", cls.needs_categories),
        )
        return tuple(tag for tag, holds in flags if holds)

    @classmethod
    def axis_defaults(cls) -> dict[str, Any]:
        """The default of each grid axis that has one (a keyword default of its dataclass
        field): a grid or a call may omit such an axis.

        Raises
        ------
        TypeError
            An axis declares a :attr:`~anonlab.axes.Axis.default` its field does not have.
        """
        defaults = {
            f.name: f.default
            for f in dataclasses.fields(cls)
            if f.name in cls.axes and f.default is not dataclasses.MISSING
        }
        for name, axis in cls.declared_axes().items():
            if axis.default is not None and defaults.get(name, dataclasses.MISSING) != axis.default:
                field_says = f"defaults to {defaults[name]!r}" if name in defaults else "has none"
                raise TypeError(
                    f"method {cls.name!r}: axis {name!r} declares default {axis.default!r} but "
                    f"its dataclass field {field_says}; declare the default once, on the field"
                )
        return defaults

    @classmethod
    def test_parameters(cls) -> list[dict[str, Any]]:
        """The parameter sets the conformance checks build the method with: ``test_params``
        if declared, else one set of each axis's test value, or its default.

        Raises
        ------
        TypeError
            An axis has neither a test value nor a default, and no ``test_params`` are
            declared.
        """
        if cls.test_params:
            return [dict(params) for params in cls.test_params]
        defaults = cls.axis_defaults()
        derived: dict[str, Any] = {}
        for name, axis in cls.declared_axes().items():
            if axis.test_value is not None:
                derived[name] = axis.test_value
            elif name in defaults:
                derived[name] = defaults[name]
            else:
                raise TypeError(
                    f"method {cls.name!r}: axis {name!r} has no default; declare its "
                    "test_value or test_params"
                )
        return [derived]

    @classmethod
    def check_axis(cls, axis: str, value: Any, name: str) -> Any:
        """``value`` of grid axis ``axis`` checked by its declaration (``name`` as the
        error calls it)."""
        return cls.axis(axis).check(value, name)

    def __post_init__(self) -> None:
        """Check (and normalise the type of) every parameter and option the method
        declares."""
        for axis in self.axes:
            object.__setattr__(self, axis, self.check_axis(axis, getattr(self, axis), axis))
        for option, choices in self.choices().items():
            object.__setattr__(
                self,
                option,
                check_option(getattr(self, option), f"options.{self.name}.{option}", choices),
            )
        if self.form not in self.forms:
            raise ParameterError(
                f"form={self.form!r}: no privacy proof of method {self.name!r} covers it; "
                f"its forms are {list(self.forms)}"
                + (
                    " (shuffled_rows with one protected attribute)"
                    if self.rows_need_one_attribute
                    else ""
                )
            )

    @classmethod
    def choices(cls) -> dict[str, tuple[Any, ...]]:
        """Every option of the method with its allowed values, the first the default: the
        readings of ``option_choices``, the release ``form`` and, for methods that draw
        Laplace noise, the ``sampler``."""
        out = dict(cls.option_choices)
        out["form"] = FORMS
        if cls.draws_laplace:
            out["sampler"] = SAMPLERS
        return out

    @property
    def options(self) -> dict[str, Any]:
        """The value of every option of the method (defaults included)."""
        return {option: getattr(self, option) for option in self.choices()}

    @property
    def record_aligned(self) -> bool:
        """Whether released record i is a version of record i: true for ``form=records``
        (synthetic data override it with false)."""
        return self.form == "records"

    def check(self, dataset: Dataset) -> None:
        """:meth:`check_dataset`, that the release form is covered for ``dataset``
        (``shuffled_rows`` of a method with a partition per attribute needs m = 1), and that
        a ``numeric_only`` method is given numerical attributes only."""
        m = len(dataset.protected)
        if self.form == "shuffled_rows" and self.rows_need_one_attribute and m > 1:
            raise ParameterError(
                f"form='shuffled_rows' of method {self.name!r} needs one protected "
                f"attribute, got m={m}: each attribute has its own partition, so whole "
                "rows keep which records share clusters across attributes; use "
                "form='shuffled_columns'"
            )
        self.check_dataset(dataset)
        categorical = [a.name for a in dataset.protected_attributes if a.categorical]
        if self.numeric_only and categorical:  # declared: numbers only, refused up front
            raise ParameterError(
                f"method {self.name!r} protects numerical attributes only; "
                f"{categorical} are categorical"
            )

    def check_dataset(self, dataset: Dataset) -> None:
        """Raise a :class:`~anonlab.validation.ParameterError` if the method cannot protect
        ``dataset`` (called when the grid is expanded, before any work); by default every
        data set is accepted (a ``numeric_only`` method's categorical attributes are refused
        by :meth:`check` whatever this says)."""
        return None

    @abstractmethod
    def claim(self, m: int) -> Guarantee:
        """What the method's paper claims for its release of ``m`` protected attributes,
        with the k and t it targets: its privacy map, as a
        :class:`~anonlab.guarantee.Guarantee` (``notion`` as claimed;
        :func:`~anonlab.methods.guarantees.guarantee` derives what holds as released)."""

    def mechanisms(self) -> tuple[Measurement, ...] | None:
        """The noise samplers every release of the method draws with, given its options
        (:mod:`anonlab.mechanisms.measurements`): a privacy notion it claims holds as
        released only if each is exact. ``None`` (the default) or ``()``: none declared, so
        no privacy notion it claims holds (:func:`~anonlab.methods.guarantees.guarantee`)."""
        return None

    def categorical_mechanisms(self) -> tuple[Measurement, ...]:
        """The noise samplers a release adds when categorical attributes are protected
        (DP-IR §3.4: the exponential mechanism); by default none."""
        return ()

    def holds(self, stated: Guarantee, m: int) -> Guarantee:
        """What holds of the privacy claim ``stated`` for ``m`` attributes when nothing
        voids it: by default the ε it claims in total."""
        return replace(stated, notion_epsilon=stated.epsilon_total)

    @abstractmethod
    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        """Protect ``dataset.protected`` and return the :class:`Release`."""

    def release(
        self,
        dataset: Dataset,
        rng: np.random.Generator,
        *,
        seeded: bool = True,
        strict_bounds: bool = False,
    ) -> Release:
        """:meth:`protect` laid out in the method's ``form`` (:func:`laid_out`, with
        permutations drawn from ``rng`` after the noise), timed (``seconds``), with the
        guarantee the release carries (:func:`~anonlab.methods.guarantees.of_release`,
        computed after the timing; ``seeded``: ``rng`` comes from a known seed;
        ``strict_bounds``: a domain read off the data voids it, as :func:`anonlab.protect`
        asks)."""
        from anonlab.methods.guarantees import of_release

        clock = time.perf_counter()
        released = laid_out(self.protect(dataset, rng), self.form, rng)
        seconds = time.perf_counter() - clock
        stated = of_release(
            self,
            released,
            seeded=seeded,
            strict_bounds=strict_bounds,
            generator=generator_name(rng) if self.randomized else None,
        )
        return replace(released, seconds=seconds, guarantee=stated)


def laid_out(release: Release, form: str, rng: np.random.Generator) -> Release:
    """``release`` in ``form`` (:data:`FORMS`): unchanged for ``records``; otherwise its
    values permuted, each column on its own (``shuffled_columns``) or whole rows
    (``shuffled_rows``), by uniform permutations independent of the data, so the shuffled
    release is post-processing of the papers' per-attribute lists of noisy values (DP-IR
    Lemma 1 and the step before Algorithm 1). The result keeps no record's place: no
    cluster labels, ``record_aligned`` false."""
    if form == "records":
        return release
    values = np.asarray(release.values)
    if form == "shuffled_rows":
        shuffled = values[rng.permutation(len(values))]
    else:
        shuffled = np.empty_like(values)
        for j in range(values.shape[1]):
            shuffled[:, j] = values[rng.permutation(len(values)), j]
    return replace(
        release, values=shuffled, labels=None, labelling=None, record_aligned=False, target=None
    )


def postprocess(
    dataset: Dataset, values: np.ndarray, noisy: bool, in_place: bool = False
) -> np.ndarray:
    """Clip the ``(n, m)`` protected values to each attribute's domain.

    Noisy values of attributes declared to hold whole numbers (``Attribute.integer``) are
    rounded and clipped to the integers of the domain, [⌈low⌉, ⌊high⌋], so they stay
    whole numbers (DP-IR §4.3 discretises Adult); DP-IR §4.1: "we bound noise-added
    outputs to the domain ranges".
    Noise-free values (centroids) are only clipped, which removes float rounding at the
    domain bounds. Both steps are post-processing and cost no privacy. ``in_place``
    writes into ``values`` (a float array the caller owns) instead of a copy.
    """
    low, high, integer = dataset.computed_once(
        ("postprocess", noisy), lambda: _clip_bounds(dataset, noisy)
    )
    out = values if in_place else np.array(values, dtype=float, copy=True)
    if out.ndim == 2 and len(integer) == out.shape[1]:  # every column: in one call
        np.round(out, out=out)
    else:
        for j in integer:  # column by column: no copy of the matrix
            np.round(out[:, j], out=out[:, j])
    # np.clip's definition, min(max(x, low), high), without its wrapper's per-call cost;
    # categorical codes (bounds ±inf) are left as they are
    np.maximum(out, low, out=out)
    return np.minimum(out, high, out=out)


def _clip_bounds(dataset: Dataset, noisy: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`postprocess`'s bounds per protected attribute (±inf for categorical codes)
    and the positions it rounds, computed once per view."""
    attrs = dataset.protected_attributes
    numeric = np.array([not a.categorical for a in attrs], dtype=bool)
    low = np.array([a.domain[0] if not a.categorical else -np.inf for a in attrs], dtype=float)
    high = np.array([a.domain[1] if not a.categorical else np.inf for a in attrs], dtype=float)
    integer = np.array([a.integer for a in attrs], dtype=bool) & numeric & noisy
    low[integer] = np.ceil(low[integer])
    high[integer] = np.floor(high[integer])
    return low, high, np.flatnonzero(integer)


def split_kinds(dataset: Dataset) -> tuple[list[int], list[int]]:
    """Positions of the numerical and of the categorical protected attributes (computed
    once per view; the lists are new each call)."""

    def kinds() -> tuple[tuple[int, ...], tuple[int, ...]]:
        attrs = dataset.protected_attributes
        return (
            tuple(j for j, a in enumerate(attrs) if not a.categorical),
            tuple(j for j, a in enumerate(attrs) if a.categorical),
        )

    numeric, categorical = dataset.computed_once("split_kinds", kinds)
    return list(numeric), list(categorical)


def codes_of(values: np.ndarray, j: int) -> np.ndarray:
    """Concept codes held in column ``j`` of a protected matrix."""
    return values[:, j].astype(np.int64)
