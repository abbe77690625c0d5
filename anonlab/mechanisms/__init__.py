"""Privacy mechanisms, their sensitivities and their facts (:mod:`.measurements`)."""

from anonlab.mechanisms.discrete import discrete_laplace, discretised_laplace
from anonlab.mechanisms.laplace import SAMPLERS, LaplaceMechanism
from anonlab.mechanisms.measurements import MEASUREMENTS, Measurement
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
    "MEASUREMENTS",
    "SAMPLERS",
    "LaplaceMechanism",
    "Measurement",
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
