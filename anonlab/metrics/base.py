"""Metrics defined per protected attribute and averaged over attributes, as the papers do."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.cost import LINEAR, Cost
from anonlab.datasets import Attribute, Dataset
from anonlab.release import Release
from anonlab.validation import ParameterError, check_options

PerAttribute = Callable[..., np.ndarray]  # (original, released, attributes, **options)


#: what a metric may need of the data set view it is computed on and of the method whose
#: release it measures (a metric's ``requires``), checked by :meth:`_Options.check`
REQUIREMENTS = (
    "clusters",
    "record_partition",
    "quasi_identifier",
    "confidential",
    "target",
    "numerical",
    "variance",
    "record_correspondence",
    "control",
)

#: option ``control`` of the attack-based risks (requirement ``control``): the share of a
#: data set held out as control records, the rest protected for the attacks alone. Half
#: by default: singling out compares parts of equal size (a larger training part is
#: subsampled, which lowers its success rate)
CONTROL_SHARES: tuple[float, ...] = (0.5, 0.3, 0.2)


def control_split(n: int, share: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the training and control records of ``n``: round(share·n) records
    drawn uniformly for control, the others for training, each part in record order."""
    order = rng.permutation(n)
    held = int(round(share * n))
    return np.sort(order[held:]), np.sort(order[:held])


def side_stream(rng: np.random.Generator, jump: int) -> np.random.Generator:
    """A generator independent of ``rng`` that draws nothing from it: ``rng``'s bit
    generator jumped ``jump`` times ahead (PCG64: ``jump``·φ·2¹²⁸ draws), or a child of its
    seed sequence for a bit generator that cannot jump. What a metric draws from it
    changes no other metric's draws from ``rng``; each ``jump`` value is one purpose."""
    bit_generator = rng.bit_generator
    if hasattr(bit_generator, "jumped"):
        return np.random.Generator(bit_generator.jumped(jump))
    return np.random.default_rng(bit_generator.seed_seq.spawn(jump)[-1])


