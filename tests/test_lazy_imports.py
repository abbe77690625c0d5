"""Composing, validating and drawing a run import no numba and no SciPy ``special``: the
registries skip the modules of compiled loops (``kernels``), the EMD and the t-closeness
methods import theirs on first use, and the bands read their tabulated t quantiles. The
compiled loops are still found under their old names."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration  # a fresh interpreter, to see what it imports

LIGHT = (
    "anonlab.cli",
    "anonlab.methods",
    "anonlab.metrics",
    "anonlab.partition",
    "anonlab.tcloseness",
    "anonlab.runner.render",
    "anonlab.plotting.curves",
)


def imported_after(*modules: str) -> set[str]:
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(' '.join(sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_a_run_is_built_and_drawn_without_numba_or_scipy_special():
    loaded = imported_after(*LIGHT)
    assert "numba" not in loaded
    assert "scipy.special" not in loaded
    assert "anonlab.methods.kernels" not in loaded and "anonlab.metrics.kernels" not in loaded


def test_the_compiled_loops_keep_their_names():
    from anonlab.methods import kernels
    from anonlab.methods.rank_swap import swap_partners
    from anonlab.tcloseness import emd_kernels
    from anonlab.tcloseness.emd import counts_emd, linked_bins_emd, merge_linked

    assert swap_partners is kernels.swap_partners
    assert (counts_emd, linked_bins_emd, merge_linked) == (
        emd_kernels.counts_emd,
        emd_kernels.linked_bins_emd,
        emd_kernels.merge_linked,
    )
    with pytest.raises(ImportError, match="no_such_kernel"):
        from anonlab.tcloseness.emd import no_such_kernel  # noqa: F401
