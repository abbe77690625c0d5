"""Empirical privacy audit: a lower confidence bound on the ε a method's releases spend.

``python -m anonlab.audit method=laplace epsilon=1 [runs=… seed=… n=… m=… k=…]`` audits
one method; ``python -m anonlab.audit table`` audits every randomised numeric method of
the registry at ε ∈ {0.1, 1} and writes ``results/audit/audit.{csv,md}``.

From Python::

    from anonlab.audit import audit
    result = audit("ir_laplace", 1.0, runs=10_000, seed=0)
    print(result.summary())

For neighbouring data sets D, D' (one record replaced, n public) the method's own
``protect`` runs many times on each, seeded; an event S of a test statistic, chosen on
half of the releases, gives ε ≥ ln(P_D[S] / P_D'[S]) with Clopper–Pearson bounds on the
other half (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021; Ding et al. 2018). Modules:
:mod:`~anonlab.audit.data` (D and its neighbours), :mod:`~anonlab.audit.noisefree` (the
noise-free releases that aim the tests), :mod:`~anonlab.audit.views` and
:mod:`~anonlab.audit.statistics` (what is tested), :mod:`~anonlab.audit.sampling` (the
releases), :mod:`~anonlab.audit.events` and :mod:`~anonlab.audit.bounds` (the bound),
:mod:`~anonlab.audit.core` (one audit), :mod:`~anonlab.audit.table` (all methods),
:mod:`~anonlab.audit.command` (the command line).
"""

from anonlab.audit.bounds import clopper_pearson, epsilon_lower_bound
from anonlab.audit.core import AuditResult, PairResult, audit
from anonlab.audit.floating import FloatingResult, floating_point_audit
from anonlab.audit.noisefree import NotAuditable
from anonlab.audit.settings import Settings
from anonlab.audit.table import audit_table, auditable_methods, write_table

__all__ = [
    "AuditResult",
    "FloatingResult",
    "NotAuditable",
    "PairResult",
    "Settings",
    "audit",
    "audit_table",
    "auditable_methods",
    "clopper_pearson",
    "epsilon_lower_bound",
    "floating_point_audit",
    "write_table",
]