class _Options:
    """What metrics share: ``option_choices`` (option → allowed values, the first the
    default; config ``options.<name>.<option>``), the chosen ``options``, what the
    metric ``requires`` (:data:`REQUIREMENTS`) under them (``option_requires``: what an
    option's values need, set by :meth:`with_options`), and whether it measures the
    machine (``measured``: a run time, which no single value gives exactly)."""

    name: str
    option_choices: Mapping[str, tuple[Any, ...]]
    options: Mapping[str, Any]
    requires: tuple[str, ...]
    option_requires: Mapping[str, Mapping[Any, tuple[str, ...]]]
    measured: bool = False
    test_params: tuple[Mapping[str, Any], ...] = ()

    def test_options(self) -> list[dict[str, Any]]:
        """The option sets the conformance checks (:mod:`anonlab.conformance`) compute the
        metric with: ``test_params`` if declared, else the defaults and each other choice
        of each option alone."""
        if self.test_params:
            return [dict(options) for options in self.test_params]
        others = [{o: v} for o, choices in self.option_choices.items() for v in choices[1:]]
        return [{}, *others]

    def refuses(self, method: Any) -> bool:
        """Whether the metric pairs each released record with its original (it compares
        them, or trains on the original's class) and ``method``'s release keeps no
        record's place (synthetic data, a shuffled form), unless, for a class metric, the
        release synthesises its own class."""
        if getattr(method, "record_aligned", True):
            return False
        return "record_correspondence" in self.requires or (
            "target" in self.requires and not getattr(method, "carries_class", False)
        )

    def undefined(self, view: Dataset, method: Any) -> bool:
        """Whether the metric is undefined for ``method``'s release of ``view`` by what the
        release or the data lack, not by a mistake: record correspondence
        (:meth:`refuses`), a class (``target``) or, for an attack with control records,
        a training part as large as the method's k (:meth:`training_too_small`). Config
        ``inapplicable: skip`` leaves such pairs out instead of refusing the run."""
        return (
            self.refuses(method)
            or ("target" in self.requires and view.target is None)
            or self.training_too_small(view, method) is not None
        )

    def training_records(self, view: Dataset) -> int | None:
        """The records of ``view`` a metric needing control records reruns the method on
        (:func:`control_split`'s training part), ``None`` for any other metric."""
        if "control" not in self.requires:
            return None
        share = dict(self.options).get("control", CONTROL_SHARES[0])
        return view.n - int(round(share * view.n))

    def training_too_small(self, view: Dataset, method: Any) -> str | None:
        """Why ``method`` cannot run on the training part of ``view`` that a metric
        needing control records reruns it on (its ``k`` above that part's records), or
        ``None`` if it can or the metric needs no control records."""
        training = self.training_records(view)
        if training is None:
            return None
        share = dict(self.options).get("control", CONTROL_SHARES[0])
        k = getattr(method, "k", None)
        if isinstance(k, int) and k > training:
            return (
                f"metric {self.name!r} reruns method {getattr(method, 'name', method)!r} on "
                f"the {training} training records of dataset {view.name!r} (option control="
                f"{share}: the others are its control records), fewer than its k={k}: lower "
                f"k or options.{self.name}.control"
            )
        return None

    def check(self, view: Dataset, method: Any) -> None:
        """Raise a :class:`~anonlab.validation.ParameterError` if the metric cannot be
        computed on ``method``'s release of ``view`` (called when an experiment is built,
        before any work)."""
        partition = getattr(method, "partition", None)
        method_name = getattr(method, "name", str(method))
        for need in self.requires:
            if need in ("record_correspondence", "target") and self.refuses(method):
                form = getattr(method, "form", "records")
                what = (
                    f"releases form {form!r}, which keeps no record's place"
                    if form != "records"
                    else "releases synthetic records that correspond to no original record"
                )
                raise ParameterError(
                    f"metric {self.name!r} pairs each released record with "
                    f"its original; method {method_name!r} {what}: use a "
                    "metric of distributions instead (jsd, variance_change, "
                    "correlation_difference, marginal_tvd)"
                )
            if need == "clusters" and partition is None:
                raise ParameterError(
                    f"metric {self.name!r} measures clusters, and method "
                    f"{method_name!r} does not cluster; drop one of them"
                )
            if need == "record_partition" and partition != "record":
                raise ParameterError(
                    f"metric {self.name!r} needs one cluster per record "
                    f"(multivariate microaggregation); method {method_name!r} "
                    "does not give one"
                )
            if need in ("quasi_identifier", "confidential") and not any(
                a.role == need for a in view.attributes
            ):
                raise ParameterError(
                    f"metric {self.name!r} needs an attribute with role "
                    f"{need!r} in dataset {view.name!r}: declare "
                    f"dataset.roles={{column: {need}}}"
                )
            if need == "target":
                check_target(self.name, view)
            if need == "control" and (why := self.training_too_small(view, method)):
                raise ParameterError(why)
            if need == "control":
                share = dict(self.options).get("control", CONTROL_SHARES[0])
                held = int(round(share * view.n))
                if min(held, view.n - held) < 2:
                    raise ParameterError(
                        f"metric {self.name!r} holds out {share:.0%} of dataset "
                        f"{view.name!r} as control records: {held} of its {view.n} "
                        "records; each part needs at least 2"
                    )
            if need == "numerical":
                for attribute in view.protected_attributes:
                    if attribute.categorical:
                        raise ParameterError(
                            f"metric {self.name!r} is defined for numerical "
                            f"attributes; {attribute.name!r} of dataset "
                            f"{view.name!r} is categorical"
                        )
            if need == "variance":
                constant = [
                    a.name
                    for a, v in zip(view.protected_attributes, view.protected_variance, strict=True)
                    if v == 0 and not a.categorical
                ]
                if constant:
                    raise ParameterError(
                        f"metric {self.name!r} divides by each protected "
                        f"attribute's variance; column {constant[0]!r} of "
                        f"dataset {view.name!r} is constant"
                    )

    def with_options(self, **options: Any) -> Any:
        """A copy of the metric with ``options`` set (the others unchanged); an unknown
        option or value raises a :class:`~anonlab.validation.ParameterError` naming
        ``options.<name>.<option>``."""
        chosen = check_options(self.name, options, self.option_choices)
        merged = {**self.options, **chosen}
        requires = self.requires_under(merged)
        return replace(self, options=merged, requires=requires)  # type: ignore[type-var]

    def requires_under(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """What the metric requires under ``options`` (an option not given takes its
        default): ``requires``, or, for an option listed in ``option_requires``, the
        needs of its chosen value (several such options: their needs together)."""
        if not self.option_requires:
            return self.requires
        needs: dict[str, None] = {}
        for option, by_value in self.option_requires.items():
            value = options.get(option, self.option_choices[option][0])
            needs.update(dict.fromkeys(by_value[value]))
        return tuple(needs)


@dataclass(frozen=True)
class AttributeMetric(_Options):
    """A metric computed column by column on the protected attributes.

    ``per_attribute(original, released, attributes, **options)`` takes ``(n, m)``
    matrices and returns ``m`` values; the metric of the data set is their mean (DP-IR
    §4.2: "we averaged the divergence of all the attributes"; DP-UNI §5: SSE "normalized
    by m"). Called as ``metric(original, released, dataset) -> float``.
    """

    name: str
    per_attribute: PerAttribute
    description: str = ""
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    requires: tuple[str, ...] = ()
    #: an option that changes what the metric requires: option → value → requirements,
    #: in place of ``requires`` (which are those of the default) when it is chosen
    option_requires: Mapping[str, Mapping[Any, tuple[str, ...]]] = field(
        default_factory=dict, compare=False, hash=False
    )
    #: display name, with unit, in figures and tables (empty: the name)
    label: str = field(default="", compare=False)
    #: the metric in two parts, when ``per_attribute`` is their composition: what depends
    #: on the original data only, ``reference(original, attributes, **options)``, computed
    #: once per data set view and shared by all its releases, and ``against(reference,
    #: released)``, per release
    reference: Callable[..., Any] | None = field(default=None, hash=False)
    against: Callable[[Any, np.ndarray], np.ndarray] | None = field(default=None, hash=False)
    #: seconds of one value as the data grows (:class:`~anonlab.cost.Cost`), summed by the
    #: plan stage
    cost: Cost = field(default=LINEAR, compare=False)
    #: option sets the conformance checks compute it with (:meth:`test_options`)
    test_params: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, hash=False)
    randomized = False  # per-attribute metrics are deterministic (see ReleaseMetric)

    def values(
        self, original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
    ) -> np.ndarray:
        """The metric of each attribute under the chosen options."""
        return self.per_attribute(original, released, attributes, **self.options)

    def evaluate(
        self, original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
    ) -> float:
        """The metric of ``(n, m)`` original and released matrices of ``attributes``."""
        return float(np.mean(self.values(original, released, attributes)))

    def of_release(
        self, view: Dataset, release: Release, rng: np.random.Generator | None = None
    ) -> float:
        """The metric of a :class:`~anonlab.methods.Release` of ``view`` (``rng`` is unused:
        per-attribute metrics are deterministic). The original's part (``reference``) is
        computed once per view."""
        if self.reference is None or self.against is None:
            return self.evaluate(view.protected_values, release.values, view.protected_attributes)
        options = self.options
        reference = view.computed_once(
            ("metric", self.name, tuple(sorted(options.items()))),
            lambda: self.reference(view.protected_values, view.protected_attributes, **options),
        )
        return float(np.mean(self.against(reference, release.values)))

    def by_attribute(
        self, original: pd.DataFrame, released: pd.DataFrame, dataset: Dataset
    ) -> dict[str, float]:
        """The metric of each protected attribute."""
        values = self.values(*_matrices(original, released, dataset), dataset.protected_attributes)
        return {name: float(v) for name, v in zip(dataset.protected, values, strict=True)}

    def __call__(self, original: pd.DataFrame, released: pd.DataFrame, dataset: Dataset) -> float:
        return self.evaluate(*_matrices(original, released, dataset), dataset.protected_attributes)


