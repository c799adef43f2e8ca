"""The product lists' `q` as Medusa v1's list matches it: a case-insensitive substring of the
product's title or description, of any of its live variants' titles or SKUs, or of its live
collection's title; and whatever the search engine found for it (services/catalog/products.py
`_found`, whose index holds live variants only). Medusa joins the variants and the collection
with `deleted_at IS NULL` in the join (its ORM's rule for a soft-deletable relation), so a variant
deleted from a product no longer finds it; a list that asks for soft-deleted rows (the admin's
`deleted_at`) reads deleted variants and collections too (`with_deleted`), as Medusa's does.

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
from services.core.search_pages import AnyOf, Keys

__all__ = ["matches", "places", "indexed", "repeats_products"]

_TRIGRAM = re.compile(r"[^\W_]{3}")


def indexed(q: str) -> bool:
    """Whether each place `q` is looked for in has an index that narrows it (see the docstring)."""
    return _TRIGRAM.search(q) is not None


def repeats_products(q: str | None, joined: bool = False) -> bool:
    """Whether `matches(q, …)` joins rows that can list a product more than once."""
    return bool(q) and (joined or not indexed(q))


def matches(q: str, found: list[str], joined: bool = False, with_deleted: bool = False) -> Q:
    """The products `q` matches (see the module's docstring), `found` among them; `joined`: asked
    through the joins whatever `q` is, for a count's estimate (planned, not run); `with_deleted`:
    soft-deleted variants and collections too."""
    if joined or not indexed(q):
        live = {} if with_deleted else {"deleted_at": None}
        variant = {f"variants__{k}": v for k, v in live.items()}
        collection = {f"collection__{k}": v for k, v in live.items()}
        joins = (Q(title__icontains=q) | Q(description__icontains=q) | Q(variants__title__icontains=q, **variant)
                 | Q(variants__sku__icontains=q, **variant) | Q(collection__title__icontains=q, **collection))
        # Only planned (`joined`: a count's estimate), the engine's matches are one parameter; run
        # and ORed with the joins, a list of marks, whose length a plan for any list still knows
        # (see Keys).
        return joins | (Keys(found) if joined else Q(id__in=found)) if found else joins
    parts = [Product.filter(c).values("id") if model is Product else ProductVariant.filter(c).values("product_id")
             for model, c in _conditions(q, with_deleted)]
    if found:
        parts.append(Product.filter(Keys(found)).values("id"))
    return Q(id__in=AnyOf(*parts))


def places(q: str, found: list[str], with_deleted: bool = False) -> list[Q]:
    """The places an indexed `q` is looked for in, each a filter of products, `found` the last."""
    out = [c if model is Product else Q(id__in=Subquery(ProductVariant.filter(c).values("product_id")))
           for model, c in _conditions(q, with_deleted)]
    if found:
        out.append(Keys(found))
    return out


def _conditions(q: str, with_deleted: bool) -> list[tuple[type, Q]]:
    """Where `q` is looked for: a product's or a variant's condition each (live variants and
    collections only, unless `with_deleted`)."""
    live = {} if with_deleted else {"deleted_at": None}
    collections = ProductCollection.filter(title__icontains=q, **live).values("id")
    return [
        (Product, Q(title__icontains=q)),
        (Product, Q(description__icontains=q)),
        (ProductVariant, Q(title__icontains=q, **live)),
        (ProductVariant, Q(sku__icontains=q, **live)),
        (Product, Q(collection_id__in=Subquery(collections))),
    ]
