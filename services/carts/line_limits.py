"""How many lines one cart, draft order or order edit may hold (`MAX_LINES_PER_ORDER`, 500 by
default: a real shop's largest order). Every service that makes a new line asks `check_room`
first; more of a line already there is not a new line. Bounded so that a request cannot make a
cart whose every read and write grows without end (10,000 lines took 6 s)."""

from __future__ import annotations

from services.core.errors import InvalidData

__all__ = ["DEFAULT_MAX_LINES", "configure", "check_room", "max_lines", "too_many_lines"]

DEFAULT_MAX_LINES = 500
_max_lines = DEFAULT_MAX_LINES


def configure(settings) -> int:
    """Take the process's cap from its settings (every process at start-up: services/setup.py)."""
    global _max_lines
    _max_lines = settings.max_lines_per_order
    return _max_lines


def max_lines() -> int:
    return _max_lines


def too_many_lines(holder: str) -> str:
    """The refusal of one line too many for a `holder` ("cart", "draft order", "return" ...)."""
    article = "An" if holder[0] in "aeiou" else "A"
    return f"{article} {holder} can hold at most {_max_lines} lines"


def check_room(lines: int, holder: str) -> None:
    """InvalidData unless a `holder` ("cart", "draft order", "order edit") may hold `lines` lines."""
    if lines > _max_lines:
        raise InvalidData(too_many_lines(holder))
