"""anonlab: reproducible experiments on privacy-preserving data publishing with microaggregation."""

__version__ = "0.1.0"
