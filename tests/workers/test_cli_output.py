"""What a newcomer sees: every command and option explains itself in `--help`, and the first
`commerce start` (and `commerce migrate`, `commerce seed`) says what it is doing as it goes."""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.workers.cli_process import run_until
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
    port = _free_port()
    lines, start = run_until(env, ["start", "--port", str(port)], "commerce listens on")
    try:
        # I expect it to answer by the time it says so, at the pages the banner names first
        base = f"http://localhost:{port}"
        for page in ("/health", "/docs", "/store/products"):
            assert httpx.get(f"http://127.0.0.1:{port}{page}", timeout=PATIENCE).status_code == 200, page
    finally:
        stop_process(start)
    banner = lines[next(i for i, line in enumerate(lines) if line.startswith("commerce listens on")):]
    assert f"  API docs:  {base}/docs (every route, to try in the browser; the document: {base}/openapi.json)" in banner
    assert any(line.startswith(f"  try:       {base}/store/products ") for line in banner), banner

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


def _pages():
    return [(path, parser) for path, parser in _parsers(_parser()) if path != "commerce"]


def test_every_command_page_describes_the_command_and_names_the_environment_it_reads():
    for path, parser in _pages():
        assert parser.description and len(parser.description) > 40, path
        assert parser.epilog and "environment: DATABASE_URL" in parser.epilog, path


def test_every_variable_a_help_page_names_is_one_the_settings_or_the_logs_read():
    import re

    root = Path(__file__).parents[2]
    read = set()
    for settings in (root / "app" / "config.py", root / "app" / "dashboard" / "__init__.py"):
        read |= set(re.findall(r'"([A-Z][A-Z0-9_]+)"', settings.read_text()))
    read |= {"LOG_LEVEL", "LOG_FORMAT", "COMMERCE_ENV"}
    for path, parser in _parsers(_parser()):
        named = set(re.findall(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b", f"{parser.description} {parser.epilog}"))
        assert named <= read, (path, named - read)


def test_start_help_says_it_migrates_and_loads_the_demo_store():
    start = " ".join(dict(_pages())["commerce start"].format_help().split())
    assert "migrate the database" in start and "load the demo store when the database holds no product" in start


def test_the_import_help_lists_its_exit_codes_and_the_carts_default():
    page = " ".join(dict(_pages())["commerce import medusa-v1"].format_help().split())
    for code in ("0 done", "3 the source cannot be reached", "4 the source is not a Medusa v1 database",
                 "5 its schema is older than 1.8", "6 money differs", "7 the target already holds a shop"):
        assert code in page, code
    assert "come along (default 30)" in page


def test_version_prints_the_installed_version():
    from importlib.metadata import version

    shown = subprocess.run([sys.executable, "-m", "workers.cli", "--version"], capture_output=True, text=True,
                           timeout=PATIENCE)
    assert (shown.returncode, shown.stdout) == (0, f"commerce {version('commerce')}\n")
