"""anonlab: reproducible experiments on privacy-preserving data publishing with microaggregation.

From Python (:mod:`anonlab.api`, :mod:`anonlab.listing`):

- ``anonlab.protect(frame, "ir_laplace", k=5, epsilon=1.0)`` returns the released
  DataFrame, its guarantee in ``released.attrs["guarantee"]``;
- ``anonlab.Protector`` is the same as a scikit-learn transformer;
- ``anonlab.BudgetAccountant(epsilon=2.0)``, passed as ``accountant=``, composes the ε
  of every release of the same data and refuses the one that would pass its total;
- ``anonlab.evaluate(original, released, metrics=["re", "jsd"])`` measures a release;
- ``anonlab.study(frame, methods=[…], grid={…}, metrics=[…])`` runs a study of one's own
  on the engine of ``anonlab run`` and returns its results table;
- ``anonlab.list_methods()``, ``anonlab.list_metrics()``, ``anonlab.list_datasets()`` and
  ``anonlab.list_experiments()`` list what exists.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers see; at run time imported on first use (PEP 562)
    from anonlab.accountant import BudgetAccountant
    from anonlab.api import Protector, evaluate, protect
    from anonlab.listing import list_datasets, list_experiments, list_methods, list_metrics
    from anonlab.studies import study

__version__ = "0.1.0"
__all__ = [
    "BudgetAccountant",
    "Protector",
    "evaluate",
    "list_datasets",
    "list_experiments",
    "list_methods",
    "list_metrics",
    "protect",
    "study",
]

#: public names and the module each comes from, imported on first use so that
#: ``import anonlab`` stays light
_LAZY = {
    "protect": "anonlab.api",
    "BudgetAccountant": "anonlab.accountant",
    "Protector": "anonlab.api",
    "evaluate": "anonlab.api",
    "study": "anonlab.studies",
    "list_methods": "anonlab.listing",
    "list_metrics": "anonlab.listing",
    "list_datasets": "anonlab.listing",
    "list_experiments": "anonlab.listing",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'anonlab' has no attribute {name!r}")
