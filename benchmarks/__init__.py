"""The benchmark scripts, by the question they answer (``benchmarks/README.md``): timings,
cross-checks against other libraries, the plain NumPy references the timings and
``tests/*/test_kernels*.py`` compare against, drills of a user's faults and inputs, and
audits of what the library states. A package, so that scripts and tests import each
other's helpers as ``benchmarks.<folder>.<module>``; each script puts the repository root
first on ``sys.path`` and runs as ``python benchmarks/<folder>/<script>.py``."""
