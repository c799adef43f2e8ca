"""Admin store settings: `/admin/store`.

`GET /admin/store` also tells Medusa's dashboard what this server does: its `feature_flags` and
`modules` switch the dashboard's features on and off, so each flag is on exactly when the feature
works here, and `modules` names the inventory and stock-location modules exactly when
INVENTORY_LOCATIONS is on (off: stock is the variant's `inventory_quantity`)."""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request
from sanic.exceptions import MethodNotAllowed, NotFound

from app.web.auth import require_admin
from app.web.responses import json
from app.web.serialize import dump
from app.web.validation import Body, NonEmptyStr, max_length, parse_body, max_items
from services.store.settings import (
    StoreDetails, add_store_currency, list_payment_providers, list_tax_providers,
    load_store, remove_store_currency, update_store,
)

__all__ = ["bp", "FEATURE_FLAGS"]

bp = Blueprint("admin_store", url_prefix="/store")

STORE_COLUMNS = (
    "id", "name", "default_currency_code", "swap_link_template", "payment_link_template",
    "invite_link_template", "default_location_id", "default_sales_channel_id", "metadata", "created_at",
    "updated_at",
)
# Medusa v1.20's flags, in its order. Each is a fixed answer, or the admin route the dashboard
# calls for the feature: on exactly when this server has that route.
FEATURE_FLAGS: tuple[tuple[str, bool | str], ...] = (
    ("analytics", "/admin/analytics-configs"),  # only each user's consent answer is kept (nothing is collected)
    ("medusa_v2", False),
    ("order_editing", "/admin/order-edits"),
    ("product_categories", "/admin/product-categories"),
    ("publishable_api_keys", "/admin/publishable-api-keys"),
    ("sales_channels", "/admin/sales-channels"),
    ("tax_inclusive_pricing", True),  # always on: nothing changes until a price is marked includes_tax
    ("workflows", False),
)


Template = Annotated[str | None, max_length(500)]


class UpdateStore(Body):
    # Absent: kept; null: refused, but a link template may be cleared with null.
    name: Annotated[NonEmptyStr, max_length(255)] = None  # type: ignore[assignment]
    swap_link_template: Template = None
    payment_link_template: Template = None
    invite_link_template: Template = None
    default_currency_code: NonEmptyStr = None  # type: ignore[assignment]
    currencies: Annotated[list[NonEmptyStr], max_items(200)] = None  # type: ignore[assignment]
    default_sales_channel_id: NonEmptyStr = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None


def _has_route(request: Request, path: str) -> bool:
    try:
        request.app.router.get(path, "GET", None)
    except (NotFound, MethodNotAllowed):
        return False
    return True


def feature_flags(request: Request) -> list[dict]:
    return [
        {"key": key, "value": _has_route(request, value) if isinstance(value, str) else value}
        for key, value in FEATURE_FLAGS
    ]


def modules(request: Request) -> list[dict]:
    """Medusa's inventory and stock-location modules when their routes are here (setting
    INVENTORY_LOCATIONS): the dashboard then shows Inventory and Settings → Locations."""
    if not _has_route(request, "/admin/inventory-items"):
        return []
    return [{"module": "inventoryService", "resolution": False},
            {"module": "stockLocationService", "resolution": False}]


def store_json(details: StoreDetails) -> dict:
    values = details.store.__dict__
    out: dict[str, Any] = {c: values.get(c) for c in STORE_COLUMNS}
    out["currencies"] = [dump(c) for c in details.currencies]
    out["default_currency"] = dump(details.default_currency)
    out["default_sales_channel"] = dump(details.default_sales_channel)
    return out


@bp.get("")
async def get(request: Request):
    details = await load_store(with_providers=True)
    out = store_json(details)
    out["payment_providers"] = [dump(p) for p in details.payment_providers or ()]
    out["fulfillment_providers"] = [dump(p) for p in details.fulfillment_providers or ()]
    out["feature_flags"] = feature_flags(request)
    out["modules"] = modules(request)
    return json({"store": out})


@bp.post("")
async def update(request: Request):
    body = parse_body(request, UpdateStore)
    details = await update_store(
        await require_admin(request), invite_origins=request.app.ctx.settings.invite_origins,
        **body.model_dump(exclude_unset=True),
    )
    return json({"store": store_json(details)})


@bp.post("/currencies/<code:str>")
async def add_currency(request: Request, code: str):
    return json({"store": store_json(await add_store_currency(code))})


@bp.delete("/currencies/<code:str>")
async def remove_currency(request: Request, code: str):
    return json({"store": store_json(await remove_store_currency(code))})


@bp.get("/payment-providers")
async def payment_providers(request: Request):
    return json({"payment_providers": [dump(p) for p in await list_payment_providers()]})


@bp.get("/tax-providers")
async def tax_providers(request: Request):
    return json({"tax_providers": [dump(p) for p in await list_tax_providers()]})
