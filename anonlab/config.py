"""OmegaConf resolvers used by ``conf/``; registered once per process."""

from __future__ import annotations

from omegaconf import OmegaConf


def inclusive_range(start: int, stop: int, step: int = 1) -> list[int]:
    """``${range:2,100}`` → [2, 3, …, 100] (both ends included, as the papers state ranges)."""
    return list(range(int(start), int(stop) + 1, int(step)))


def register_resolvers() -> None:
    """Register ``${range:start,stop[,step]}``."""
    if not OmegaConf.has_resolver("range"):
        OmegaConf.register_new_resolver("range", inclusive_range)
