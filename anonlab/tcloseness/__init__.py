"""k-anonymous t-closeness through microaggregation (TCM)."""

from anonlab.tcloseness.emd import OrderedEMD, proposition_1_bound, proposition_2_bound

__all__ = ["OrderedEMD", "proposition_1_bound", "proposition_2_bound"]
