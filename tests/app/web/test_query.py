"""The request conventions shared by /admin and /store: qs-style parsing, paging, ordering,
expand, fields and filters."""

from datetime import datetime, timezone

import pytest
from pydantic import BaseModel

from app.web.query import (
    MAX_LIMIT, MAX_REFERENCE_LIMIT, BoolStr, DateComparison, Filters, QuerySpec, StrList, parse_qs, parse_query,
)
from models import Customer
from services.core.errors import InvalidData
from services.core.listing import FindConfig


class ProductFilters(Filters):
    q: str | None = None
    status: StrList = []
    is_giftcard: BoolStr = None
    created_at: DateComparison | None = None
    updated_at: DateComparison | None = None


COLUMNS = ("id", "title", "handle", "status", "created_at", "updated_at")
LIST = QuerySpec(
    columns=COLUMNS,
    default_relations=("variants", "options"),
    allowed_relations=("variants", "variants.prices", "options", "collection"),
    allowed_order=("title", "created_at", "updated_at", "id"),
    extra_fields=("total",),
    filters=ProductFilters,
    default_limit=20,
)
GET = QuerySpec(**{**LIST.__dict__, "is_list": False})
BARE = QuerySpec(columns=COLUMNS)  # no filter model: every filter key is refused


def refused(query: str, spec: QuerySpec = LIST) -> str:
    with pytest.raises(InvalidData) as e:
        parse_query(query, spec)
    assert e.value.kind == "invalid_data"
    return e.value.message


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=timezone.utc)


# ---------------------------------------------------------------- value encodings (qs)


@pytest.mark.parametrize("query,parsed", [
    # string: percent-encoding, and a space as `+` or `%20`
    ("q=red+shirt", {"q": "red shirt"}),
    ("q=red%20shirt", {"q": "red shirt"}),
    ("q=a%26b%3Dc%2Bd", {"q": "a&b=c+d"}),
    ("q=caf%C3%A9", {"q": "café"}),
    # integer and boolean travel as plain strings
    ("limit=10&is_giftcard=true", {"limit": "10", "is_giftcard": "true"}),
    # date and date-time
    ("d=2024-01-02", {"d": "2024-01-02"}),
    ("d=2024-01-02T10:20:30Z", {"d": "2024-01-02T10:20:30Z"}),
    # array: `name[]=v` repeated, or indexed `name[0]=v`
    ("status[]=draft&status[]=published", {"status": ["draft", "published"]}),
    ("status[0]=draft&status[1]=published", {"status": ["draft", "published"]}),
    ("status[1]=published&status[0]=draft", {"status": ["draft", "published"]}),
    ("status%5B%5D=draft&status%5B%5D=published", {"status": ["draft", "published"]}),
    # a sparse index stays an array (qs with an unlimited arrayLimit)
    ("a[0]=x&a[50]=y", {"a": ["x", "y"]}),
    # a repeated plain key is an array too
    ("status=draft&status=published", {"status": ["draft", "published"]}),
    # object: `name[key]=v`, one parameter per key
    ("created_at[gt]=2024-01-01&created_at[lt]=2024-02-01",
     {"created_at": {"gt": "2024-01-01", "lt": "2024-02-01"}}),
    ("rule[type]=fixed&rule[value]=10", {"rule": {"type": "fixed", "value": "10"}}),
    ("a[b][c]=1", {"a": {"b": {"c": "1"}}}),
    ("a[b][]=1&a[b][]=2", {"a": {"b": ["1", "2"]}}),
    # blank values are kept
    ("expand=&fields=", {"expand": "", "fields": ""}),
    ("", {}),
])
def test_parse_qs_reads_every_encoding_of_the_value_table(query, parsed):
    assert parse_qs(query) == parsed


@pytest.mark.parametrize("query,parsed", [
    ("status=draft&status[]=published", {"status": ["draft", "published"]}),
    ("status[]=draft&status=published", {"status": ["draft", "published"]}),
    ("status[1]=published&status[]=proposed", {"status": ["published", "proposed"]}),
    ("status[]=draft&status[0]=published", {"status": ["draft", "published"]}),
])
def test_parse_qs_merges_mixed_array_forms_of_one_key_without_losing_values(query, parsed):
    assert parse_qs(query) == parsed


def test_parse_qs_keeps_indexed_objects_in_index_order():
    parsed = parse_qs("items[1][sku]=B&items[0][sku]=A&items[1][qty]=2")
    assert parsed == {"items": [{"sku": "A"}, {"sku": "B", "qty": "2"}]}


def test_a_key_that_is_not_bracket_syntax_is_kept_literally():
    assert parse_qs("a]=1&[b]=2&c[d=3") == {"a]": "1", "[b]": "2", "c[d": "3"}


