"""The product lists' `q` as Medusa v1's list matches it: a case-insensitive substring of the
product's title or description, of any of its variants' titles or SKUs (soft-deleted variants too,
as a join reads them), or of its collection's title; and whatever the search engine found for it
(services/catalog/products.py `_found`).

Two ways to ask, with one answer (tests/services/catalog/test_product_q.py holds them equal):

- a `q` with three letters or digits in a row: each place is its own query in one `UNION ALL`,
  each on its own trigram index on PostgreSQL (migration 0030), so a big catalogue's few matches
  are found without testing every variant;
- a shorter `q` (the first keystrokes): no trigram index can narrow it (PostgreSQL would read each
  index whole, then every row again), so one condition over the products joined to their variants
  and collection, read once, costs less. Such a join can repeat a product (`repeats_products`).

Past COUNT_EXACT_UP_TO matches a list's count is the planner's estimate (services/core/listing.py),
and PostgreSQL estimates a union's distinct rows poorly (a couple of hundred, so half the table when
every product matches); the lists take that estimate from the joined form's plan, as before.
"""

from __future__ import annotations

import re

from tortoise.expressions import Q, Subquery

from models import Product, ProductCollection, ProductVariant
from services.core.listing import AnyOf

__all__ = ["matches", "repeats_products"]

_TRIGRAM = re.compile(r"[^\W_]{3}")


def _indexed(q: str) -> bool:
    return _TRIGRAM.search(q) is not None


def repeats_products(q: str | None, joined: bool = False) -> bool:
    """Whether `matches(q, …)` joins rows that can list a product more than once."""
    return bool(q) and (joined or not _indexed(q))


def matches(q: str, found: list[str], joined: bool = False) -> Q:
    """The products `q` matches (see the module's docstring), `found` among them; `joined`: asked
    through the joins whatever `q` is."""
    if joined or not _indexed(q):
        return (Q(title__icontains=q) | Q(description__icontains=q) | Q(variants__title__icontains=q)
                | Q(variants__sku__icontains=q) | Q(collection__title__icontains=q) | Q(id__in=found))
    collections = ProductCollection.filter(title__icontains=q).values("id")
    parts = [
        Product.filter(title__icontains=q).values("id"),
        Product.filter(description__icontains=q).values("id"),
        ProductVariant.filter(title__icontains=q).values("product_id"),
        ProductVariant.filter(sku__icontains=q).values("product_id"),
        Product.filter(collection_id__in=Subquery(collections)).values("id"),
    ]
    if found:
        parts.append(Product.filter(id__in=found).values("id"))
    return Q(id__in=AnyOf(*parts))
