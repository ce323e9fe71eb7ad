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


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test, so that ``_thread.interrupt_main`` works: a
    process started in the background (as CI may start it) inherits SIGINT ignored, and then
    ``interrupt_main`` does nothing."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
