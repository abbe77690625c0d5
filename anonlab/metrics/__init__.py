"""The metric registry: every metric by name, evaluated on a release as
``metric.of_release(view, release) -> float`` (a randomized one also takes an rng, and
may return one value per class); per-attribute metrics also as
``metric(original, released, dataset)``. A metric's options (``option_choices``, config
``options.<name>.<option>``) are set with ``get_metric(name, options)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from anonlab.metrics.base import AttributeMetric, ReleaseMetric
from anonlab.metrics.classification import F_MEASURE
from anonlab.metrics.clusters import CLUSTER_MEAN, CLUSTER_MIN, MAX_EMD, RUNTIME, SSE_TCM
from anonlab.metrics.correlation import CORRELATION_DIFFERENCE
from anonlab.metrics.jsd import JSD
from anonlab.metrics.marginals import MARGINAL_TVD
from anonlab.metrics.relative_error import RE
from anonlab.metrics.risk import INTERVAL_DISCLOSURE, RANK_LINKAGE, RECORD_LINKAGE
from anonlab.metrics.sse import SSE, SSE_IDP, SSE_IDP_SD
from anonlab.metrics.variance import VARIANCE_CHANGE
from anonlab.validation import ParameterError, check_choice

__all__ = ["METRICS", "AttributeMetric", "ReleaseMetric", "get_attribute_metric", "get_metric"]

METRICS: dict[str, AttributeMetric | ReleaseMetric] = {
    m.name: m
    for m in (
        RE,
        JSD,
        VARIANCE_CHANGE,
        SSE,
        CLUSTER_MIN,
        CLUSTER_MEAN,
        MAX_EMD,
        SSE_TCM,
        RUNTIME,
        SSE_IDP,
        SSE_IDP_SD,
        F_MEASURE,
        CORRELATION_DIFFERENCE,
        MARGINAL_TVD,
        RECORD_LINKAGE,
        RANK_LINKAGE,
        INTERVAL_DISCLOSURE,
    )
}


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