def test_only_ascii_digits_index_an_array():
    assert parse_qs("a[%C2%B2]=x") == {"a": {"²": "x"}}
    assert parse_qs("a[%D9%A3]=x") == {"a": {"٣": "x"}}
    assert refused("status[%C2%B2]=draft") == "status must be an array"


def test_a_one_element_array_is_split_on_commas_but_a_plain_string_is_not():
    q = parse_query("status[]=draft,published&q=a,b", LIST)
    assert q.filters.status == ["draft", "published"]
    assert q.filters.q == "a,b"
    q = parse_query("status[]=draft&status[]=published,proposed", LIST)
    assert q.filters.status == ["draft", "published,proposed"]


def test_a_list_filter_accepts_a_comma_separated_string_and_repeated_keys():
    assert parse_query("status=draft,published", LIST).filters.status == ["draft", "published"]
    assert parse_query("status=draft&status=published", LIST).filters.status == ["draft", "published"]
    assert parse_query("", LIST).filters.status == []


# ---------------------------------------------------------------- limit and offset


def test_without_limit_and_offset_the_resource_defaults_apply():
    q = parse_query("", LIST)
    assert (q.limit, q.offset) == (20, 0)
    assert (parse_query("", BARE).limit, parse_query("", BARE).offset) == (50, 0)


def test_limit_and_offset_are_read_as_numbers():
    q = parse_query("limit=5&offset=10", LIST)
    assert (q.limit, q.offset) == (5, 10)
    assert parse_query("limit=0", LIST).limit == 0


@pytest.mark.parametrize("query,message", [
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("limit=1.5", "limit must be a number conforming to the specified constraints"),
    ("limit[]=5&limit[]=6", "limit must be a number conforming to the specified constraints"),
    ("offset=ten", "offset must be a number conforming to the specified constraints"),
    ("limit=-1", "limit must not be less than 0"),
    ("offset=-5", "offset must not be less than 0"),
])
def test_limit_and_offset_that_are_not_natural_numbers_are_refused(query, message):
    assert refused(query) == message


def test_an_offset_beyond_what_sql_accepts_is_refused_rather_than_left_to_fail_in_the_database():
    assert parse_query(f"offset={2**63 - 1}", LIST).offset == 2**63 - 1
    assert refused(f"offset={2**63}") == "offset must not be greater than 9223372036854775807"


class Counts(BaseModel):
    lt: int | None = None
    gt: int | None = None


class StockFilters(Filters):
    stock: int | None = None
    sold: Counts | None = None
    ranks: list[int] = []


STOCK = QuerySpec(columns=("id",), filters=StockFilters)


@pytest.mark.parametrize("query,message", [
    (f"stock={2**31}", "stock must not be greater than 2147483647"),
    (f"sold[gt]={-2**31 - 1}", "sold[gt] must not be less than -2147483648"),
    (f"ranks[]=1&ranks[]={2**63}", "ranks must not be greater than 2147483647"),
])
def test_every_integer_filter_beyond_an_integer_column_is_refused_naming_it(query, message):
    with pytest.raises(InvalidData) as e:
        parse_query(query, STOCK)
    assert str(e.value) == message


def test_integer_filters_at_the_edges_of_an_integer_column_pass():
    parsed = parse_query(f"stock={2**31 - 1}&sold[lt]={-2**31}", STOCK).filters
    assert (parsed.stock, parsed.sold.lt) == (2**31 - 1, -2**31)


def test_a_limit_above_the_maximum_is_clamped():
    assert parse_query(f"limit={MAX_LIMIT + 1}", LIST).limit == MAX_LIMIT
    assert parse_query("limit=99999999999999999999", LIST).limit == MAX_LIMIT
    assert parse_query(f"limit={MAX_LIMIT}", LIST).limit == MAX_LIMIT


# ---------------------------------------------------------------- order


def test_order_defaults_to_newest_first():
    assert parse_query("", LIST).order == (("created_at", True),)
    assert parse_query("order=", LIST).order == (("created_at", True),)


def test_order_is_ascending_unless_prefixed_with_a_minus():
    assert parse_query("order=title", LIST).order == (("title", False),)
    assert parse_query("order=-title", LIST).order == (("title", True),)


@pytest.mark.parametrize("query,message", [
    ("order=password", "Order field password is not valid"),
    ("order=-password", "Order field password is not valid"),
    ("order=--title", "Order field -title is not valid"),
    ("order=handle", "Order field handle is not valid"),  # a column, but not orderable here
])
def test_an_order_field_outside_the_allow_list_is_refused(query, message):
    assert refused(query) == message


def test_the_parsed_query_gives_the_listing_its_find_config():
    q = parse_query("limit=3&offset=6&order=title&expand=options", LIST)
    assert q.find() == FindConfig(limit=3, offset=6, order=(("title", False),), relations=("options",))


# ---------------------------------------------------------------- expand


