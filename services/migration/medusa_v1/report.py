"""The account of a move: per entity what the source holds, what was copied, what was left out
and why; what is left out by design; what belongs to plugins we do not know."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["EntityCount", "Report"]


@dataclass
class EntityCount:
    name: str
    source_table: str
    in_source: int = 0
    copied: int = 0  # rows read and upserted
    written: int = 0  # of those, rows new here or changed (a row as it was is not written again)
    removed: int = 0  # rows here that the source deleted outright since the last run
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> rows
    since: datetime | None = None  # a re-run: only rows changed since then were read
    unchanged: int = 0  # rows here already, untouched in the source since the last run

    def skip(self, reason: str, rows: int = 1) -> None:
        if rows:
            self.skipped[reason] = self.skipped.get(reason, 0) + rows


@dataclass
class Report:
    dry_run: bool = False
    entities: list[EntityCount] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)          # Medusa table -> why
    columns_not_kept: dict[str, str] = field(default_factory=dict)  # "table.column" -> why
    unknown_tables: list[str] = field(default_factory=list)
    collisions: list[str] = field(default_factory=list)  # rows of this store's own that met the shop's, and what was done
    unknown_columns: list[str] = field(default_factory=list)
    plugin_migrations: list[str] = field(default_factory=list)
    copy_seconds: float = 0.0
    check_seconds: float = 0.0
    copy_cpu_seconds: float = 0.0  # this process's CPU (all its threads: SQLite writes in one of its own)
    check_cpu_seconds: float = 0.0
    money_checked: bool = False
    money_differences: list[str] = field(default_factory=list)  # unresolved: the move exits 6
    accepted_differences: list[str] = field(default_factory=list)  # found again, accepted by the merchant
    money_orders_checked: int = 0  # a re-run checks only the orders changed since the last

    def entity(self, name: str) -> EntityCount:
        return next(e for e in self.entities if e.name == name)

    def as_dict(self) -> dict:
        return {
            "dry_run": self.dry_run,
            "entities": [
                {"name": e.name, "source_table": e.source_table, "in_source": e.in_source, "copied": e.copied,
                 "written": e.written, "removed": e.removed, "skipped": e.skipped, "unchanged": e.unchanged,
                 "changed_since": e.since.isoformat() if e.since else None}
                for e in self.entities
            ],
            "left_out": self.left_out, "columns_not_kept": self.columns_not_kept,
            "unknown_tables": self.unknown_tables, "unknown_columns": self.unknown_columns,
            "plugin_migrations": self.plugin_migrations, "collisions": self.collisions,
            "money_checked": self.money_checked, "money_differences": self.money_differences,
            "accepted_differences": self.accepted_differences,
            "money_orders_checked": self.money_orders_checked,
        }

    def lines(self) -> list[str]:
        verb = "would copy" if self.dry_run else "copied"
        width = max((len(e.name) for e in self.entities), default=10)
        out = [f"{'entity':<{width}}  {'source':>8}  {verb:>10}  skipped"]
        for e in self.entities:
            skipped = "; ".join(f"{n} {reason}" for reason, n in e.skipped.items()) or "0"
            if e.since is not None:
                skipped += f"; {e.unchanged} unchanged since the last run (changed since {e.since:%Y-%m-%d %H:%M} copied)"
            if e.copied > e.written and not self.dry_run:
                skipped += f"; {e.copied - e.written} of those copied were here as they are (not written)"
            if e.removed:
                skipped += f"; {e.removed} removed (deleted in Medusa)"
            out.append(f"{e.name:<{width}}  {e.in_source:>8}  {e.copied:>10}  {skipped}")
        for why, tables in _by_reason(self.left_out).items():
            out.append(f"not copied ({why}): {', '.join(tables)}")
        for why, columns in _by_reason(self.columns_not_kept).items():
            out.append(f"columns not kept ({why}): {', '.join(columns)}")
        if self.unknown_tables or self.unknown_columns:
            out.append("not copied, unknown (plugins): " + ", ".join(self.unknown_tables + self.unknown_columns))
        out += [f"made here, met the shop's: {note}" for note in self.collisions]
        if self.plugin_migrations:
            out.append("plugin migrations in the source: " + ", ".join(self.plugin_migrations))
        if self.money_checked:
            out += [f"accepted difference: {d}" for d in self.accepted_differences]
            out += [f"MONEY DIFFERS: {d}" for d in self.money_differences] or [
                f"money check: the total, paid and refunded amounts of {self.money_orders_checked} orders (all, or those"
                " changed since the last run and those that differed) and the gift cards' balances match"
                + (" but for the accepted differences" if self.accepted_differences else "")
            ]
        return out


def _by_reason(named: dict[str, str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for name, why in sorted(named.items()):
        grouped.setdefault(why, []).append(name)
    return grouped
