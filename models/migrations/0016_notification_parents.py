"""Resends named their original in `metadata.parent_id` until the `parent_id` column came (0014):
copy it over, so a resend sent before this keeps its place under its original."""

import orjson
from models.migrations import _base as base
from tortoise.migrations import operations as ops


async def copy_parents(apps, schema_editor) -> None:
    client = schema_editor.client
    mark = "$1" if client.capabilities.dialect == "postgres" else "?"
    rows = await client.execute_query_dict("SELECT id, metadata FROM notification WHERE metadata IS NOT NULL")
    for row in rows:
        metadata = row["metadata"]
        metadata = orjson.loads(metadata) if isinstance(metadata, (str, bytes)) else metadata
        parent = (metadata or {}).get("parent_id") if isinstance(metadata, dict) else None
        if parent:
            await client.execute_query(
                f"UPDATE notification SET parent_id = {mark} WHERE id = {mark.replace('1', '2')}", [parent, row["id"]],
            )


class Migration(base.Migration):
    dependencies = [("models", "0015_variant_codes_live")]

    operations = [ops.RunPython(copy_parents, ops.RunPython.noop)]
