"""Shared fixtures: a seeded generator, torch when it is installed, and a validation check."""
import numpy as np
import pytest

import vkattn


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ci: a further variant, format or shape of something the quick tier already covers; left out of "
        "the quick tier for time and run by CI (python_tests_ci, docs/testing.md)")


@pytest.fixture(autouse=True)
def no_validation_messages():
    """With VKATTN_VALIDATION=1 (as ctest runs it) any validation message fails the test."""
    before = vkattn.validation_message_count()
    yield
    assert vkattn.validation_message_count() == before, "the Vulkan validation layer reported messages (see stderr)"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def torch():
    return pytest.importorskip("torch")
