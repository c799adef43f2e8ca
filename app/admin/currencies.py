"""Admin currencies: `GET /admin/currencies`, `POST /admin/currencies/{code}`.

`includes_tax` is always shown and settable: it needs no feature flag here."""

from __future__ import annotations

from sanic import Blueprint, Request

from app.web.query import MAX_REFERENCE_LIMIT, BoolStr, Filters, QuerySpec, parse_query
from app.web.responses import json
from app.web.serialize import COLUMNS, dump, dump_many
from app.web.validation import Body, parse_body
from models import Currency
from services.regions.currencies import CurrencyFilter, list_currencies, update_currency

bp = Blueprint("admin_currencies", url_prefix="/currencies")


class ListFilters(Filters):
    code: str | None = None
    q: str | None = None
    includes_tax: BoolStr = None


LIST = QuerySpec(
    columns=COLUMNS[Currency], allowed_order=("code", "name", "symbol", "symbol_native", "includes_tax"),
    filters=ListFilters, default_limit=20, default_order="code", selectable=False, max_limit=MAX_REFERENCE_LIMIT,
)


class UpdateCurrency(Body):
    includes_tax: bool | None = None


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    currencies, count = await list_currencies(CurrencyFilter(**q.filters.plain()), q.find())
    return json({"currencies": dump_many(currencies, ()), "count": count, "offset": q.offset, "limit": q.limit})


@bp.post("/<code:str>")
async def update(request: Request, code: str):
    body = parse_body(request, UpdateCurrency)
    return json({"currency": dump(await update_currency(code, **body.model_dump()))})
