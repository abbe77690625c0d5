"""The metric registry: ``metric(original, released, dataset) -> float`` by name."""

from __future__ import annotations

from anonlab.metrics.base import AttributeMetric
from anonlab.metrics.jsd import JSD, JSD_DATA_RANGE
from anonlab.metrics.relative_error import RE
from anonlab.metrics.sse import SSE
from anonlab.metrics.variance import VARIANCE_CHANGE
from anonlab.validation import check_choice

__all__ = ["METRICS", "AttributeMetric", "get_metric"]

METRICS: dict[str, AttributeMetric] = {
    m.name: m for m in (RE, JSD, JSD_DATA_RANGE, VARIANCE_CHANGE, SSE)
}


def get_metric(name: str) -> AttributeMetric:
    """The registered metric called ``name``."""
    return METRICS[check_choice(name, "metric", list(METRICS))]