def _matrices(
    original: pd.DataFrame, released: pd.DataFrame, dataset: Dataset
) -> tuple[np.ndarray, np.ndarray]:
    cols = list(dataset.protected)
    return original[cols].to_numpy(dtype=float), released[cols].to_numpy(dtype=float)


def check_target(metric: str, view: Dataset) -> None:
    """Raise a :class:`~anonlab.validation.ParameterError` unless ``view`` has a class
    (``dataset.target``) with two classes present that is not one of the protected
    attributes (a classifier would be given its own label)."""
    if view.target is None:
        raise ParameterError(
            f"metric {metric!r} needs a class: set dataset.target="
            "{column: NAME, threshold: NUMBER, labels: [low, high]}"
        )
    classes = sorted(map(str, view.target.unique()))
    if len(classes) < 2:
        raise ParameterError(
            f"metric {metric!r}: dataset.target.column "
            f"{view.target.name!r} gives one class only, {classes}; choose "
            "a threshold inside the column's range"
        )
    if view.target.name in view.protected:
        raise ParameterError(
            f"metric {metric!r}: dataset.target.column {view.target.name!r}"
            " is also a protected attribute, so the classifier would be "
            "trained on its own class; remove it from dataset.attributes"
        )


def domain_arrays(attributes: Sequence[Attribute]) -> tuple[np.ndarray, np.ndarray]:
    """Lower bounds and widths of the attributes' domains."""
    low = np.array([a.domain[0] for a in attributes], dtype=float)
    width = np.array([a.width for a in attributes], dtype=float)
    return low, width


