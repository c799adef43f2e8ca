"""ISO 8601 durations (`P1Y2M10DT2H30M`, `P2W`) as discounts' `valid_duration` uses them."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from services.core.errors import InvalidData

__all__ = ["Duration", "parse_duration", "add_duration"]

_NUMBER = r"(\d+(?:[.,]\d+)?)"
_PATTERN = re.compile(
    rf"^P(?:{_NUMBER}Y)?(?:{_NUMBER}M)?(?:{_NUMBER}W)?(?:{_NUMBER}D)?"
    rf"(?:T(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?$"
)


@dataclass(frozen=True)
class Duration:
    years: int = 0
    months: int = 0
    rest: timedelta = timedelta()  # weeks, days, hours, minutes and seconds


def parse_duration(text: str) -> Duration:
    m = _PATTERN.match(text) if isinstance(text, str) else None
    if not m or text in ("P", "PT") or text.endswith("T"):
        raise InvalidData('"valid_duration" must be a valid ISO 8601 duration')
    y, mo, w, d, h, mi, s = (float(g.replace(",", ".")) if g else 0.0 for g in m.groups())
    if y != int(y) or mo != int(mo):
        raise InvalidData('"valid_duration" must be a valid ISO 8601 duration (whole years and months)')
    try:
        rest = timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)
    except OverflowError:
        raise InvalidData('"valid_duration" is too long') from None
    if y > 1000:
        raise InvalidData('"valid_duration" is too long')
    return Duration(int(y), int(mo), rest)


def add_duration(start: datetime, text: str) -> datetime:
    """`start` plus the duration, by the calendar: one month after 31 January is 28/29 February."""
    duration = parse_duration(text)
    months = start.month - 1 + duration.months + 12 * duration.years
    year, month = start.year + months // 12, months % 12 + 1
    try:
        shifted = start.replace(year=year, month=month, day=min(start.day, calendar.monthrange(year, month)[1]))
        return shifted + duration.rest
    except (ValueError, OverflowError):
        raise InvalidData('"valid_duration" is too long') from None
