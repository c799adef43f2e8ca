"""Fixtures of the process tests."""

import subprocess

import pytest

from tests.conftest import stop_process


@pytest.fixture
def processes():
    """Processes a test starts (best with start_new_session=True, so their children go too):
    stopped at its end however it ends, killed if they do not stop within PATIENCE."""
    started: list[subprocess.Popen] = []
    yield started
    for proc in started:
        stop_process(proc)
