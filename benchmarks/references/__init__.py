"""References: the plain NumPy implementations the compiled kernels must match (timed
against by the timings, compared by ``tests/*/test_kernels*.py``) and the timing helper."""
