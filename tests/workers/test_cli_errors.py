"""A wrong setting, an unusable database or Redis, a bad input file: one line on stderr saying what
is wrong and what to do, and an exit code a script can tell apart, never a traceback."""

import os
import subprocess
import sys
import uuid

import pytest

from tests.workers.cli_process import run_until
from tests.conftest import BACKEND, PATIENCE, PG_ADMIN_URL, _free_port, requires_postgres, stop_process
from workers.preflight import EX_CONFIG, EX_DATAERR, EX_UNAVAILABLE


def _env(tmp_path, **changes) -> dict:
    env = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "WARNING"}
    for name in ("REDIS_URL", "COMMERCE_ENV", "INVENTORY_LOCATIONS"):
        env.pop(name, None)
    env.update(changes)
    return env


def _cli(env, *args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=env, capture_output=True, text=True,
                          timeout=PATIENCE)


def _refused(result: subprocess.CompletedProcess) -> tuple[int, str]:
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stderr.splitlines()[0] if result.stderr else ""


def test_a_misspelt_environment_is_refused_naming_the_valid_ones(tmp_path):
    # Given COMMERCE_ENV=prod, which used to pass silently for development (no secret check)
    result = _cli(_env(tmp_path, COMMERCE_ENV="prod"), "migrate")
    # I expect a refusal listing the valid values
    assert _refused(result) == (
        EX_CONFIG, "configuration error: COMMERCE_ENV='prod' is not one of development, test, staging, production")


def test_a_misspelt_database_scheme_is_refused_without_repeating_the_password(tmp_path):
    result = _cli(_env(tmp_path, DATABASE_URL="postgress://shop:s3cret@127.0.0.1:5432/shop"), "migrate")
    assert _refused(result) == (EX_CONFIG, "configuration error: DATABASE_URL has postgress://: use "
                                           "postgres://user:password@host:5432/database or sqlite://path/to/file.sqlite3")
    assert "s3cret" not in result.stderr


def test_a_message_template_that_does_not_compile_stops_start_up_naming_its_file(tmp_path):
    # Given a shop's templates folder with a broken order confirmation
    folder = tmp_path / "messages"
    folder.mkdir()
    (folder / "order.placed.html").write_text("<p>{% for item in order.items %}{{ item.title }}</p>")
    # When any process starts
    result = _cli(_env(tmp_path, NOTIFICATION_TEMPLATES=str(folder)), "migrate")
    # I expect one line naming the file, and the configuration's exit code
    code, line = _refused(result)
    assert code == EX_CONFIG and line.startswith(f"configuration error: notification template {folder}/order.placed.html")


def test_a_port_where_nothing_listens_says_so(tmp_path):
    port = _free_port()
    result = _cli(_env(tmp_path, DATABASE_URL=f"postgres://postgres@127.0.0.1:{port}/shop"), "migrate")
    assert _refused(result) == (EX_UNAVAILABLE, f"nothing answers at 127.0.0.1:{port} (DATABASE_URL): Connection "
                                                "refused; start PostgreSQL or fix the host and port")


@requires_postgres("asks a real PostgreSQL server for a database it does not have")
def test_a_missing_postgres_database_says_how_to_create_it(tmp_path):
    server = PG_ADMIN_URL.rsplit("/", 1)[0]
    name = f"firsthour_missing_{uuid.uuid4().hex[:8]}"
    result = _cli(_env(tmp_path, DATABASE_URL=f"{server}/{name}"), "start")
    assert _refused(result) == (
        EX_UNAVAILABLE, f"the database '{name}' does not exist on PostgreSQL at 127.0.0.1:5432: create it "
                        f"(createdb -h 127.0.0.1 -p 5432 -U postgres {name}) or name another in DATABASE_URL")


@requires_postgres("asks a real PostgreSQL server for a user it does not have")
def test_an_unknown_postgres_user_is_named(tmp_path):
    result = _cli(_env(tmp_path, DATABASE_URL="postgres://firsthour_nobody@127.0.0.1:5432/postgres"), "migrate")
    assert _refused(result) == (
        EX_UNAVAILABLE, "PostgreSQL at 127.0.0.1:5432 refused the user 'firsthour_nobody': role \"firsthour_nobody\" "
                        "does not exist; fix the user or password in DATABASE_URL")


def test_a_sqlite_path_whose_folder_cannot_be_made_is_named(tmp_path):
    (tmp_path / "a-file").write_text("")
    path = tmp_path / "a-file" / "store.sqlite3"
    result = _cli(_env(tmp_path, DATABASE_URL=f"sqlite://{path}"), "migrate")
    assert _refused(result) == (EX_UNAVAILABLE, f"cannot make the folder of the SQLite database {path} (DATABASE_URL): "
                                                "File exists; choose another path")


