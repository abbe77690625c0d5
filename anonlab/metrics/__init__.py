"""The metric registry: every metric by name, evaluated on a release as
``metric.of_release(view, release) -> float`` (a randomized one also takes an rng, and
may return one value per class); per-attribute metrics also as
``metric(original, released, dataset)``. A metric's options (``option_choices``, config
``options.<name>.<option>``) are set with ``get_metric(name, options)``.

A metric is one module-level :class:`AttributeMetric` or :class:`ReleaseMetric` in a
module of this package, with its name, label, requirements and options; :data:`METRICS`
is derived from them."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from anonlab.metrics.base import AttributeMetric, ReleaseMetric
from anonlab.validation import ParameterError, check_choice

__all__ = ["METRICS", "AttributeMetric", "ReleaseMetric", "get_attribute_metric", "get_metric"]

#: the modules whose metrics come first, in this order (listings); any other module of
#: the package follows, by name
FAMILIES = (
    "relative_error",
    "jsd",
    "variance",
    "sse",
    "clusters",
    "classification",
    "correlation",
    "marginals",
    "risk",
    "attacks",
)
#: the module of compiled loops (numba), which defines no metric: imported where a value
#: is computed, not by the registry, so that composing, validating and drawing a run
#: import no numba
KERNELS = "kernels"


def _discover() -> dict[str, AttributeMetric | ReleaseMetric]:
    """Every metric the package's modules define at module level, in module order
    (:data:`FAMILIES` first), each in its module's definition order."""
    modules = [m.name for m in pkgutil.iter_modules(__path__) if m.name != KERNELS]
    found: dict[str, AttributeMetric | ReleaseMetric] = {}
    for name in [*FAMILIES, *sorted(m for m in modules if m not in FAMILIES)]:
        for metric in vars(importlib.import_module(f"{__name__}.{name}")).values():
            if isinstance(metric, AttributeMetric | ReleaseMetric):
                if found.setdefault(metric.name, metric) is not metric:
                    raise TypeError(f"two metrics are named {metric.name!r}")
    return found


METRICS: dict[str, AttributeMetric | ReleaseMetric] = _discover()


def get_metric(
    name: str, options: Mapping[str, Any] | None = None
) -> AttributeMetric | ReleaseMetric:
    """The registered metric called ``name``, with ``options`` (``{option: value}``) set;
    an unknown option or value raises a :class:`~anonlab.validation.ParameterError`
    naming ``options.<name>.<option>``."""
    metric = METRICS[check_choice(name, "metric", list(METRICS))]
    return metric.with_options(**options) if options else metric


def get_attribute_metric(name: str, options: Mapping[str, Any] | None = None) -> AttributeMetric:
    """A registered metric defined per attribute (usable in ``metrics_by_attribute``)."""
    metric = get_metric(name, options)
    if not isinstance(metric, AttributeMetric):
        raise ParameterError(
            f"metric {name!r} is not defined per attribute; it cannot be in metrics_by_attribute"
        )
    return metric
