"""The production files: `docker compose config` accepts docker-compose.yml (where Docker Compose is
installed), and the invariants a deployment relies on hold whether or not it is: one files volume
shared by every container of the app, FILE_STORAGE_DIR inside it, an image that does not run as
root, the first admin and the http cookie caveat documented where an operator looks."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import PATIENCE

TOP = Path(__file__).resolve().parents[1]
COMPOSE = TOP / "docker-compose.yml"
DOCKERFILE = TOP / "Dockerfile"
APP_SERVICES = ("migrate", "web", "worker", "scheduler")


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _compose_command() -> list[str] | None:
    """Docker Compose as installed: the `docker compose` plugin, else the standalone `docker-compose`
    (Debian's package, which `.ci/run` installs where neither is there)."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=PATIENCE)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


@pytest.mark.skipif(_compose_command() is None, reason="Docker Compose is not installed here (the YAML checks run)")
def test_docker_compose_accepts_the_file():
    env = {**os.environ, "COOKIE_SECRET": "c" * 40, "JWT_SECRET": "j" * 40}
    checked = subprocess.run([*_compose_command(), "-f", str(COMPOSE), "config", "--quiet"], env=env,
                             capture_output=True, text=True, timeout=PATIENCE)
    assert checked.returncode == 0, checked.stderr


@pytest.mark.skipif(_compose_command() is None, reason="Docker Compose is not installed here (the YAML checks run)")
def test_docker_compose_refuses_to_run_without_the_secrets():
    env = {k: v for k, v in os.environ.items() if k not in ("COOKIE_SECRET", "JWT_SECRET")}
    checked = subprocess.run([*_compose_command(), "-f", str(COMPOSE), "config", "--quiet"], env=env,
                             capture_output=True, text=True, timeout=PATIENCE)
    assert checked.returncode != 0 and "SECRET" in checked.stderr, checked.stderr


def test_every_app_container_mounts_the_one_files_volume_where_files_are_stored():
    compose = _compose()
    assert "files" in compose["volumes"]
    for name in APP_SERVICES:
        service = compose["services"][name]
        mounts = dict(v.split(":", 1) for v in service["volumes"])
        assert mounts.get("files") == "/srv/data", name
        storage = service["environment"]["FILE_STORAGE_DIR"]
        assert Path(storage).is_relative_to("/srv/data"), name
        assert "S3_BUCKET" not in service["environment"], name  # else the volume would not be where files are


def test_the_app_runs_in_production_on_postgres_and_redis_once_they_answer():
    compose = _compose()
    for name in APP_SERVICES:
        env = compose["services"][name]["environment"]
        assert env["COMMERCE_ENV"] == "production" and env["DATABASE_URL"].startswith("postgres://")
        assert env["REDIS_URL"].startswith("redis://")
        assert env["COOKIE_SECRET"].startswith("${COOKIE_SECRET:?") and env["JWT_SECRET"].startswith("${JWT_SECRET:?")
    for engine in ("postgres", "redis"):
        assert "healthcheck" in compose["services"][engine], engine
        assert compose["services"]["migrate"]["depends_on"][engine] == {"condition": "service_healthy"}


def test_no_container_runs_as_root():
    users = re.findall(r"^USER\s+(\S+)", DOCKERFILE.read_text(), re.MULTILINE)
    assert users and users[-1] not in ("root", "0", "0:0"), users
    compose = _compose()
    for name in APP_SERVICES:
        assert str(compose["services"][name].get("user", users[-1])).split(":")[0] not in ("root", "0"), name
    # and the image's files folder belongs to that user (a fresh named volume takes its owner from it)
    assert re.search(rf"chown -R {users[-1]}:\S+ /srv/data", DOCKERFILE.read_text())


def test_the_compose_file_says_how_to_make_the_first_admin_and_when_to_turn_the_secure_cookie_off():
    text = COMPOSE.read_text()
    assert "docker compose run --rm web commerce user create --email" in text
    assert re.search(r"plain\s+#?\s*http", text) and "COOKIE_SECURE=false" in text