def semantic_distances(
    original: np.ndarray, released: np.ndarray, attribute: Attribute
) -> np.ndarray:
    """δ(original, released) per record of a categorical column (DP-IR Eq. 3)."""
    return attribute.taxonomy.distances[original.astype(np.int64), released.astype(np.int64)]


@dataclass(frozen=True)
class ReleaseMetric(_Options):
    """A metric of the release as a whole (cluster sizes, EMD, run time, …):
    ``fn(view, release, **options) -> float``, or ``fn(view, release, rng, **options)``
    if ``randomized``.

    ``fn`` may return ``{part: value}`` instead of a float (the F-measure of each class);
    the runner stores one row per part, with the part in the ``attribute`` column.
    """

    name: str
    fn: Callable[..., float | Mapping[str, float]]
    description: str = ""
    randomized: bool = False
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    requires: tuple[str, ...] = ()
    #: an option that changes what the metric requires: option → value → requirements,
    #: in place of ``requires`` (which are those of the default) when it is chosen
    option_requires: Mapping[str, Mapping[Any, tuple[str, ...]]] = field(
        default_factory=dict, compare=False, hash=False
    )
    #: display name, with unit, in figures and tables (empty: the name)
    label: str = field(default="", compare=False)
    #: a measurement of the machine (run time): it varies between repetitions of a
    #: deterministic method, so the runner repeats every cell for it, interleaved, and
    #: no single value is exact
    measured: bool = False
    #: seconds of one value as the data grows (:class:`~anonlab.cost.Cost`), summed by the
    #: plan stage
    cost: Cost = field(default=LINEAR, compare=False)
    #: option sets the conformance checks compute it with (:meth:`test_options`)
    test_params: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, hash=False)

    def of_release(
        self, view: Dataset, release: Release, rng: np.random.Generator | None = None
    ) -> float | dict[str, float]:
        """The metric of ``release``; a randomized metric draws from ``rng``."""
        if self.randomized:
            if rng is None:
                raise TypeError(f"metric {self.name!r} is randomized: pass an rng")
            value = self.fn(view, release, rng, **self.options)
        else:
            value = self.fn(view, release, **self.options)
        if isinstance(value, Mapping):
            return {str(part): float(v) for part, v in value.items()}
        return float(value)
