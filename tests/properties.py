"""The suite's Hypothesis profiles, and each property test's share of its examples.

A property test names the examples a thorough check of it runs, ``examples(120)``. The
default run takes half of them (profile ``suite``); ``pytest --hypothesis-profile=thorough``
takes them all, as CI does after the default suite (``.ci/run``). Both profiles are
derandomized, with no example database: a given profile draws the same inputs on every
run and machine (the default run's inputs need not be among the thorough run's).
"""

from __future__ import annotations

from hypothesis import settings

SUITE, THOROUGH = "suite", "thorough"
#: examples per hundred named, by profile (carried as the profile's ``max_examples``)
SHARE = {SUITE: 50, THOROUGH: 100}
#: no property test runs fewer examples than this, whatever its share
FLOOR = 10


def register() -> None:
    """Register :data:`SUITE` and :data:`THOROUGH`, and load :data:`SUITE` (a
    ``--hypothesis-profile`` given to pytest is loaded after, and wins)."""
    for name, share in SHARE.items():
        settings.register_profile(
            name, max_examples=share, deadline=None, derandomize=True, database=None
        )
    settings.load_profile(SUITE)


def examples(thorough: int) -> int:
    """The examples a property test runs under the loaded profile, out of the
    ``thorough`` count it names: all of them under :data:`THOROUGH`, half under
    :data:`SUITE`, never fewer than :data:`FLOOR` (or all, if it names fewer)."""
    share = settings().max_examples
    return min(thorough, max(FLOOR, thorough * share // SHARE[THOROUGH]))
