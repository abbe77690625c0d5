"""anonlab: reproducible experiments on privacy-preserving data publishing with microaggregation.

From Python: ``anonlab.protect(frame, "ir_laplace", k=5, epsilon=1.0)`` returns the released
DataFrame (:func:`anonlab.api.protect`).
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["protect"]


def __getattr__(name: str) -> Any:
    """``anonlab.protect``, imported on first use so that ``import anonlab`` stays light."""
    if name == "protect":
        from anonlab.api import protect

        return protect
    raise AttributeError(f"module 'anonlab' has no attribute {name!r}")
