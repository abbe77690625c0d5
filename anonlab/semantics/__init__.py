"""Taxonomies, semantic distance, marginality (DP-IR §3.4)."""

from anonlab.semantics.marginality import (
    cluster_marginality,
    domain_marginality,
    marginality_centroids,
    marginality_rank,
    minimal_taxonomy,
    order_path_sensitivity,
    value_change_sensitivity,
)
from anonlab.semantics.taxonomy import Taxonomy

__all__ = [
    "Taxonomy",
    "cluster_marginality",
    "domain_marginality",
    "marginality_centroids",
    "marginality_rank",
    "minimal_taxonomy",
    "order_path_sensitivity",
    "value_change_sensitivity",
]
