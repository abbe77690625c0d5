"""The property tests' example counts: half of each by default, all of them thorough."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests import properties


def chosen(config: pytest.Config) -> str:
    """The profile this run loaded: pytest's ``--hypothesis-profile``, else the suite's."""
    return config.getoption("hypothesis_profile", None) or properties.SUITE


@pytest.fixture
def loaded(request):
    """Load a profile for the test, then the run's own again."""
    yield settings.load_profile
    settings.load_profile(chosen(request.config))


@pytest.mark.parametrize(
    ("profile", "named", "runs"),
    [("suite", 120, 60), ("suite", 15, 10), ("suite", 4, 4), ("thorough", 120, 120)],
)
def test_a_profile_takes_its_share_of_the_named_examples(loaded, profile, named, runs):
    loaded(profile)
    assert properties.examples(named) == runs
    assert settings().derandomize and settings().database is None


def test_the_default_run_loads_the_suite_profile_unless_told(request):
    profile = settings.get_profile(chosen(request.config))
    assert settings().max_examples == profile.max_examples
    assert settings().max_examples == properties.SHARE.get(chosen(request.config), 100)
