"""The metric registry: every metric by name, evaluated on a release as
``metric.of_release(view, release) -> float`` (a randomized one also takes an rng, and
may return one value per class); per-attribute metrics also as
``metric(original, released, dataset)``."""

from __future__ import annotations

from anonlab.metrics.base import AttributeMetric, ReleaseMetric
from anonlab.metrics.classification import F_MEASURE
from anonlab.metrics.clusters import CLUSTER_MEAN, CLUSTER_MIN, MAX_EMD, RUNTIME, SSE_TCM
from anonlab.metrics.jsd import JSD, JSD_DATA_RANGE
from anonlab.metrics.relative_error import RE
from anonlab.metrics.sse import SSE, SSE_IDP, SSE_IDP_SD
from anonlab.metrics.variance import VARIANCE_CHANGE
from anonlab.validation import ParameterError, check_choice

__all__ = ["METRICS", "AttributeMetric", "ReleaseMetric", "get_attribute_metric", "get_metric"]

METRICS: dict[str, AttributeMetric | ReleaseMetric] = {
    m.name: m for m in (RE, JSD, JSD_DATA_RANGE, VARIANCE_CHANGE, SSE, CLUSTER_MIN,
                        CLUSTER_MEAN, MAX_EMD, SSE_TCM, RUNTIME, SSE_IDP, SSE_IDP_SD,
                        F_MEASURE)
}


def get_metric(name: str) -> AttributeMetric | ReleaseMetric:
    """The registered metric called ``name``."""
    return METRICS[check_choice(name, "metric", list(METRICS))]


def get_attribute_metric(name: str) -> AttributeMetric:
    """A registered metric defined per attribute (usable in ``metrics_by_attribute``)."""
    metric = get_metric(name)
    if not isinstance(metric, AttributeMetric):
        raise ParameterError(f"metric {name!r} is not defined per attribute; it cannot be in "
                             "metrics_by_attribute")
    return metric
