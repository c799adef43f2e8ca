"""Store shipping options: `GET /store/shipping-options` and `GET
/store/shipping-options/{cart_id}`. Each option comes with its requirements, its price (`amount`) and the keys
`tax_rates`, `tax_amount` and `price_incl_tax`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ValidationError
from pydantic_core import PydanticCustomError
from sanic import Blueprint, Request

from app.shapes.shipping_options import dump_priced_options
from app.web.query import Filters, parse_qs
from app.web.responses import json
from app.web.store_cache import cached
from app.web.validation import messages_of
from services.carts.shipping import cart_shipping_options
from services.core.errors import InvalidData
from services.shipping.options import list_shipping_options

bp = Blueprint("store_shipping_options", url_prefix="/shipping-options")


def _boolean_string(value: Any) -> Any:
    # Medusa v1 accepts `1` and `0` and then reads `1` as false; here `1` means true.
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise PydanticCustomError("bool", "must be a boolean string")


class OptionFilters(Filters):
    product_ids: str | None = None  # comma-separated product ids
    region_id: str | None = None
    is_return: Annotated[bool | None, BeforeValidator(_boolean_string)] = None


def _filters(query_string: str) -> OptionFilters:
    try:
        return OptionFilters.model_validate(parse_qs(query_string))
    except ValidationError as e:
        raise InvalidData(", ".join(messages_of(e))) from None


@bp.get("")
@cached()
async def list_(request: Request):
    f = _filters(request.query_string)
    product_ids = [p for p in (f.product_ids or "").split(",") if p]
    options = await list_shipping_options(f.region_id, f.is_return, product_ids)
    return json({"shipping_options": dump_priced_options(options, ("requirements",))})


@bp.get("/<cart_id:str>")
async def for_cart(request: Request, cart_id: str):
    # Medusa does not validate this route's query; it is ignored.
    options = await cart_shipping_options(cart_id)
    return json({"shipping_options": dump_priced_options(options, ("requirements", "profile"))})
