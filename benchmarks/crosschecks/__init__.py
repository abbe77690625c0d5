"""Cross-checks: anonlab's levels, scores and risks against other libraries, each run in
an environment of its own."""
