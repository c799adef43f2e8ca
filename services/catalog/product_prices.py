"""A variant's base prices as the admin writes them: each for a
region (in the region's currency) or for a currency, never both.

Unlike Medusa v1, a list of prices given for an existing variant is a set: a price given with the
id of one of the variant's base prices changes that row, any other is matched to the row of the
same region or currency and quantity bounds (its amount changed in place, its id kept), the rest
are added, and base prices not given are removed; price-list prices are never touched. An unknown
region or currency is a 404 (Medusa: a 500, or the currency's foreign-key 404).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from models import Currency, MoneyAmount, Region
from services.core.errors import InvalidData, NotFound
from services.core.ids import fitting

__all__ = ["check_target", "check_prices", "new_price_rows", "replace_prices", "XOR_MESSAGE"]

XOR_MESSAGE = (
    'Failed XOR relation between "region_id" and "currency_code"., '
    'Failed XOR relation between "currency_code" and "region_id".'
)


def check_target(region_id: str | None, currency_code: str | None, price_id: str | None = None) -> None:
    """Medusa's XOR rule: a price names a region or a currency, never both; a change of an
    existing price (by id) may name neither."""
    if (region_id and currency_code) or (not region_id and not currency_code and not price_id):
        raise InvalidData(XOR_MESSAGE)


async def check_prices(prices: list[dict]) -> dict[str, str]:
    """Each price names a region or a currency (one with an `id` may name neither), and they
    exist: the currency of each region named, by region id. One query per kind."""
    for p in prices:
        check_target(p.get("region_id"), p.get("currency_code"), p.get("id"))
    wanted = fitting(Region, [p["region_id"] for p in prices if p.get("region_id")])
    regions = dict(await Region.filter(id__in=wanted, deleted_at=None).values_list("id", "currency_code")) if wanted else {}
    missing = next((p["region_id"] for p in prices if p.get("region_id") and p["region_id"] not in regions), None)
    if missing is not None:
        raise NotFound(f"Region with {missing} was not found")
    codes = {p["currency_code"].lower() for p in prices if p.get("currency_code")}
    known = set(await Currency.filter(code__in=list(codes)).values_list("code", flat=True)) if codes else set()
    missing = next((c for c in sorted(codes) if c not in known), None)
    if missing is not None:
        raise NotFound(f"Currency with currency_code {missing} does not exist.")
    return regions


def _place(price: dict, regions: dict[str, str]) -> dict:
    if price.get("region_id"):
        return {"region_id": price["region_id"], "currency_code": regions[price["region_id"]]}
    return {"region_id": None, "currency_code": price["currency_code"].lower()}


def _key(row: MoneyAmount) -> tuple:
    return row.region_id or row.currency_code, row.region_id is None, row.min_quantity, row.max_quantity


def _check_bounds(low: int | None, high: int | None) -> None:
    if low is not None and high is not None and low > high:
        raise InvalidData("min_quantity must not be greater than max_quantity")


def new_price_rows(variant_id: str, prices: list[dict], regions: dict[str, str], stamp: Callable[[], datetime]) -> list[MoneyAmount]:
    """Unsaved rows for `prices` of a variant, stamped in the order given."""
    rows = []
    for p in prices:
        _check_bounds(p.get("min_quantity"), p.get("max_quantity"))
        rows.append(MoneyAmount(
            variant_id=variant_id, amount=p["amount"], min_quantity=p.get("min_quantity"),
            max_quantity=p.get("max_quantity"), created_at=stamp(), **_place(p, regions),
        ))
    return rows


async def replace_prices(
    given: dict[str, list[dict]], regions: dict[str, str], stamp: Callable[[], datetime]
) -> None:
    """Each variant's base prices become the list given for it (see the module's note). A constant
    number of statements whatever the number of variants and prices."""
    if not given:
        return
    current: dict[str, list[MoneyAmount]] = {v: [] for v in given}
    for row in await MoneyAmount.filter(
        variant_id__in=list(given), price_list_id=None, deleted_at=None
    ).order_by("created_at", "id"):
        current[row.variant_id].append(row)
    new: list[MoneyAmount] = []
    changed: list[MoneyAmount] = []
    gone: list[str] = []
    for variant_id, prices in given.items():
        left = {row.id: row for row in current[variant_id]}
        for p in prices:
            row = left.pop(p["id"], None) if p.get("id") else None
            if row is None and not (p.get("region_id") or p.get("currency_code")):
                raise InvalidData(XOR_MESSAGE)  # an id of no base price of this variant, and no place
            if row is None:
                probe = MoneyAmount(min_quantity=p.get("min_quantity"), max_quantity=p.get("max_quantity"),
                                    **_place(p, regions))
                row = next((r for r in left.values() if _key(r) == _key(probe)), None)
                if row is not None:
                    del left[row.id]
            if row is None:
                new.extend(new_price_rows(variant_id, [p], regions, stamp))
                continue
            if p.get("region_id") or p.get("currency_code"):
                row.update_from_dict(_place(p, regions))
            row.amount = p["amount"]
            for bound in ("min_quantity", "max_quantity"):
                if bound in p:
                    setattr(row, bound, p[bound])
            _check_bounds(row.min_quantity, row.max_quantity)
            changed.append(row)
        gone.extend(left)
    if gone:
        await MoneyAmount.filter(id__in=gone).delete()
    if changed:
        await MoneyAmount.bulk_update(
            changed, fields=["amount", "currency_code", "region_id", "min_quantity", "max_quantity", "updated_at"]
        )
    if new:
        await MoneyAmount.bulk_create(new)
