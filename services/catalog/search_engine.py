"""The search engine over the index models/migrations/0022_product_search.py keeps (one document
per live product: title and handle, then subtitle, tags, variant titles and SKUs, then
description), ranked. Every word a shopper types matches as a prefix; when no product matches so,
PostgreSQL tries again forgiving typos (pg_trgm's word similarity over the document). PostgreSQL
ranks with ts_rank, SQLite with FTS5's bm25. One statement finds a page of ids and the total (a
typo: one transaction more). Serves `POST /store/products/search` (services/catalog/search.py) and
the lists' `q=` (services/catalog/products.py)."""

from __future__ import annotations

import re

from tortoise.transactions import in_transaction

from models import Product
from services.catalog import search_index
from services.core.sql import placeholders

__all__ = ["MAX_TERMS", "LISTED_MATCHES", "search_terms", "search_product_ids", "matching_ids"]

MAX_TERMS = 8  # a search box's words; more only slow the query down
_WORD = re.compile(r"[^\W_]+")
# FTS5 bm25 weights of head (title, handle), mid (subtitle, tags, variants), tail (description).
_SQLITE_RANK = "bm25(product_search, 10.0, 3.0, 1.0)"


def search_terms(q: str | None) -> list[str]:
    """The words of `q`, lower-cased: letters and digits only, so no query syntax gets through."""
    return _WORD.findall((q or "").lower())[:MAX_TERMS]


def _db():
    return Product._meta.db


def _sql(terms: list[str], channel_ids: list[str], limit: int, offset: int, fuzzy: bool = False,
         published_only: bool = True) -> tuple[str, list]:
    dialect = _db().capabilities.dialect
    sqlite = dialect == "sqlite"
    params: list = []

    def mark(value) -> str:
        params.append(value)
        return placeholders(dialect, len(params), 1)[0]

    if sqlite:
        # bm25 only works in the FTS5 table's own query: rank there, join the products after.
        match = mark(" ".join(f'"{t}"*' for t in terms))
        found = (f"WITH s AS MATERIALIZED (SELECT rowid AS id, {_SQLITE_RANK} AS rank FROM product_search"
                 f" WHERE product_search MATCH {match})"
                 " SELECT k.product_id, count(*) OVER () FROM s JOIN product_search_key k ON k.rowid = s.id"
                 " JOIN product p ON p.id = k.product_id WHERE 1 = 1")
        rank = "s.rank"
    elif not fuzzy:
        tsquery = mark(" & ".join(f"{t}:*" for t in terms))
        found = (f"SELECT s.product_id, count(*) OVER () FROM product_search s JOIN product p ON p.id = s.product_id"
                 f" WHERE s.tsv @@ to_tsquery('simple', {tsquery})")
        rank = f"-ts_rank(s.tsv, to_tsquery('simple', {tsquery}))"
    else:
        # Each word: a prefix of an indexed word, or (a typo) similar enough to one (pg_trgm's `<%`).
        words = " AND ".join(f"(s.tsv @@ to_tsquery('simple', {mark(t + ':*')}) OR {mark(t)} <% s.body)"
                             for t in terms)
        found = (f"SELECT s.product_id, count(*) OVER () FROM product_search s JOIN product p ON p.id = s.product_id"
                 f" WHERE {words}")
        rank = f"-word_similarity({mark(' '.join(terms))}, s.body)"
    where = (" AND p.status = 'published'" if published_only else "") + " AND p.deleted_at IS NULL"
    if channel_ids:
        where += (" AND EXISTS (SELECT 1 FROM product_sales_channel c WHERE c.product_id = p.id"
                  f" AND c.sales_channel_id IN ({', '.join(mark(c) for c in channel_ids)}))")
    return f"{found}{where} ORDER BY {rank}, p.title, p.id LIMIT {mark(limit)} OFFSET {mark(offset)}", params


async def _page(terms: list[str], channel_ids: list[str], limit: int, offset: int, fuzzy: bool,
                published_only: bool) -> tuple[list, int]:
    await search_index.catch_up(_db())
    if not fuzzy:
        _, rows = await _db().execute_query(*_sql(terms, channel_ids, limit, offset, published_only=published_only))
    else:
        # The planner, not knowing how dear `<%` is per row, would scan every document (~150 ms
        # for 10,000 products) instead of the trigram index (~15 ms).
        async with in_transaction() as connection:
            await connection.execute_script("SET LOCAL enable_seqscan = off")
            _, rows = await connection.execute_query(*_sql(terms, channel_ids, limit, offset, True, published_only))
    if rows or not offset:
        return [row[0] for row in rows], (rows[0][1] if rows else 0)
    _, first = await _db().execute_query(*_sql(terms, channel_ids, 1, 0, fuzzy, published_only))  # past the end: the total
    return [], (first[0][1] if first else 0)


async def search_product_ids(terms: list[str], channel_ids: list[str], limit: int, offset: int, *,
                             published_only: bool = True) -> tuple[list[str], int]:
    """A page of the ids of the (published) products where every term prefixes an indexed word, best
    first, and how many match. On PostgreSQL, when none does, a second statement forgives typos:
    each term may instead be similar to a word of the document."""
    ids, count = await _page(terms, channel_ids, limit, offset, False, published_only)
    if count or _db().capabilities.dialect == "sqlite":
        return ids, count
    return await _page(terms, channel_ids, limit, offset, True, published_only)


LISTED_MATCHES = 1000  # the engine matches a list's `q=` adds to its substring matches


async def matching_ids(q: str | None, *, published_only: bool) -> list[str]:
    """The ids of the products the engine finds for `q` (the newest LISTED_MATCHES), in any status
    unless `published_only`, for a list to add to what its own filters find. Unranked: the list
    orders them its own way, and ranking every match of a word most of the catalogue holds (20,000
    products) cost about 100 ms. Typos are forgiven, ranked, only when no product matches so."""
    terms = search_terms(q)
    if not terms:
        return []
    await search_index.catch_up(_db())
    _, rows = await _db().execute_query(*_newest_sql(terms, published_only))
    if rows or _db().capabilities.dialect == "sqlite":
        return [row[0] for row in rows]
    return (await _page(terms, [], LISTED_MATCHES, 0, True, published_only))[0]


def _newest_sql(terms: list[str], published_only: bool) -> tuple[str, list]:
    """The newest LISTED_MATCHES products where every term prefixes an indexed word."""
    dialect = _db().capabilities.dialect
    match, limit = placeholders(dialect, 1, 2)
    if dialect == "sqlite":
        found = ("SELECT k.product_id FROM product_search JOIN product_search_key k ON k.rowid = product_search.rowid"
                 f" JOIN product p ON p.id = k.product_id WHERE product_search MATCH {match}")
        params: list = [" ".join(f'"{t}"*' for t in terms)]
    else:
        found = ("SELECT s.product_id FROM product_search s JOIN product p ON p.id = s.product_id"
                 f" WHERE s.tsv @@ to_tsquery('simple', {match})")
        params = [" & ".join(f"{t}:*" for t in terms)]
    where = (" AND p.status = 'published'" if published_only else "") + " AND p.deleted_at IS NULL"
    return f"{found}{where} ORDER BY p.created_at DESC, p.id LIMIT {limit}", [*params, LISTED_MATCHES]
