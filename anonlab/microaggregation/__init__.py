"""Microaggregation partitions and centroids."""

from anonlab.microaggregation.centroids import cluster_means
from anonlab.microaggregation.individual_ranking import (
    REMAINDERS,
    IndividualRanking,
    SortedColumns,
    cluster_sizes,
    individual_ranking,
    rank_labels,
    ranking_labels,
    sort_columns,
)
from anonlab.microaggregation.insensitive import domain_order, insensitive_labels
from anonlab.microaggregation.mdav import mdav, standardise
from anonlab.microaggregation.preprocessing import preprocessed_centroids

__all__ = [
    "REMAINDERS",
    "IndividualRanking",
    "SortedColumns",
    "cluster_means",
    "cluster_sizes",
    "domain_order",
    "individual_ranking",
    "insensitive_labels",
    "mdav",
    "preprocessed_centroids",
    "rank_labels",
    "ranking_labels",
    "sort_columns",
    "standardise",
]
