"""Timings: how long a release, metric, run or redraw takes, against budgets and against
the plain NumPy references."""
