"""The property tests' example counts: half of each by default, all of them thorough."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests import properties


@pytest.fixture
def loaded():
    """Load a profile for the test, then the one loaded before."""
    before = settings._current_profile
    yield settings.load_profile
    settings.load_profile(before)


@pytest.mark.parametrize(
    ("profile", "named", "runs"),
    [("suite", 120, 60), ("suite", 15, 10), ("suite", 4, 4), ("thorough", 120, 120)],
)
def test_a_profile_takes_its_share_of_the_named_examples(loaded, profile, named, runs):
    loaded(profile)
    assert properties.examples(named) == runs
    assert settings().derandomize and settings().database is None


def test_the_default_run_is_the_suite_profile_unless_told(request):
    chosen = request.config.getoption("hypothesis_profile", None) or properties.SUITE
    assert settings._current_profile == chosen
