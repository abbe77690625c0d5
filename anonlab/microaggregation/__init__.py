"""Microaggregation partitions and centroids."""

from anonlab.microaggregation.individual_ranking import (
    IndividualRanking,
    individual_ranking,
    ranking_labels,
)

__all__ = ["IndividualRanking", "individual_ranking", "ranking_labels"]
