"""`commerce import medusa-v1 --from URL`: move a Medusa v1 shop's database into this store."""

from __future__ import annotations

import argparse
import asyncio
import sys
import textwrap
from pathlib import Path

from app.config import Settings

__all__ = ["add_import_parser", "run_import", "MONEY_DIFFERS"]

MONEY_DIFFERS = 6
TARGET_NOT_EMPTY = 7

EXIT_CODES = """exit codes:
  0  done: everything moved and the money matches
  3  the source cannot be reached (nothing written)
  4  the source is not a Medusa v1 database (nothing written)
  5  its schema is older than 1.8, or Medusa v2 (nothing written)
  6  money differs after the copy (each difference listed, and written to --differences FILE;
     a later run checks them again until they match or --accept-differences names them)
  7  the target already holds a shop of its own: move into a new database (--target)

environment: DATABASE_URL (the target, unless --target), INVENTORY_LOCATIONS (the moved variants
  counted by location), COMMERCE_ENV, LOG_LEVEL, LOG_FORMAT"""
DIFFERENCES_FILE = "medusa-v1-differences.txt"


def add_import_parser(sub) -> None:
    imp = sub.add_parser(
        "import", help="move another shop's data into this store",
        description="Move another shop's data into this store; `commerce import medusa-v1 --help` for Medusa v1.",
        epilog="environment: DATABASE_URL (the target, unless --target), INVENTORY_LOCATIONS, COMMERCE_ENV",
    ).add_subparsers(dest="source", required=True)
    m = imp.add_parser(
        "medusa-v1", help="copy a Medusa v1 (1.8 to 1.20) PostgreSQL database, reading it only",
        description=textwrap.fill("Copy a Medusa v1 (1.8 to 1.20) shop's PostgreSQL database into this store, with Medusa's "
                    "ids, in one read-only snapshot (the shop may keep selling). It migrates the target first. "
                    "Run it again to bring over what changed since; the target must hold no shop of its own "
                    "(a new database, or one this command filled).", 100),
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument("--from", dest="url", required=True, metavar="postgres://…",
                   help="the Medusa v1 database to read (a read-only snapshot; the shop may keep selling)")
    m.add_argument("--target", metavar="URL",
                   help="this store's database to move into (default: DATABASE_URL), e.g. a new "
                        "postgres://user:pw@host:5432/shop or sqlite://shop.sqlite3")
    m.add_argument("--dry-run", action="store_true", help="read and check everything, write nothing")
    m.add_argument("--carts-days", type=int, default=30,
                   help="carts touched within this many days come along (default 30)")
    m.add_argument("--differences", default=DIFFERENCES_FILE, metavar="FILE",
                   help=f"where a run that finds money differing lists them, one a line (default {DIFFERENCES_FILE})")
    m.add_argument("--accept-differences", metavar="FILE",
                   help="accept the money differences this file lists (one a line, as a run wrote them): each that is"
                        " found again as it is there no longer fails the move")


def run_import(settings: Settings, args, migrate, with_db, stock_by_location) -> None:
    """Exit 0 when everything was moved; the source's kind of failure (3 unreachable, 4 not Medusa
    v1, 5 unsupported version, 6 money differs after the copy, now or in an earlier run, unless
    accepted, 7 target holds a shop of its own) with one line otherwise.
    `migrate`, `with_db` and `stock_by_location` are the CLI's own (readying the target as every
    command does, and counting the moved variants by location when INVENTORY_LOCATIONS is on)."""
    from services.migration.medusa_v1 import SourceError, move

    accept: list[str] = []
    if args.accept_differences:
        try:
            accept = Path(args.accept_differences).read_text().splitlines()
        except OSError as e:
            print(f"commerce import: cannot read the differences to accept: {e}", file=sys.stderr)
            sys.exit(2)

    async def run():
        if args.dry_run:  # the target need not even exist: nothing is written to it, nor read
            from tortoise import Tortoise

            Tortoise.init_models(["models"], "models")  # the mapping reads our models' columns; no connection
            return await move(args.url, dry_run=True, carts_days=args.carts_days)
        await _check_source(args.url)  # before migrate: a bad source leaves the target untouched
        await migrate(settings)
        report = await with_db(settings, lambda: move(args.url, carts_days=args.carts_days, accept=accept))
        await stock_by_location(settings)
        return report

    try:
        report = asyncio.run(run())
    except SourceError as e:
        print(f"commerce import: {e}", file=sys.stderr)
        if e.exit_code == TARGET_NOT_EMPTY:
            print(_how_to_target(settings, args.url), file=sys.stderr)
        sys.exit(e.exit_code)
    for line in report.lines():
        print(line)
    if report.money_differences:
        Path(args.differences).write_text("".join(f"{line}\n" for line in report.money_differences))
        print(f"commerce import: money differs for {len(report.money_differences)} orders or gift cards (listed above and"
              f" in {args.differences}); every run checks them again: fix them in Medusa and run again, or accept"
              f" each with --accept-differences {args.differences}", file=sys.stderr)
        sys.exit(MONEY_DIFFERS)


def _how_to_target(settings: Settings, source: str) -> str:
    """The commands that move into a new database beside the one in use."""
    if settings.is_postgres:
        from workers.preflight import createdb

        create, target = f"{createdb(settings.database_url, 'shop')} && ", settings.database_url.rsplit("/", 1)[0] + "/shop"
    else:
        create, target = "", "sqlite://shop.sqlite3"
    return (f"  to move into a new database: {create}commerce import medusa-v1 --from {_masked(source)} "
            f"--target {_masked(target)}\n  then run the store on it with DATABASE_URL={_masked(target)}")


def _masked(url: str) -> str:
    """A URL as it may be printed: its password replaced."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if not parts.password:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


async def _check_source(url: str) -> None:
    from services.migration.medusa_v1.source import open_source

    async with open_source(url):
        pass
