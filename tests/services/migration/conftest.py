"""The real Medusa v1 shop of ../shared/fixtures/medusa-v1-shop, and the tax-inclusive shop of
tests/fixtures/medusa_inclusive, each restored once per test session into a scratch PostgreSQL
database (the source is always PostgreSQL; the target is each leg's backend), and the store each
becomes once moved, put back from a snapshot for each test."""

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
INCLUSIVE_FIXTURE = Path(__file__).resolve().parents[2] / "fixtures/medusa_inclusive/medusa-inclusive.sql.gz"
_server = PG_ADMIN_URL.rsplit("/", 1)[0]

def _psql(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["psql", "-v", "ON_ERROR_STOP=1", "-q", *args], check=True, capture_output=True, **kwargs)

def _restored(fixture: Path):
    """The URL of a fresh copy of a Medusa database dump, dropped when the generator ends."""
    if not fixture.exists() or shutil.which("psql") is None:
        pytest.skip("needs the Medusa v1 fixture and psql")
    name = f"medusa_v1_src_{uuid.uuid4().hex[:10]}"
    try:
        _psql(PG_ADMIN_URL, "-c", f'CREATE DATABASE "{name}"')
    except (subprocess.CalledProcessError, OSError):
        pytest.skip("needs a PostgreSQL server for the Medusa source")
    url = f"{_server}/{name}"
    try:
        with subprocess.Popen(["gunzip", "-c", str(fixture)], stdout=subprocess.PIPE) as unzip:
            _psql(url, stdin=unzip.stdout)
        yield url
    finally:
        _psql(PG_ADMIN_URL, "-c", f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

@pytest.fixture(scope="session")
def medusa_source():
    """The URL of a fresh copy of the fixture shop, dropped at the end of the session."""
    yield from _restored(FIXTURE)

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

@pytest.fixture(scope="session")
def medusa_inclusive_source():
    """The URL of a fresh copy of the tax-inclusive shop, dropped at the end of the session."""
    yield from _restored(INCLUSIVE_FIXTURE)

_IMPORTED: dict[str, tuple[object, object]] = {}  # source URL -> (snapshot of the moved store, report)

async def _moved(source: str):
    """`source` moved into this leg's store; its report. Moved once, then put back."""
    from services.migration.medusa_v1 import Progress, move
    from services.regions.parts import forget_region_parts
    from services.store.defaults import forget_default_channel

    clean = await snapshots.unchanged(_STATE["defaults"], _STATE["clean_mark"])
    if source in _IMPORTED and clean:
        await snapshots.restore(_IMPORTED[source][0], current=_STATE["defaults"])
        report = _IMPORTED[source][1]
    else:
        report = await move(source, progress=Progress(io.StringIO()))
        if clean and source not in _IMPORTED:
            _IMPORTED[source] = (await snapshots.take(), report)
    forget_region_parts()
    forget_default_channel()
    return report

@pytest.fixture
async def imported(medusa_source):
    """The fixture shop moved into this leg's store; its report. Moved once, then put back."""
    return await _moved(medusa_source)

@pytest.fixture
async def imported_inclusive(medusa_inclusive_source):
    """The tax-inclusive shop moved into this leg's store; its report. Moved once, then put back."""
    return await _moved(medusa_inclusive_source)

async def source_fetch(url: str, sql: str, *args):
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgres://", "postgresql://", 1))
    try:
        return await conn.fetch(sql, *args)
    finally:
        await conn.close()
