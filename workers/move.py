"""`commerce import medusa-v1 --from URL`: move a Medusa v1 shop's database into this store."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from app.config import Settings

__all__ = ["add_import_parser", "run_import", "MONEY_DIFFERS"]

MONEY_DIFFERS = 6
DIFFERENCES_FILE = "medusa-v1-differences.txt"


def add_import_parser(sub) -> None:
    imp = sub.add_parser("import", help="move another shop's data into this store").add_subparsers(dest="source", required=True)
    m = imp.add_parser("medusa-v1", help="copy a Medusa v1 (1.8 to 1.20) PostgreSQL database, reading it only")
    m.add_argument("--from", dest="url", required=True, metavar="postgres://…",
                   help="the Medusa v1 database to read (a read-only snapshot; the shop may keep selling)")
    m.add_argument("--dry-run", action="store_true", help="read and check everything, write nothing")
    m.add_argument("--carts-days", type=int, default=30, help="carts touched within this many days come along")
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
        sys.exit(e.exit_code)
    for line in report.lines():
        print(line)
    if report.money_differences:
        Path(args.differences).write_text("".join(f"{line}\n" for line in report.money_differences))
        print(f"commerce import: money differs for {len(report.money_differences)} orders or gift cards (listed above and"
              f" in {args.differences}); every run checks them again: fix them in Medusa and run again, or accept"
              f" each with --accept-differences {args.differences}", file=sys.stderr)
        sys.exit(MONEY_DIFFERS)


async def _check_source(url: str) -> None:
    from services.migration.medusa_v1.source import open_source

    async with open_source(url):
        pass
