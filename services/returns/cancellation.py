"""Canceling a return: before it is received; a canceled one stays
canceled (a repeat changes nothing). Its items are free to be returned again."""

from __future__ import annotations

from services.core.db import atomic
from services.orders.locks import lock_order
from services.returns.statuses import get_return, move_return

__all__ = ["cancel_return"]


async def cancel_return(return_id: str) -> str:
    """Cancel the return; answer its order's id."""
    ret = await get_return(return_id)
    async with atomic():
        await lock_order(ret.order_id)
        await move_return(await get_return(return_id), "cancel")
    return ret.order_id
