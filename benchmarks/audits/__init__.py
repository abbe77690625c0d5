"""Audits: whether what the library states (privacy, verdicts, levels, rankings, the
report's layout) holds when measured."""
