"""The README's promise: exactly two set-up commands, and CI runs the second one verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    return [line.strip() for line in section.splitlines() if re.match(r"^ {4}\S", line)]


def test_readme_has_exactly_two_setup_commands():
    commands = _setup_commands()
    assert len(commands) == 2
    assert commands[0].endswith("commerce start")
    assert commands[1].endswith("python -m tests")


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    assert _setup_commands()[1] in ci.splitlines()


def test_the_demo_seed_ships_inside_the_package():
    from workers.cli import DEMO_SEED

    assert DEMO_SEED.is_file() and DEMO_SEED.parent.name == "demo"
