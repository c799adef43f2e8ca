"""A return's status as a table: what each operation may start from,
where it leaves the return, and Medusa v1's refusal from anything else. The move itself is a
conditional UPDATE on the status (`move_return`), so it happens once however often it is asked."""

from __future__ import annotations

from models import Return
from services.core import clock
from services.core.errors import NotAllowed, NotFound
from services.core.ids import fits
from services.orders.statuses import LIVE_RETURN, Move

__all__ = ["RETURN_MOVES", "move_return", "get_return"]

RETURN_MOVES: dict[str, Move] = {
    "receive": Move(LIVE_RETURN, "received", refusals={
        "canceled": "Cannot receive a canceled return",
        "received": "Return with id {id} has already been received",
    }),
    "cancel": Move(LIVE_RETURN, "canceled", done=("canceled",), refusals={
        "received": "Can't cancel a return which has been returned",
    }),
}


async def get_return(return_id: str) -> Return:
    ret = await Return.get_or_none(id=return_id) if fits(Return, return_id) else None
    if ret is None:
        raise NotFound(f"Return with id: {return_id} was not found")
    return ret


async def move_return(ret: Return, operation: str, **changes) -> bool:
    """Move the return by the table; False when it was already done (a repeat), NotAllowed with
    Medusa's text when it cannot move from where it is."""
    move = RETURN_MOVES[operation]
    if ret.status in move.done:
        return False
    moved = await Return.filter(id=ret.id, status__in=move.allowed).update(
        status=move.to, updated_at=clock.now(), **changes)
    if not moved:
        current = (await get_return(ret.id)).status
        if current in move.done:
            return False
        raise NotAllowed(move.refusals.get(current, f"A {current} return cannot be changed").format(id=ret.id))
    return True
