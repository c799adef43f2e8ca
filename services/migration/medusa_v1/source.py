"""The Medusa v1 database being moved: read only, in one repeatable-read snapshot, streamed.

The shop may keep selling while the move runs: every read sees the same instant of its database
and nothing is ever written to it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg

from services.migration.medusa_v1.entities import ENTITIES, JOINED
from services.migration.medusa_v1.orders import trade_entities
from services.migration.medusa_v1.schema import MEDUSA_1_20, missing

__all__ = ["Source", "SourceError", "open_source", "OLDEST_SUPPORTED", "CORE_MIGRATIONS"]

# Timestamps of Medusa's own migrations up to 1.20.10 (packages/medusa/src/migrations): any other
# row of its `migrations` table belongs to a plugin.
CORE_MIGRATIONS = frozenset(int(t) for t in """
1611063162649 1611063174563 1612284947120 1612353094577 1613146953072 1613146953073 1613384784316
1613656135167 1614684597235 1615891636559 1615970124120 1617002207608 1619108646647 1623231564533
1624287602631 1624610325746 1625560513367 1627995307200 1630505790603 1631104895519 1631261634964
1631696624528 1631800727788 1631864388026 1632220294687 1632828114899 1633512755401 1633614437919
1638543550000 1638952072999 1641636508055 1644943746861 1646324713514 1646915480108 1648600574750
1648641130007 1649775522087 1656949291839 1657098186554 1657267320181 1659501357661 1660040729000
1661345741249 1661863940645 1663059812399 1663059812400 1664880666982 1666173221888 1667815005070
1669032280562 1670855241304 1671711415179 1672906846559 1672906846560 1673003729870 1673550502785
1674455083104 1675689306130 1677234878504 1678093365811 1678093365812 1679950221063 1679950645253
1679950645254 1680714052628 1680857773272 1680857773273 1692870898423 1692870898424 1692870898425
1692953518123 1694602553610 1698056997411 1699371074198 1699564794649 1701860329931 1701894188811
1709888477798
""".split())
OLDEST_SUPPORTED = 1679950645253  # the last migration of Medusa 1.8.0
# Medusa's inventory and stock-location modules (packages/inventory, packages/stock-location up to
# 1.20.10) record their migrations in the same table: Medusa's own, not a plugin's.
MODULE_MIGRATIONS = frozenset({1665748086258, 1675761451145, 1682927363119, 1697708391459, 1665749860179})


class SourceError(Exception):
    """The source cannot be moved; `exit_code` tells the kind (the CLI exits with it)."""

    UNREACHABLE, NOT_MEDUSA, UNSUPPORTED = 3, 4, 5

    def __init__(self, exit_code: int, message: str):
        super().__init__(message)
        self.exit_code = exit_code


# PostgreSQL type -> an expression giving the value as SQLite keeps it (microseconds only when
# there are some, as Python writes them).
_AS_TEXT = {
    "timestamptz": "replace(to_char({0} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), '.000000', '') || '+00:00'",
    "timestamp": "replace(to_char({0}, 'YYYY-MM-DD HH24:MI:SS.US'), '.000000', '')",
    "date": "to_char({0}, 'YYYY-MM-DD')",
    "bool": "{0}::int",
}


class Source:
    """One connection holding one READ ONLY REPEATABLE READ transaction for the whole run."""

    def __init__(self, conn: asyncpg.Connection):
        self.conn = conn
        self.columns: dict[str, list[str]] = {}
        self.plugin_migrations: list[str] = []
        self.snapshot_at = None  # the source's clock at the snapshot's start (its transaction's now())
        self.pending: asyncio.Future | None = None  # a stream's request for its next rows
        self.top_display_id = 0  # the highest number of the shop's orders and draft orders

    async def _load_catalog(self) -> None:
        rows = await self.conn.fetch(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        )
        for row in rows:
            self.columns.setdefault(row["table_name"], []).append(row["column_name"])

    async def _check_version(self) -> None:
        if "migrations" not in self.columns:
            if "mikro_orm_migrations" in self.columns:
                raise SourceError(SourceError.UNSUPPORTED, "this is a Medusa v2 database; only Medusa v1 (1.8 to 1.20) can be moved")
            raise SourceError(SourceError.NOT_MEDUSA, "this is not a Medusa v1 database (it has no `migrations` table)")
        if not {"timestamp", "name"} <= set(self.columns["migrations"]):  # another tool's migrations table
            raise SourceError(SourceError.NOT_MEDUSA, "this is not a Medusa v1 database (its `migrations` table is not Medusa's)")
        rows = await self.conn.fetch(
            "SELECT timestamp::text AS timestamp, name::text AS name FROM migrations WHERE timestamp::text ~ '^[0-9]{1,18}$'")
        applied = {int(r["timestamp"]) for r in rows}
        if not applied & CORE_MIGRATIONS or not {"order", "product", "store"} <= set(self.columns):
            raise SourceError(SourceError.NOT_MEDUSA, "this is not a Medusa v1 database (none of Medusa's migrations ran in it)")
        if max(applied & CORE_MIGRATIONS) < OLDEST_SUPPORTED:
            raise SourceError(SourceError.UNSUPPORTED, "this Medusa database is older than 1.8; upgrade it to 1.20 with Medusa first")
        self.plugin_migrations = sorted(r["name"] for r in rows if int(r["timestamp"]) not in CORE_MIGRATIONS | MODULE_MIGRATIONS)

    def _check_schema(self) -> None:
        """Every table and column of Medusa's that the move reads is here: else nothing is written."""
        lacking = missing(self.columns, _read_by_the_move())
        if lacking:
            raise SourceError(SourceError.NOT_MEDUSA, "this Medusa v1 database lacks what the move reads, so nothing was"
                                                      f" written: {', '.join(lacking)}")

    def has(self, table: str, column: str | None = None) -> bool:
        return table in self.columns and (column is None or column in self.columns[table])

    async def count(self, sql: str) -> int:
        return await self.conn.fetchval(f"SELECT count(*) FROM ({sql}) t")

    async def keys(self, sql: str, key: tuple[str, ...], batch: int) -> AsyncIterator[list[tuple]]:
        """The `key` columns of every row of `sql`, in lists of `batch`, ordered by their bytes
        (collation "C": the order Python compares strings in, whatever the database's collation)."""
        columns = ", ".join(f't."{k}"' for k in key)
        order = ", ".join(f't."{k}" COLLATE "C"' for k in key)
        cursor = await self.conn.cursor(f"SELECT {columns} FROM ({sql}) t ORDER BY {order}")
        while rows := await cursor.fetch(batch):
            yield [tuple(r) for r in rows]

    async def as_text(self, sql: str) -> str:
        """`sql` with its timestamps and dates as the text SQLite keeps of them (what Python's
        `isoformat(" ")` makes of the datetime asyncpg would have read, as Tortoise binds it) and
        its booleans as 0 and 1: the server formats them, and neither our reading nor SQLite's
        binding turns each into a Python datetime and back (a fifth of a move's CPU into SQLite).
        A query whose columns repeat a name is left as it is."""
        columns = [(a.name, a.type.name) for a in (await self.conn.prepare(sql)).get_attributes()]
        if len({name for name, _ in columns}) < len(columns) or not any(t in _AS_TEXT for _, t in columns):
            return sql
        out = []
        for name, kind in columns:
            column = 't."' + name.replace('"', '""') + '"'
            out.append(_AS_TEXT[kind].format(column) + f' AS "{name}"' if kind in _AS_TEXT else column)
        return f"SELECT {', '.join(out)} FROM ({sql}) t"

    async def stream(self, sql: str, batch: int, *args) -> AsyncIterator[list[asyncpg.Record]]:
        """Rows of `sql` in lists of `batch`, through a server-side cursor (memory stays flat).
        The rows are asyncpg's records (read by name or position; not copied into dicts).
        The next batch is asked for while the caller works on this one (the source's server reads
        while ours writes); a caller that stops early closes the stream (`aclosing`) or
        leaves it to the snapshot's end, which waits for that request.
        """
        cursor = await self.conn.cursor(sql, *args)
        pending = self.pending = asyncio.ensure_future(cursor.fetch(batch))
        try:
            while rows := await pending:
                pending = self.pending = asyncio.ensure_future(cursor.fetch(batch))
                yield rows
        finally:
            if not pending.done():
                await asyncio.wait([pending])
            if not pending.cancelled():
                pending.exception()  # retrieved: a caller that stopped early wants none of it


