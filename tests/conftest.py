"""Shared pytest configuration: command-line options and small fixtures only."""

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--deep",
        action="store_true",
        default=False,
        help="run the long versions of the randomised tests (about 10x more games)",
    )


@pytest.fixture(scope="session")
def deep(request):
    """True when pytest runs with ``--deep``."""
    return request.config.getoption("--deep")
