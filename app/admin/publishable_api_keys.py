"""Admin publishable API keys: `/admin/publishable-api-keys`, their revocation and their sales
channels.

Every answer about one key is `{publishable_api_key}`, its columns only (`expand=sales_channels`
adds its live channels). Unlike Medusa, deleting a key that is not there answers 200 like every
other idempotent delete, and listing the channels of an unknown key is a 404, not an empty list.
"""

from __future__ import annotations

from typing import Annotated

from sanic import Blueprint, Request

from app.web.auth import require_admin
from app.web.query import DateComparison, Filters, ParsedQuery, QuerySpec, parse_query
from app.web.responses import deleted, json
from app.web.serialize import COLUMNS, dump_many
from app.web.validation import Body, NonEmptyStr, max_items, max_length, parse_body
from models import PublishableApiKey
from services.sales_channels.publishable_api_keys import (
    add_key_channels, create_key, delete_key, get_key, list_key_channels, list_keys, remove_key_channels,
    revoke_key, update_key,
)

bp = Blueprint("admin_publishable_api_keys", url_prefix="/publishable-api-keys")

RELATIONS = ("sales_channels",)
ORDER = ("id", "title", "created_at", "updated_at", "revoked_at")
MAX_TITLE = 255  # the column's length
MAX_BATCH = 1000  # channels linked or unlinked in one request

Title = Annotated[NonEmptyStr, max_length(MAX_TITLE)]


class ListFilters(Filters):
    q: str | None = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None
    revoked_at: DateComparison | None = None


class ChannelFilters(Filters):
    q: str | None = None


LIST = QuerySpec(
    columns=COLUMNS[PublishableApiKey], allowed_relations=RELATIONS, allowed_order=ORDER, filters=ListFilters,
    default_limit=20,
)
ONE = LIST.one(filters=None)
CHANNELS = QuerySpec(columns=(), filters=ChannelFilters, selectable=False, is_list=False)


class CreateKey(Body):
    title: Title


class UpdateKey(Body):
    title: Title = None  # type: ignore[assignment]  # absent: kept; null: refused


class IdRef(Body):
    id: NonEmptyStr


class ChannelBatch(Body):
    sales_channel_ids: Annotated[list[IdRef], max_items(MAX_BATCH)]

    def ids(self) -> list[str]:
        return [c.id for c in self.sales_channel_ids]


def _one(key: PublishableApiKey, q: ParsedQuery | None = None) -> dict:
    relations, fields = (q.relations, q.fields) if q is not None else ((), None)
    return {"publishable_api_key": dump_many([key], relations, fields)[0]}


@bp.get("")
async def list_(request: Request):
    q = parse_query(request.query_string, LIST)
    keys, count = await list_keys(q.find(), **q.filters.plain(), **q.filters.comparisons())
    return json({"publishable_api_keys": dump_many(keys, q.relations, q.fields), "count": count,
                 "offset": q.offset, "limit": q.limit})


@bp.post("")
async def create(request: Request):
    body = parse_body(request, CreateKey)
    user = await require_admin(request)
    return json(_one(await create_key(title=body.title, created_by=user.id)))


@bp.get("/<key_id:str>")
async def get(request: Request, key_id: str):
    q = parse_query(request.query_string, ONE)
    return json(_one(await get_key(key_id, q.relations), q))


@bp.post("/<key_id:str>")
async def update(request: Request, key_id: str):
    body = parse_body(request, UpdateKey)
    return json(_one(await update_key(key_id, **body.model_dump(exclude_unset=True))))


@bp.delete("/<key_id:str>")
async def delete(request: Request, key_id: str):
    await delete_key(key_id)
    return deleted(key_id, "publishable_api_key")


@bp.post("/<key_id:str>/revoke")
async def revoke(request: Request, key_id: str):
    user = await require_admin(request)
    return json(_one(await revoke_key(key_id, revoked_by=user.id)))


@bp.get("/<key_id:str>/sales-channels")
async def list_channels(request: Request, key_id: str):
    q = parse_query(request.query_string, CHANNELS)
    return json({"sales_channels": dump_many(await list_key_channels(key_id, q=q.filters.q), ())})


@bp.post("/<key_id:str>/sales-channels/batch")
async def add_channels(request: Request, key_id: str):
    body = parse_body(request, ChannelBatch)
    return json(_one(await add_key_channels(key_id, body.ids())))


@bp.delete("/<key_id:str>/sales-channels/batch")
async def remove_channels(request: Request, key_id: str):
    body = parse_body(request, ChannelBatch)
    return json(_one(await remove_key_channels(key_id, body.ids())))
