"""The real Medusa v1 shop of ../shared/fixtures/medusa-v1-shop, restored once per test session
into a scratch PostgreSQL database (the source is always PostgreSQL; the target is each leg's
backend), and the store it becomes once moved, put back from a snapshot for each test."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from tests import snapshots
from tests.conftest import PG_ADMIN_URL, _STATE

FIXTURE = Path(os.environ.get(
    "MEDUSA_V1_FIXTURE", Path(__file__).resolve().parents[4] / "shared/fixtures/medusa-v1-shop/medusa-v1-shop.sql.gz",
))
_server = PG_ADMIN_URL.rsplit("/", 1)[0]


def _psql(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-q", *args], check=True, capture_output=True, **kwargs)


@pytest.fixture(scope="session")
def medusa_source():
    """The URL of a fresh copy of the fixture shop, dropped at the end of the session."""
    if not FIXTURE.exists() or shutil.which("psql") is None:
        pytest.skip("needs the Medusa v1 fixture and psql")
    name = f"medusa_v1_src_{uuid.uuid4().hex[:10]}"
    try:
        _psql(PG_ADMIN_URL, "-c", f'CREATE DATABASE "{name}"')
    except (subprocess.CalledProcessError, OSError):
        pytest.skip("needs a PostgreSQL server for the Medusa source")
    url = f"{_server}/{name}"
    try:
        with subprocess.Popen(["gunzip", "-c", str(FIXTURE)], stdout=subprocess.PIPE) as unzip:
            _psql(url, stdin=unzip.stdout)
        yield url
    finally:
        _psql(PG_ADMIN_URL, "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def medusa_copy(medusa_source):
    """A scratch copy of the fixture shop to spoil, and a function running SQL in it."""
    import asyncpg

    name = f"medusa_v1_copy_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(PG_ADMIN_URL.replace("postgres://", "postgresql://", 1))
    await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{medusa_source.rsplit("/", 1)[1]}"')
    url = f"{_server}/{name}"

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    try:
        yield url, run
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


_IMPORTED: dict[str, object] = {}


@pytest.fixture
async def imported(medusa_source):
    """The fixture shop moved into this leg's store; its report. Moved once, then put back."""
    from services.migration.medusa_v1 import Progress, move
    from services.regions.parts import forget_region_parts
    from services.store.defaults import forget_default_channel

    clean = await snapshots.unchanged(_STATE["defaults"], _STATE["clean_mark"])
    if "report" in _IMPORTED and clean:
        await snapshots.restore(_IMPORTED["snapshot"], current=_STATE["defaults"])
        report = _IMPORTED["report"]
    else:
        report = await move(medusa_source, progress=Progress(io.StringIO()))
        if clean and "report" not in _IMPORTED:
            _IMPORTED["snapshot"], _IMPORTED["report"] = await snapshots.take(), report
    forget_region_parts()
    forget_default_channel()
    return report


async def source_fetch(url: str, sql: str, *args):
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()
