"""Money differences outlive the run that found them: the next run checks each again, whatever
changed, and the move keeps failing until each is fixed or accepted by name.

A difference is kept as a mark (table `migration_mark`, beside the entities' own) named
`differs <order|gift card> <id>`; one the merchant accepted (`--accept-differences FILE`, the
file a run wrote, each of its lines naming one order or gift card) as `accepted <…> <id>`, its
`source_table` holding the accepted line's digest: the same difference found again stays
accepted, a different one for the same order is listed again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from models import MigrationMark
from services.core.db import atomic

__all__ = ["Differences", "MARK_PREFIXES", "subject", "load_differences"]

_DIFFERS, _ACCEPTED = "differs ", "accepted "
MARK_PREFIXES = (_DIFFERS, _ACCEPTED)


def subject(line: str) -> str | None:
    """What a difference line is about (`order <id>` or `gift card <id>`), as the check writes it."""
    for kind in ("order ", "gift card "):
        if line.startswith(kind):
            return kind + line[len(kind):].split(" ", 1)[0]
    return None


def _digest(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()[:32]


@dataclass
class Differences:
    pending: list[str]  # subjects still differing since an earlier run: each is checked again
    accepted: dict[str, str]  # subject -> the digest of the difference the merchant accepted

    def to_check(self, kind: str) -> list[str]:
        """The ids of `kind` ("order", "gift card") that differed before."""
        return [s[len(kind) + 1:] for s in self.pending if s.startswith(kind + " ")]

    async def settle(self, found: list[str], accept: Iterable[str], snapshot_at: datetime) -> tuple[list[str], list[str]]:
        """Sort what this run's check `found` into those still unresolved and those accepted
        (now, because `accept` lists the very line, or by an earlier run), and keep both for the
        next run; what differed before and was not found again is resolved and forgotten."""
        accept = {line.strip() for line in accept}
        unresolved, accepted, now = [], [], datetime.now(timezone.utc)
        newly: dict[str, str] = {}
        for line in found:
            name = subject(line) or line
            if self.accepted.get(name) == _digest(line) or line in accept:
                accepted.append(line)
                newly[name] = _digest(line)
            else:
                unresolved.append(line)
        async with atomic():
            await MigrationMark.filter(entity__startswith=_DIFFERS).delete()
            rows = [MigrationMark(entity=_DIFFERS + (subject(line) or line)[:180],
                                  source_table="gift_card" if line.startswith("gift card ") else "order",
                                  snapshot_at=snapshot_at, finished_at=now) for line in unresolved]
            if rows:
                await MigrationMark.bulk_create(rows)
            for name, digest in newly.items():
                await MigrationMark.update_or_create(entity=_ACCEPTED + name, defaults={
                    "source_table": digest, "snapshot_at": snapshot_at, "finished_at": now})
        return unresolved, accepted


async def load_differences() -> Differences:
    marks = await MigrationMark.filter(entity__startswith=_DIFFERS).values_list("entity", flat=True)
    accepted = await MigrationMark.filter(entity__startswith=_ACCEPTED).values_list("entity", "source_table")
    return Differences(pending=[m[len(_DIFFERS):] for m in marks],
                       accepted={name[len(_ACCEPTED):]: digest for name, digest in accepted})
