"""Comparisons of stored results with the papers' statements."""

from anonlab.report.crossovers import crossings

__all__ = ["crossings"]
