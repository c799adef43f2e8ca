"""The `manual` provider (medusa-fulfillment-manual): the shop ships by itself. It offers one
way to ship and one to take returns, cannot calculate prices, keeps a method's data as given, and
has nothing to tell a carrier when an order is fulfilled."""

from __future__ import annotations

__all__ = ["ManualProvider", "OPTIONS"]

OPTIONS = ({"id": "manual-fulfillment"}, {"id": "manual-fulfillment-return", "is_return": True})


class ManualProvider:
    id = "manual"

    async def fulfillment_options(self) -> list[dict]:
        return [dict(option) for option in OPTIONS]

    async def validate_option(self, data: dict) -> bool:
        return True  # as Medusa's: any data is a manual option

    async def can_calculate(self, data: dict) -> bool:
        return False

    async def validate_fulfillment_data(self, option_data: dict, data: dict) -> dict:
        return dict(data)

    async def create_fulfillment(self, method_data: dict, items: list[dict], order_id: str) -> dict:
        return {}

    async def cancel_fulfillment(self, data: dict) -> dict:
        return dict(data)

    async def create_return(self, option_data: dict, return_id: str) -> dict:
        return {}
