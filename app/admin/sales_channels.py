"""Admin sales channels: `/admin/sales-channels` and the products each sells.

Every answer about one channel is `{sales_channel}`, its columns only. Unlike Medusa, metadata may
be set (merged on update), and an unknown product in a batch is a `{type, message}` 400 with
Medusa's message rather than its old `errors` array. The stock-location routes exist in Medusa only
with its inventory modules, which this server does not have: they answer 404 like any unknown route.
"""

from __future__ import annotations

from typing import Annotated, Any

from sanic import Blueprint, Request

from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_items, max_length, parse_body
from models import SalesChannel
from services.sales_channels.channels import (
    add_products, create_sales_channel, delete_sales_channel, get_sales_channel, list_sales_channels,
    remove_products, update_sales_channel,
)

bp = Blueprint("admin_sales_channels", url_prefix="/sales-channels")

ORDER = ("id", "name", "description", "is_disabled", "created_at", "updated_at", "deleted_at")
MAX_NAME = 255  # the column's length
MAX_BATCH = 1000  # products linked or unlinked in one request

Name = Annotated[NonEmptyStr, max_length(MAX_NAME)]


class ListFilters(Filters):
    q: str | None = None
    id: str | None = None
    name: str | None = None
    description: str | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    deleted_at: DateComparison | None = None


LIST = QuerySpec(columns=COLUMNS[SalesChannel], allowed_order=ORDER, filters=ListFilters, default_limit=20)


class CreateChannel(Body):
    name: Name
    description: str | None = None
    is_disabled: bool = False
    metadata: dict[str, Any] | None = None


class UpdateChannel(Body):
    name: Name = None  # type: ignore[assignment]  # absent: kept; null: refused
    description: str | None = None  # absent: kept; null: cleared
    is_disabled: bool = None  # type: ignore[assignment]
    metadata: dict[str, Any] | None = None


class IdRef(Body):
    id: NonEmptyStr


class ProductBatch(Body):
    product_ids: Annotated[list[IdRef], max_items(MAX_BATCH)]

    def ids(self) -> list[str]:
        return [p.id for p in self.product_ids]


def _one(channel: SalesChannel) -> dict:
    return {"sales_channel": dump_many([channel], ())[0]}


@bp.get("")
async def list_(request: Request):
    q: ParsedQuery = parse_query(request.query_string, LIST)
    channels, count = await list_sales_channels(q.find(), **q.filters.plain(), **q.filters.comparisons())
    return json({"sales_channels": dump_many(channels, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateChannel)
    return json(_one(await create_sales_channel(**body.model_dump())))


@bp.get("/<channel_id:str>")
async def get(request: Request, channel_id: str):
    return json(_one(await get_sales_channel(channel_id)))


@bp.post("/<channel_id:str>")
async def update(request: Request, channel_id: str):
    body = parse_body(request, UpdateChannel)
    return json(_one(await update_sales_channel(channel_id, **body.model_dump(exclude_unset=True))))


@bp.delete("/<channel_id:str>")
async def delete(request: Request, channel_id: str):
    await delete_sales_channel(channel_id)
    return deleted(channel_id, "sales-channel")


@bp.post("/<channel_id:str>/products/batch")
async def add_products_(request: Request, channel_id: str):
    body = parse_body(request, ProductBatch)
    return json(_one(await add_products(channel_id, body.ids())))


@bp.delete("/<channel_id:str>/products/batch")
async def remove_products_(request: Request, channel_id: str):
    body = parse_body(request, ProductBatch)
    return json(_one(await remove_products(channel_id, body.ids())))
