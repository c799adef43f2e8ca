"""Return reasons as both interfaces show them: each with its parent and its live children."""

from __future__ import annotations

from app.web.serialize import dump_many
from models import ReturnReason
from services.orders.return_reasons import RELATIONS

__all__ = ["dump_reasons"]


def dump_reasons(reasons: list[ReturnReason]) -> list[dict]:
    return dump_many(reasons, RELATIONS)