def test_a_move_target_that_is_not_a_database_url_is_refused_before_anything_is_read(tmp_path):
    result = _cli(_env(tmp_path), "import", "medusa-v1", "--from", "postgres://shop@127.0.0.1:1/medusa",
                  "--target", "postgress://shop:s3cret@db/shop")
    assert _refused(result) == (EX_CONFIG, "configuration error: --target: the URL has postgress://: use "
                                           "postgres://user:password@host:5432/database or sqlite://path/to/file.sqlite3")
    assert "s3cret" not in result.stderr


def test_serving_a_database_never_migrated_says_to_migrate_first(tmp_path):
    result = _cli(_env(tmp_path), "serve", "--port", str(_free_port()))
    assert _refused(result) == (
        EX_UNAVAILABLE, f"the SQLite database at {tmp_path / 'store.sqlite3'} has no tables yet: run `commerce "
                        "migrate` first (or `commerce start`, which also loads the demo store)")
    assert not (tmp_path / "store.sqlite3").exists()  # looking made no file


def test_a_seed_file_that_is_not_json_is_named_with_where_it_breaks(tmp_path):
    seed = tmp_path / "shop-seed.json"
    seed.write_text('{"products": [}\n')
    result = _cli(_env(tmp_path), "seed", str(seed))
    assert _refused(result) == (EX_DATAERR, f"the seed file {seed} is not JSON: Expecting value at line 1 column 15")


def test_a_seed_file_whose_content_is_refused_is_named_with_the_reason(tmp_path):
    seed = tmp_path / "shop-seed.json"
    seed.write_text('{"products": 5}')
    result = _cli(_env(tmp_path), "seed", str(seed))
    # (after the migrations' progress on stderr: the file is checked as it loads)
    assert "Traceback" not in result.stderr
    assert (result.returncode, result.stderr.splitlines()[-1]) == (
        EX_DATAERR, f"the seed file {seed} is refused: products must be an array of objects")


def test_a_seed_file_that_is_missing_is_named(tmp_path):
    result = _cli(_env(tmp_path), "seed", str(tmp_path / "nowhere.json"))
    assert _refused(result) == (EX_DATAERR, f"Could not find a seed file at: {tmp_path / 'nowhere.json'}")


def test_pinging_through_a_redis_that_does_not_answer_says_which_redis(tmp_path):
    port = _free_port()
    assert _cli(_env(tmp_path), "migrate").returncode == 0
    result = _cli(_env(tmp_path, REDIS_URL=f"redis://:pw@127.0.0.1:{port}/0"), "jobs", "ping")
    assert _refused(result) == (
        EX_UNAVAILABLE, f"Redis at 127.0.0.1:{port}/0 does not answer (REDIS_URL): Connection refused; start Redis, "
                        "fix REDIS_URL, or unset it to run embedded (jobs inside `commerce serve`)")


def test_a_redis_url_that_is_not_one_is_refused(tmp_path):
    result = _cli(_env(tmp_path, REDIS_URL="127.0.0.1:6379"), "migrate")
    assert _refused(result) == (
        EX_CONFIG, "configuration error: REDIS_URL must start with redis://, rediss:// or unix:// (unset: run embedded)")


@pytest.mark.skipif(BACKEND != "sqlite", reason="one server process on a SQLite file: the SQLite leg runs it")
def test_serving_with_a_redis_that_does_not_answer_warns_and_the_banner_names_sqlite_and_redis(tmp_path):
    # Given a migrated SQLite store and a REDIS_URL where nothing listens
    env = _env(tmp_path)
    assert _cli(env, "migrate").returncode == 0
    redis_port, port = _free_port(), _free_port()
    env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
    # When the server starts
    lines, server = run_until(env, ["serve", "--port", str(port)], "  dashboard:")
    stop_process(server)
    # I expect one warning naming Redis before anything else, then a banner naming what is really used
    assert lines[0] == (f"warning: Redis at 127.0.0.1:{redis_port}/0 does not answer (REDIS_URL): Connection refused; "
                        "start Redis, fix REDIS_URL, or unset it to run embedded (jobs inside `commerce serve`); "
                        "requests that need it answer 503 until it does"), lines
    mode = next(line for line in lines if line.startswith("  mode:"))
    assert mode == (f"  mode:      SQLite at {tmp_path / 'store.sqlite3'} + Redis at 127.0.0.1:{redis_port}/0; jobs run "
                    "in `commerce worker`, sweeps in `commerce scheduler`"), lines
    assert not any("PostgreSQL" in line for line in lines), lines