def _read_by_the_move() -> list[tuple[str, set[str]]]:
    """Each Medusa table the move reads, with the Medusa columns of it that it leaves alone."""
    read = []
    for entity in ENTITIES + trade_entities(0):
        if entity.model is None:  # a link: only the two columns it links
            read.append((entity.source, MEDUSA_1_20.get(entity.source, frozenset()) - set(entity.columns)))
        else:
            read.append((entity.source, set(entity.dropped)))
    return read + [(table, set()) for table in JOINED]


class open_source:
    """`async with open_source(url) as source:` the checked source inside its snapshot."""

    def __init__(self, url: str):
        self.url = url.replace("postgres://", "postgresql://", 1)
        self.conn: asyncpg.Connection | None = None
        self.tx = None
        self.source: Source | None = None

    async def __aenter__(self) -> Source:
        try:
            self.conn = await asyncpg.connect(self.url, timeout=15)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise SourceError(SourceError.UNREACHABLE, f"cannot reach the source database: {exc}") from None
        try:
            self.tx = self.conn.transaction(isolation="repeatable_read", readonly=True)
            await self.tx.start()
            source = Source(self.conn)
            await source._load_catalog()
            await source._check_version()
            source._check_schema()
            source.snapshot_at = await self.conn.fetchval("SELECT now()")
            source.top_display_id = await self.conn.fetchval(
                'SELECT greatest((SELECT max(display_id) FROM "order"), (SELECT max(display_id) FROM draft_order), 0)')
            self.source = source
            return source
        except BaseException:
            await self.conn.close()
            raise

    async def __aexit__(self, *exc) -> None:
        pending = self.source.pending if self.source else None
        if pending is not None and not pending.done():  # a stream left early: its request ends first
            await asyncio.wait([pending])
        try:
            if self.tx is not None:
                await self.tx.rollback()  # read only: there is nothing to keep
        finally:
            await self.conn.close()