def test_without_expand_the_default_relations_are_loaded():
    assert parse_query("", LIST).relations == ("variants", "options")


def test_expand_replaces_the_default_relations():
    assert parse_query("expand=collection", LIST).relations == ("collection",)
    assert parse_query("expand=collection,options", LIST).relations == ("collection", "options")
    assert parse_query("expand[]=collection,options", LIST).relations == ("collection", "options")
    assert parse_query("expand=collection&expand=options", LIST).relations == ("collection", "options")


def test_an_empty_expand_loads_no_relation():
    assert parse_query("expand=", LIST).relations == ()


def test_a_nested_relation_implies_its_parent():
    assert parse_query("expand=variants.prices", LIST).relations == ("variants", "variants.prices")
    assert parse_query("expand=variants.prices,variants", LIST).relations == ("variants", "variants.prices")


@pytest.mark.parametrize("query,message", [
    ("expand=password", "Requested relations [password] are not valid"),
    ("expand=variants,ghost,options.secret", "Requested relations [ghost, options.secret] are not valid"),
])
def test_an_unknown_relation_is_refused(query, message):
    assert refused(query) == message


# ---------------------------------------------------------------- fields


def test_without_fields_the_default_columns_are_selected():
    assert parse_query("", LIST).fields is None


def test_fields_replace_the_default_columns_and_always_keep_id_and_on_lists_created_at():
    assert parse_query("fields=title", LIST).fields == {"title", "id", "created_at"}
    assert parse_query("fields=title,handle", GET).fields == {"title", "handle", "id"}
    assert parse_query("fields=title,total", GET).fields == {"title", "total", "id"}


def test_empty_fields_select_only_id_plus_created_at_on_lists():
    assert parse_query("fields=", GET).fields == {"id"}
    assert parse_query("fields=", LIST).fields == {"id", "created_at"}


def test_fields_leave_the_relations_as_they_are():
    assert parse_query("fields=title", LIST).relations == ("variants", "options")
    q = parse_query("fields=&expand=", GET)
    assert q.fields == {"id"} and q.relations == ()


def test_plus_and_minus_fields_adjust_the_default_columns():
    assert parse_query("fields=%2Btotal", GET).fields == set(COLUMNS) | {"total"}
    assert parse_query("fields=-handle,-status", GET).fields == set(COLUMNS) - {"handle", "status"}
    assert parse_query("fields=%2Btotal,-handle", GET).fields == set(COLUMNS) - {"handle"} | {"total"}
    # id cannot be taken away
    assert "id" in parse_query("fields=-id", GET).fields


def test_a_literal_plus_in_the_query_string_is_a_space_so_the_field_replaces_the_defaults():
    assert parse_query("fields=+total", GET).fields == {"total", "id"}


def test_an_unprefixed_field_among_prefixed_ones_replaces_the_defaults():
    assert parse_query("fields=title,%2Bhandle", GET).fields == {"title", "handle", "id"}


def test_a_dotted_field_selects_its_relation():
    q = parse_query("fields=title,collection.title&expand=", GET)
    assert q.fields == {"title", "id"}
    assert q.relations == ("collection",)


@pytest.mark.parametrize("query,message", [
    ("fields=password", "Requested fields [password] are not valid"),
    ("fields=title,secret,%2Bhash", "Requested fields [secret, hash] are not valid"),
    ("fields=ghost.title", "Requested fields [ghost.title] are not valid"),
])
def test_an_unknown_field_is_refused(query, message):
    assert refused(query) == message


# ---------------------------------------------------------------- filters


def test_filters_are_validated_by_the_resource_model():
    q = parse_query("q=shirt&status[]=draft&limit=5", LIST)
    assert isinstance(q.filters, ProductFilters)
    assert q.filters.q == "shirt" and q.filters.status == ["draft"]
    assert q.raw == {"q": "shirt", "status": ["draft"]}  # paging keys are not filters


@pytest.mark.parametrize("query,message", [
    ("color=red", "property color should not exist"),
    ("created_at[between]=1", "property between should not exist"),
    ("q[like]=x", "q must be a string"),
    ("created_at=2024-01-01", "created_at must be an object"),
])
def test_an_unknown_or_misshapen_filter_is_refused(query, message):
    assert refused(query) == message


def test_a_resource_without_filters_refuses_every_other_key():
    assert refused("q=x&color=red", BARE) == "property q should not exist, property color should not exist"


