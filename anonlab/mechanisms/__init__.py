"""Privacy mechanisms and their sensitivities."""

from anonlab.mechanisms.laplace import LaplaceMechanism
from anonlab.mechanisms.sensitivity import (
    attribute_budget,
    individual_ranking_sensitivity,
    insensitive_microaggregation_sensitivity,
    record_sensitivity,
)

__all__ = [
    "LaplaceMechanism",
    "attribute_budget",
    "individual_ranking_sensitivity",
    "insensitive_microaggregation_sensitivity",
    "record_sensitivity",
]
