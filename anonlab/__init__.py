"""anonlab: reproducible experiments on privacy-preserving data publishing with microaggregation.

From Python (:mod:`anonlab.api`, :mod:`anonlab.listing`):

- ``anonlab.protect(frame, "ir_laplace", k=5, epsilon=1.0)`` returns the released
  DataFrame, its guarantee in ``released.attrs["guarantee"]``;
- ``anonlab.Protector`` is the same as a scikit-learn transformer;
- ``anonlab.evaluate(original, released, metrics=["re", "jsd"])`` measures a release;
- ``anonlab.methods()``, ``anonlab.metrics()``, ``anonlab.datasets()`` and
  ``anonlab.experiments()`` list what exists.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"
__all__ = ["Protector", "datasets", "evaluate", "experiments", "methods", "metrics", "protect"]

#: public names and the module each comes from, imported on first use so that
#: ``import anonlab`` stays light
_LAZY = {
    "protect": "anonlab.api",
    "Protector": "anonlab.api",
    "evaluate": "anonlab.api",
    "experiments": "anonlab.listing",
}
_SUBPACKAGES = ("methods", "metrics", "datasets")  # callable: anonlab.methods() lists


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    if name in _SUBPACKAGES:
        return import_module(f"anonlab.{name}")
    raise AttributeError(f"module 'anonlab' has no attribute {name!r}")