@pytest.mark.parametrize("value,expected", [
    ("2024-01-02", utc(2024, 1, 2)),
    ("2024-01-02T10:20:30Z", utc(2024, 1, 2, 10, 20, 30)),
    ("2024-01-02T10:20:30.500Z", utc(2024, 1, 2, 10, 20, 30, 500000)),
    ("2024-01-02T12:20:30%2B02:00", utc(2024, 1, 2, 10, 20, 30)),
    ("2024-01-02T10:20:30", utc(2024, 1, 2, 10, 20, 30)),  # no zone: UTC
    ("1700000000", utc(2023, 11, 14, 22, 13, 20)),  # unix seconds
    ("0", utc(1970, 1, 1)),
])
def test_a_date_comparison_takes_an_iso_date_or_unix_seconds(value, expected):
    q = parse_query(f"created_at[gt]={value}", LIST)
    assert q.filters.created_at.gt == expected
    assert q.filters.created_at.gt.tzinfo is not None


def test_a_date_comparison_takes_all_four_operators():
    q = parse_query(
        "created_at[lt]=2024-03-01&created_at[gt]=2024-01-01&updated_at[lte]=1700000000&updated_at[gte]=2023-01-01",
        LIST,
    )
    assert q.filters.created_at.model_dump() == {
        "lt": utc(2024, 3, 1), "gt": utc(2024, 1, 1), "lte": None, "gte": None,
    }
    assert q.filters.updated_at.lte == utc(2023, 11, 14, 22, 13, 20)
    assert q.filters.updated_at.gte == utc(2023, 1, 1)


@pytest.mark.parametrize("value", ["yesterday", "2024-13-45", "99999999999999999999"])
def test_a_date_that_is_neither_iso_nor_unix_seconds_is_refused(value):
    assert refused(f"created_at[gt]={value}") == "gt must be a date (ISO 8601) or unix seconds"


@pytest.mark.parametrize("value,expected", [
    ("true", True), ("false", False), ("TRUE", True), ("null", None), ("undefined", None),
])
def test_boolean_filters_read_the_strings_medusa_maps(value, expected):
    assert parse_query(f"is_giftcard={value}", LIST).filters.is_giftcard is expected
    assert parse_query("", LIST).filters.is_giftcard is None


@pytest.mark.parametrize("value", ["yes", "1", "maybe"])
def test_other_boolean_strings_are_refused(value):
    assert refused(f"is_giftcard={value}") == "is_giftcard must be a boolean value"


# ---------------------------------------------------------------- several problems at once


def test_every_problem_of_a_query_is_reported_in_one_message():
    message = refused(
        "limit=abc&offset=-1&order=password&expand=ghost&fields=secret&color=red&is_giftcard=maybe"
    )
    assert message == (
        "limit must be a number conforming to the specified constraints, "
        "offset must not be less than 0, "
        "Order field password is not valid, "
        "Requested relations [ghost] are not valid, "
        "Requested fields [secret] are not valid, "
        "is_giftcard must be a boolean value, "
        "property color should not exist"
    )


# ---------------------------------------------------------------- the clamp over HTTP

ADMIN_LISTS = ("/admin/customers", "/admin/orders", "/admin/products", "/admin/draft-orders", "/admin/gift-cards",
               "/admin/discounts", "/admin/collections", "/admin/customer-groups", "/admin/batch-jobs",
               "/admin/order-edits")
STORE_LISTS = ("/store/products", "/store/collections")
REFERENCE_LISTS = ("/admin/currencies", "/store/regions")


def test_the_maximum_page_is_a_hundred_rows():
    assert MAX_LIMIT == 100  # README's promise


@pytest.mark.parametrize("path", STORE_LISTS)
async def test_every_store_list_clamps_a_huge_limit_and_echoes_the_applied_one(client, seeded, path):
    r = await client.get(f"{path}?limit=1000000000")
    assert r.status_code == 200, r.text
    assert r.json()["limit"] == 100


@pytest.mark.parametrize("path", ADMIN_LISTS)
async def test_every_admin_list_clamps_a_huge_limit_and_echoes_the_applied_one(client, admin_headers, path):
    r = await client.get(f"{path}?limit=1000000000", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert r.json()["limit"] == 100


@pytest.mark.parametrize("path", REFERENCE_LISTS)
async def test_reference_lists_that_clients_load_whole_clamp_at_a_thousand(client, admin_headers, seeded, path):
    r = await client.get(f"{path}?limit=1000000000", headers=admin_headers)
    assert r.status_code == 200, r.text
    assert r.json()["limit"] == MAX_REFERENCE_LIMIT == 1000
    r = await client.get(f"{path}?limit=1000", headers=admin_headers)
    assert r.json()["limit"] == 1000  # the dashboard's price editors ask for every region this way


async def test_a_clamped_page_holds_at_most_the_maximum(client, admin_headers):
    await Customer.bulk_create([Customer(email=f"c{i}@example.com") for i in range(101)])
    body = (await client.get("/admin/customers?limit=1000", headers=admin_headers)).json()
    assert (len(body["customers"]), body["count"], body["limit"]) == (100, 101, 100)
    body = (await client.get("/admin/customers?limit=1000&offset=100", headers=admin_headers)).json()
    assert len(body["customers"]) == 1
