"""What a newcomer sees: every command and option explains itself in `--help`, and the first
`commerce start` (and `commerce migrate`, `commerce seed`) says what it is doing as it goes."""

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import BACKEND, PATIENCE, _free_port, stop_process
from workers.cli import DEMO_SEED, _parser

MIGRATIONS = sorted(p.stem for p in (Path(__file__).parents[2] / "models" / "migrations").glob("0*.py"))


def _parsers(parser: argparse.ArgumentParser, path: str = "commerce"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_command_and_option_has_help_text():
    undocumented = []
    for path, parser in _parsers(_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                undocumented += [f"{path} {c.dest}" for c in action._choices_actions if not c.help]
                listed = {c.dest for c in action._choices_actions}
                undocumented += [f"{path} {name}" for name in action.choices if name not in listed]
            elif not isinstance(action, argparse._HelpAction) and not action.help:
                undocumented.append(f"{path} {'/'.join(action.option_strings) or action.dest}")
    assert not undocumented, undocumented


def _env(tmp_path) -> dict:
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "WARNING"}
    env.pop("REDIS_URL", None)
    return env


def _cli(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=env, capture_output=True, text=True,
                          timeout=PATIENCE)


@pytest.mark.skipif(BACKEND != "sqlite", reason="a fresh SQLite file, the newcomer's first run: the SQLite leg runs it")
def test_first_start_names_each_migration_and_how_far_the_demo_store_is_before_the_banner(tmp_path):
    env = _env(tmp_path)
    # Given a fresh database, when `commerce start` runs until it says where it listens
    start = subprocess.Popen([sys.executable, "-m", "workers.cli", "start", "--port", str(_free_port())], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines: list[str] = []
    listening = threading.Event()

    def read():
        for line in start.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("commerce listens on"):
                listening.set()
        listening.set()  # it ended: the assertions below say how

    threading.Thread(target=read, daemon=True).start()
    try:
        assert listening.wait(PATIENCE), "\n".join(lines)
    finally:
        stop_process(start)

    # I expect each migration named as it starts, in order, then the demo store's sections counted
    told = [line for line in lines if line.startswith(("migrating:", "loading demo store:"))]
    total = len(MIGRATIONS)
    assert told[:total] == [f"migrating: {i}/{total} {name}" for i, name in enumerate(MIGRATIONS, 1)], lines
    assert told[total:][-1] == "loading demo store: products 10/10", lines
    assert {line.split(":")[1].rsplit(" ", 1)[0].strip() for line in told[total:]} == {
        "users", "regions", "shipping options", "product collections", "products"}, lines
    # and all of that before the summary and the banner
    assert lines.index(told[-1]) < next(i for i, line in enumerate(lines) if line.startswith("demo store loaded:"))
    assert any(line.startswith("commerce listens on") for line in lines), lines

    # When migrate and seed run again: nothing left to migrate, so nothing named
    again = _cli(env, "migrate")
    assert again.returncode == 0 and again.stdout == "migrations applied\n", again.stdout + again.stderr
    # and seed's progress goes to stderr, its stdout stays one JSON line (scripts read it)
    seeded = _cli(env, "seed", str(DEMO_SEED))
    assert seeded.returncode == 0, seeded.stderr
    assert json.loads(seeded.stdout)["products"] == 10
    assert "loading seed.json: products 10/10" in seeded.stderr.splitlines()
