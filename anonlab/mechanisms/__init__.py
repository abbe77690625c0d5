"""Privacy mechanisms and their sensitivities."""

from anonlab.mechanisms.discrete import discrete_laplace, discretised_laplace
from anonlab.mechanisms.laplace import SAMPLERS, LaplaceMechanism
from anonlab.mechanisms.sensitivity import (
    attribute_budget,
    centroid_global_sensitivity,
    centroid_local_sensitivity,
    cluster_based_local_sensitivity,
    individual_ranking_sensitivity,
    insensitive_microaggregation_sensitivity,
    record_sensitivity,
)

__all__ = [
    "SAMPLERS",
    "LaplaceMechanism",
    "attribute_budget",
    "centroid_global_sensitivity",
    "centroid_local_sensitivity",
    "cluster_based_local_sensitivity",
    "discrete_laplace",
    "discretised_laplace",
    "individual_ranking_sensitivity",
    "insensitive_microaggregation_sensitivity",
    "record_sensitivity",
]
