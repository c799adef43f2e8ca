"""Fixtures of the process tests."""

import subprocess

import pytest


@pytest.fixture
def processes():
    """Processes a test starts: stopped at its end, killed if they do not stop within 20 s."""
    started: list[subprocess.Popen] = []
    yield started
    for proc in started:
        proc.terminate()
    for proc in started:
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
