"""The shipping area's hand-written reads: live shipping options with their live requirements
(and, for a storefront's cart, their profile) in one statement, where the ORM reads them in two
(the options, then a prefetch of the requirements). A cart reads them on every change that
offers or sets a shipping method (services/carts/shipping.py).
tests/services/shipping/test_reads.py holds them equal to the ORM's reads on both backends."""

from __future__ import annotations

from functools import lru_cache

from models import ShippingOption, ShippingOptionRequirement, ShippingProfile
from services.core.sql import RowBuilder, aliased_columns, placeholders

__all__ = ["live_option", "outbound_options"]


async def live_option(option_id: str) -> ShippingOption | None:
    """The live option of that id with its live requirements, in one statement; None if there is none."""
    return next(iter(await _read_options("by id", [option_id])), None)


async def outbound_options(region_id: str, profile_ids: list[str]) -> list[ShippingOption]:
    """A region's outbound options a storefront may offer (not admin-only, not returns) for those
    shipping profiles, with their live requirements and their profile, in one statement."""
    return await _read_options("outbound", [False, False, region_id, *profile_ids])


async def _read_options(shape: str, params: list) -> list[ShippingOption]:
    """Live shipping options with their live requirements (by id), in one statement instead of the
    ORM's two (the options, then a prefetch of the requirements): "by id" [option id], or
    "outbound" [False, False, region id, *profile ids]: a region's outbound options for a
    storefront (not admin-only, not returns) of those profiles, with their profile. In the ORM's
    order (options by creation then id, requirements by id); each text is built once per process."""
    db = ShippingOption._meta.db
    sql = _options_statement(db.capabilities.dialect, shape, len(params))
    _, rows = await db.execute_query(sql, params)
    o, q, pf = _builders()
    options: dict[str, ShippingOption] = {}
    requirements: dict[str, list[ShippingOptionRequirement]] = {}
    for row in rows:
        option_id = row["o.id"]
        if option_id not in options:
            option = options[option_id] = o.build(row)
            requirements[option_id] = []
            if shape == "outbound":
                object.__setattr__(option, "_profile", pf.build(row))
        requirement = q.build(row)
        if requirement is not None:
            requirements[option_id].append(requirement)
    for option_id, option in options.items():
        option.requirements._set_result_for_query(requirements[option_id])
    return list(options.values())


@lru_cache(maxsize=None)
def _builders() -> tuple[RowBuilder, RowBuilder, RowBuilder]:
    return tuple(RowBuilder(model, lambda column, alias=alias: f"{alias}.{column}")
                 for model, alias in ((ShippingOption, "o"), (ShippingOptionRequirement, "q"), (ShippingProfile, "pf")))


@lru_cache(maxsize=256)
def _options_statement(dialect: str, shape: str, n_params: int) -> str:
    marks = placeholders(dialect, 1, n_params)
    sources = [(ShippingOption, "o"), (ShippingOptionRequirement, "q")]
    joins = ('LEFT JOIN "shipping_option_requirement" "q" ON "q"."shipping_option_id" = "o"."id" '
             'AND "q"."deleted_at" IS NULL')
    if shape == "by id":
        where = f'"o"."id" = {marks[0]}'
    else:
        sources.append((ShippingProfile, "pf"))
        joins += ' LEFT JOIN "shipping_profile" "pf" ON "pf"."id" = "o"."profile_id"'
        where = (f'"o"."admin_only" = {marks[0]} AND "o"."is_return" = {marks[1]} AND "o"."region_id" = {marks[2]} '
                 f'AND "o"."profile_id" IN ({", ".join(marks[3:])})')
    columns = ", ".join(aliased_columns(model, alias) for model, alias in sources)
    return (f'SELECT {columns} FROM "shipping_option" "o" {joins} WHERE {where} AND "o"."deleted_at" IS NULL '
            f'ORDER BY "o"."created_at", "o"."id", "q"."id"')
