"""k-anonymous t-closeness through microaggregation (TCM)."""

from anonlab.tcloseness.emd import (
    GROUNDS,
    OrderedEMD,
    proposition_1_bound,
    proposition_2_bound,
)

__all__ = ["GROUNDS", "OrderedEMD", "proposition_1_bound", "proposition_2_bound"]
