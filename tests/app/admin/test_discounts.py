"""Admin discounts: codes, rules, regions, conditions and dynamic codes under `/admin/discounts`."""

import asyncio
import copy
from datetime import datetime, timedelta, timezone

import pytest
from tortoise import connections

from models import (
    CustomerGroup, Discount, DiscountCondition, DiscountRule, Product, ProductCollection, ProductTag, ProductType,
    Region, ShippingProfile,
)
from tests.conftest import count_queries, requires_postgres

DISCOUNT_COLUMNS = {
    "id", "code", "is_dynamic", "is_disabled", "rule_id", "parent_discount_id", "usage_limit", "usage_count",
    "starts_at", "ends_at", "created_at", "updated_at", "deleted_at", "metadata", "valid_duration",
}
DEFAULT_RELATIONS = {"parent_discount", "regions", "rule"}
RULE_COLUMNS = {"id", "description", "type", "value", "allocation", "metadata", "created_at", "updated_at",
                "deleted_at"}
CONDITION_DEFAULTS = {"id", "type", "operator", "discount_rule_id", "created_at", "updated_at"}
PERCENT_10 = {"type": "percentage", "value": 10, "allocation": "total"}
MISSING_RESOURCES = "Missing one of products, collections, tags, types or customer groups in data"


# ---------------------------------------------------------------- factories


@pytest.fixture
async def regions():
    return {
        "NA": await Region.create(name="NA", currency_code="usd"),
        "EU": await Region.create(name="EU", currency_code="eur", tax_rate=25),
    }


@pytest.fixture
async def api(client, admin_headers):
    """`await api(method, path, body)` as the signed-in admin."""
    async def call(method: str, path: str, body: dict | None = None):
        return await client.request(method, path, headers=admin_headers, json=body)
    return call


async def a_discount(code: str = "SUMMER", *, kind: str = "percentage", value: int = 10,
                     allocation: str | None = "total", regions: tuple[Region, ...] = (), **columns) -> Discount:
    rule = await DiscountRule.create(type=kind, value=value, allocation=allocation)
    columns.setdefault("starts_at", datetime.now(timezone.utc))
    discount = await Discount.create(code=code, rule=rule, **columns)
    if regions:
        await discount.regions.add(*regions)
    return discount


async def a_dynamic_code(parent: Discount, code: str, **columns) -> Discount:
    return await Discount.create(code=code, rule_id=parent.rule_id, parent_discount=parent, is_dynamic=True,
                                 starts_at=datetime.now(timezone.utc), **columns)


async def a_condition(discount: Discount, kind: str = "products", *resources,
                      operator: str = "in") -> DiscountCondition:
    condition = await DiscountCondition.create(type=kind, operator=operator, discount_rule_id=discount.rule_id)
    if resources:
        await getattr(condition, kind).add(*resources)
    return condition


async def a_product(title: str = "Coffee") -> Product:
    return await Product.create(title=title, profile=await ShippingProfile.get(type="default"))


async def a_resource(kind: str, n: int = 0):
    """One row a condition of `kind` can point at."""
    if kind == "products":
        return await a_product(f"Product {n}")
    if kind == "product_types":
        return await ProductType.create(value=f"type {n}")
    if kind == "product_tags":
        return await ProductTag.create(value=f"tag {n}")
    if kind == "product_collections":
        return await ProductCollection.create(title=f"Collection {n}", handle=f"collection-{n}")
    return await CustomerGroup.create(name=f"group {n}")


async def linked(condition_id: str, kind: str = "products") -> set[str]:
    condition = await DiscountCondition.get(id=condition_id).prefetch_related(kind)
    return {r.id for r in getattr(condition, kind)}


async def region_ids(discount_id: str) -> set[str]:
    return {r.id for r in (await Discount.get(id=discount_id).prefetch_related("regions")).regions}


def a_body(region_ids: list[str], code: str = "SUMMER10", **changes) -> dict:
    return {"code": code, "rule": dict(PERCENT_10), "regions": region_ids, **changes}


def when(value: str) -> datetime:
    return datetime.fromisoformat(value)


def assert_error(r, message: str, status: int = 400, kind: str = "invalid_data") -> None:
    assert (r.status_code, r.json()) == (status, {"type": kind, "message": message})


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize("method,path", [
    ("GET", "/admin/discounts"),
    ("POST", "/admin/discounts"),
    ("GET", "/admin/discounts/DISC"),
    ("POST", "/admin/discounts/DISC"),
    ("DELETE", "/admin/discounts/DISC"),
    ("POST", "/admin/discounts/DISC/conditions"),
    ("POST", "/admin/discounts/DISC/dynamic-codes"),
    ("POST", "/admin/discounts/DISC/regions/REG"),
])
async def test_discount_routes_need_a_signed_in_user(client, regions, method, path):
    discount = await a_discount("SUMMER", regions=(regions["NA"],), is_dynamic=True)
    path = path.replace("DISC", discount.id).replace("REG", regions["EU"].id)
    r = await client.request(method, path, json=a_body([regions["NA"].id]) if method == "POST" else None)
    assert_error(r, "Unauthorized", 401, "unauthorized")
    assert await Discount.all().count() == 1
    assert (await Discount.get(id=discount.id)).deleted_at is None
    assert await region_ids(discount.id) == {regions["NA"].id}


# ---------------------------------------------------------------- list


async def test_list_shows_live_discounts_newest_first_with_their_rule_regions_and_parent(api, regions):
    older = await a_discount("OLDER", regions=(regions["NA"],))
    newer = await a_discount("NEWER", kind="fixed", value=500, regions=(regions["EU"],))
    await a_condition(newer, "products", await a_product())
    await Discount.filter(id=older.id).update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    await a_discount("GONE", deleted_at=datetime.now(timezone.utc))
    r = await api("GET", "/admin/discounts")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"discounts", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (2, 0, 20)
    assert [d["code"] for d in body["discounts"]] == ["NEWER", "OLDER"]
    first = body["discounts"][0]
    assert set(first) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert first["parent_discount"] is None and [g["id"] for g in first["regions"]] == [regions["EU"].id]
    assert set(first["rule"]) == RULE_COLUMNS | {"conditions"}
    assert (first["rule"]["type"], first["rule"]["value"]) == ("fixed", 500)
    assert [c["type"] for c in first["rule"]["conditions"]] == ["products"]


async def test_list_pages_twenty_discounts_by_default(api):
    for i in range(23):
        await a_discount(f"CODE{i:02}")
    body = (await api("GET", "/admin/discounts")).json()
    assert (len(body["discounts"]), body["count"], body["limit"]) == (20, 23, 20)
    body = (await api("GET", "/admin/discounts?limit=5&offset=20")).json()
    assert (len(body["discounts"]), body["count"], body["offset"], body["limit"]) == (3, 23, 20, 5)


async def test_list_q_finds_discounts_by_part_of_the_code_in_any_case(api):
    await a_discount("SUMMER10")
    await a_discount("SUMMER20")
    await a_discount("WINTER10")

    async def codes(q: str) -> list[str]:
        body = (await api("GET", f"/admin/discounts?q={q}&order=code")).json()
        assert body["count"] == len(body["discounts"])
        return [d["code"] for d in body["discounts"]]

    assert await codes("summer") == ["SUMMER10", "SUMMER20"]
    assert await codes("r10") == ["SUMMER10", "WINTER10"]
    assert await codes("nothing") == []
    assert await codes("%25") == [] and await codes("_") == []  # LIKE wildcards are taken literally


async def test_list_filters_by_rule_type_and_allocation(api):
    await a_discount("PERCENT", kind="percentage", allocation="total")
    await a_discount("FIXED", kind="fixed", value=100, allocation="item")
    await a_discount("SHIPPING", kind="free_shipping", value=0, allocation=None)

    async def codes(query: str) -> set[str]:
        return {d["code"] for d in (await api("GET", f"/admin/discounts?{query}")).json()["discounts"]}

    assert await codes("rule[type]=fixed") == {"FIXED"}
    assert await codes("rule[type]=free_shipping") == {"SHIPPING"}
    assert await codes("rule[allocation]=total") == {"PERCENT"}
    assert await codes("rule[type]=fixed&rule[allocation]=total") == set()


async def test_list_filters_by_the_dynamic_and_disabled_flags(api):
    await a_discount("PLAIN")
    await a_discount("DYNAMIC", is_dynamic=True)
    await a_discount("DISABLED", is_disabled=True)

    async def codes(query: str) -> set[str]:
        return {d["code"] for d in (await api("GET", f"/admin/discounts?{query}")).json()["discounts"]}

    assert await codes("is_dynamic=true") == {"DYNAMIC"}
    assert await codes("is_dynamic=false") == {"PLAIN", "DISABLED"}
    assert await codes("is_disabled=true") == {"DISABLED"}
    assert await codes("is_disabled=false&is_dynamic=false") == {"PLAIN"}


async def test_list_filters_by_creation_date(api):
    old = await a_discount("OLD")
    await a_discount("NEW")
    await Discount.filter(id=old.id).update(created_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    body = (await api("GET", "/admin/discounts?created_at[lt]=2021-01-01")).json()
    assert [d["code"] for d in body["discounts"]] == ["OLD"]


async def test_list_orders_on_request(api):
    for code in ("BRAVO", "ALPHA", "CHARLIE"):
        await a_discount(code)
    body = (await api("GET", "/admin/discounts?order=code")).json()
    assert [d["code"] for d in body["discounts"]] == ["ALPHA", "BRAVO", "CHARLIE"]
    body = (await api("GET", "/admin/discounts?order=-code")).json()
    assert [d["code"] for d in body["discounts"]] == ["CHARLIE", "BRAVO", "ALPHA"]


async def test_list_expand_and_fields_shape_each_discount(api, regions):
    discount = await a_discount("SUMMER", regions=(regions["NA"],))
    [shown] = (await api("GET", "/admin/discounts?fields=code&expand=rule")).json()["discounts"]
    assert set(shown) == {"id", "code", "created_at", "rule"}
    assert shown["rule"]["id"] == discount.rule_id and "conditions" not in shown["rule"]
    [shown] = (await api("GET", "/admin/discounts?expand=")).json()["discounts"]
    assert set(shown) == DISCOUNT_COLUMNS
    [shown] = (await api("GET", "/admin/discounts?expand=regions,rule.conditions.products")).json()["discounts"]
    assert set(shown) == DISCOUNT_COLUMNS | {"regions", "rule"} and shown["rule"]["conditions"] == []


@pytest.mark.parametrize("query,message", [
    ("rule[type]=bogus", "type must be one of the following values: fixed, percentage, free_shipping"),
    ("rule[allocation]=bogus", "allocation must be one of the following values: total, item"),
    ("is_dynamic=maybe", "is_dynamic must be a boolean value"),
    ("order=metadata", "Order field metadata is not valid"),
    ("expand=customer", "Requested relations [customer] are not valid"),
    ("fields=password", "Requested fields [password] are not valid"),
    ("limit=abc", "limit must be a number conforming to the specified constraints"),
    ("region_id=reg_1", "property region_id should not exist"),
])
async def test_list_refuses_unknown_or_malformed_query_keys(api, query, message):
    assert_error(await api("GET", f"/admin/discounts?{query}"), message)


async def test_list_runs_as_many_statements_for_fifty_discounts_as_for_one(api, regions):
    # Given a dynamic discount with a condition, and 55 codes of it, each in a region
    parent = await a_discount("PARENT", is_dynamic=True, regions=(regions["NA"],))
    await a_condition(parent, "products", await a_product())
    for i in range(55):
        code = await a_dynamic_code(parent, f"CODE{i:02}")
        await code.regions.add(regions["EU"])
    # When a page of one and a page of fifty are read with the default relations and the products
    query = "expand=parent_discount,regions,rule.conditions.products"
    async with count_queries() as one:
        r1 = await api("GET", f"/admin/discounts?limit=1&is_dynamic=true&{query}")
    async with count_queries() as fifty:
        r50 = await api("GET", f"/admin/discounts?limit=50&is_dynamic=true&{query}")
    # I expect the same statements, whatever the page size
    assert r1.json()["count"] == 56 and len(r1.json()["discounts"]) == 1
    page = r50.json()["discounts"]
    assert r50.json()["count"] == 56 and len(page) == 50
    assert all(d["parent_discount"]["id"] == parent.id and [g["name"] for g in d["regions"]] == ["EU"]
               and len(d["rule"]["conditions"][0]["products"]) == 1 for d in page)
    assert one and len(fifty) == len(one), (one, fifty)


# ---------------------------------------------------------------- create


@pytest.mark.parametrize("sent,stored", [(" Testing ", "TESTING"), ("HELLOworld", "HELLOWORLD")])
async def test_create_stores_the_code_trimmed_and_upper_cased_with_its_rule_and_regions(api, regions, sent, stored):
    r = await api("POST", "/admin/discounts", a_body([regions["NA"].id], code=sent))
    assert r.status_code == 200 and set(r.json()) == {"discount"}
    created = r.json()["discount"]
    assert set(created) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert created["id"].startswith("disc_") and created["code"] == stored
    assert (created["is_dynamic"], created["is_disabled"], created["usage_count"]) == (False, False, 0)
    assert created["ends_at"] is None and created["usage_limit"] is None and created["parent_discount"] is None
    assert abs(when(created["starts_at"]) - datetime.now(timezone.utc)) < timedelta(minutes=1)
    assert created["rule"]["id"].startswith("dru_") and created["rule_id"] == created["rule"]["id"]
    assert {k: created["rule"][k] for k in ("type", "value", "allocation")} == PERCENT_10
    assert created["rule"]["conditions"] == []
    assert [g["id"] for g in created["regions"]] == [regions["NA"].id]
    assert (await Discount.get(id=created["id"])).code == stored


async def test_create_keeps_the_window_duration_limit_flags_and_metadata(api, regions):
    body = a_body([regions["EU"].id], starts_at="2030-01-01T00:00:00Z", ends_at="2030-02-01T12:00:00+02:00",
                  valid_duration="P1M2DT3H", usage_limit=50, is_dynamic=True, is_disabled=True,
                  metadata={"campaign": "winter"})
    body["rule"] = {"type": "fixed", "value": 1500, "allocation": "item", "description": "15 off"}
    created = (await api("POST", "/admin/discounts", body)).json()["discount"]
    assert when(created["starts_at"]) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert when(created["ends_at"]) == datetime(2030, 2, 1, 10, tzinfo=timezone.utc)
    assert (created["valid_duration"], created["usage_limit"]) == ("P1M2DT3H", 50)
    assert (created["is_dynamic"], created["is_disabled"], created["metadata"]) == (True, True, {"campaign": "winter"})
    assert (created["rule"]["type"], created["rule"]["value"], created["rule"]["allocation"]) == ("fixed", 1500, "item")
    assert created["rule"]["description"] == "15 off"


async def test_create_attaches_its_conditions_to_the_new_rule(api, regions):
    coffee, tea = await a_product("Coffee"), await a_product("Tea")
    vip = await CustomerGroup.create(name="vip")
    body = a_body([regions["NA"].id])
    body["rule"]["conditions"] = [
        {"operator": "in", "products": [coffee.id, tea.id]},
        {"operator": "not_in", "customer_groups": [vip.id]},
    ]
    created = (await api("POST", "/admin/discounts", body)).json()["discount"]
    conditions = {c["type"]: c for c in created["rule"]["conditions"]}
    assert set(conditions) == {"products", "customer_groups"}
    assert conditions["products"]["operator"] == "in" and conditions["customer_groups"]["operator"] == "not_in"
    assert all(c["discount_rule_id"] == created["rule_id"] for c in conditions.values())
    assert await linked(conditions["products"]["id"]) == {coffee.id, tea.id}
    assert await linked(conditions["customer_groups"]["id"], "customer_groups") == {vip.id}


ABSENT = object()  # a key left out of the body
INVALID_RULE_TYPE = 'Invalid rule type, must be one of "fixed", "percentage" or "free_shipping"'
LATE_START = '"ends_at" must be greater than "starts_at"'
BAD_DURATION = '"valid_duration" must be a valid ISO 8601 duration'


@pytest.mark.parametrize("changes,message", [
    # Medusa's messages, in its order
    ({"rule": {"type": "bogus", "value": 10}}, INVALID_RULE_TYPE),
    ({"rule": {"value": 10}}, INVALID_RULE_TYPE),
    ({"rule": {"type": 5, "value": 10}}, INVALID_RULE_TYPE),
    ({"rule": {"type": "fixed", "value": 10, "allocation": "everything"}},
     'Invalid allocation type, must be one of "total" or "item"'),
    ({"regions": ABSENT}, "each value in regions must be a string, regions must be an array"),
    ({"regions": [1]}, "each value in regions must be a string"),
    ({"regions": "NA"}, "regions must be an array"),
    ({"starts_at": "2030-01-02", "ends_at": "2030-01-01"}, LATE_START),
    ({"starts_at": "2030-01-01", "ends_at": "2030-01-01T00:00:00Z"}, LATE_START),
    ({"valid_duration": "1D"}, BAD_DURATION),
    ({"valid_duration": "P"}, BAD_DURATION),
    ({"valid_duration": "PT1D"}, BAD_DURATION),
    ({"valid_duration": "P1DT"}, BAD_DURATION),
    ({"valid_duration": "one week"}, BAD_DURATION),
    ({"usage_limit": 0}, "usage_limit must be a positive number"),
    ({"usage_limit": -5}, "usage_limit must be a positive number"),
    ({"rule": {"type": "percentage", "value": 101}}, "Discount value above 100 is not allowed when type is percentage"),
    ({"rule": {"type": "fixed", "value": 100}, "regions": ["NA", "EU"]}, "Fixed discounts can have one region"),
    ({"regions": []}, "Discount must have at least 1 region"),
    # and the shape of the body
    ({"code": None}, "code must be a string"),
    ({"code": "   "}, "code should not be empty"),
    ({"rule": None}, "rule must be an object"),
    ({"rule": {"type": "fixed", "value": -1}}, "value must not be less than 0"),
    ({"rule": {"type": "fixed", "value": 1.5}}, "value must be an integer number"),
    ({"rule": {"type": "fixed"}}, "value should not be empty"),
    ({"rule": {"id": "dru_1", "type": "fixed", "value": 1}}, "property id should not exist"),
    ({"is_dynamic": "yes"}, "is_dynamic must be a boolean value"),
    ({"ends_at": "next week"}, "ends_at must be a Date instance"),
    ({"metadata": ["a"]}, "metadata must be an object"),
    ({"usage_count": 3}, "property usage_count should not exist"),
    ({"rule": {**PERCENT_10, "conditions": [{"products": ["P"]}]}}, "operator should not be empty"),
    ({"rule": {**PERCENT_10, "conditions": [{"operator": "maybe", "products": ["P"]}]}},
     "operator must be one of the following values: in, not_in"),
    ({"rule": {**PERCENT_10, "conditions": [{"operator": "in", "products": ["P"], "product_types": []}]}},
     "Only one of products, product_types is allowed, Only one of product_types, products is allowed"),
    ({"rule": {**PERCENT_10, "conditions": [{"operator": "in", "products": []}]}},
     MISSING_RESOURCES),
])
async def test_create_refuses_a_bad_body_with_a_400_naming_the_problem(api, regions, changes, message):
    product = await a_product()
    body = {**a_body([regions["NA"].id]), **copy.deepcopy(changes)}
    for key in [k for k, v in changes.items() if v is ABSENT]:
        del body[key]
    if isinstance(body.get("regions"), list):
        body["regions"] = [regions[r].id if r in regions else r for r in body["regions"]]
    for condition in (body.get("rule") or {}).get("conditions", []):
        condition["products"] = [product.id for _ in condition.get("products", [])]
    assert_error(await api("POST", "/admin/discounts", body), message)
    assert await Discount.all().count() == 0 and await DiscountRule.all().count() == 0


async def test_create_runs_the_service_checks_in_medusas_order(api):
    # a percentage above 100 is named before the regions, and a fixed discount's second region
    # before the regions' existence
    r = await api("POST", "/admin/discounts", a_body(["reg_nope"], rule={"type": "percentage", "value": 101}))
    assert_error(r, "Discount value above 100 is not allowed when type is percentage")
    r = await api("POST", "/admin/discounts", a_body(["reg_a", "reg_b"], rule={"type": "fixed", "value": 1}))
    assert_error(r, "Fixed discounts can have one region")
    r = await api("POST", "/admin/discounts", a_body(["reg_a"], rule={"type": "fixed", "value": 1}))
    assert_error(r, "Region with reg_a was not found", 404, "not_found")


async def test_create_in_an_unknown_or_deleted_region_is_a_404(api, regions):
    for region_id in ("reg_nope", "reg_" + "x" * 100):
        r = await api("POST", "/admin/discounts", a_body([regions["NA"].id, region_id]))
        assert_error(r, f"Region with {region_id} was not found", 404, "not_found")
    await Region.filter(id=regions["EU"].id).update(deleted_at=datetime.now(timezone.utc))
    r = await api("POST", "/admin/discounts", a_body([regions["EU"].id]))
    assert_error(r, f"Region with {regions['EU'].id} was not found", 404, "not_found")
    assert await Discount.all().count() == 0 and await DiscountRule.all().count() == 0


async def test_a_live_code_is_a_422_whatever_the_case_it_is_sent_in(api, regions):
    await a_discount("SUMMER")
    r = await api("POST", "/admin/discounts", a_body([regions["NA"].id], code=" summer "))
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "code": "invalid_request_error",
                        "message": "Discount with code SUMMER already exists."}
    assert await Discount.all().count() == 1 and await DiscountRule.all().count() == 1


async def test_a_deleted_discounts_code_can_be_used_again(api, regions):
    old = (await api("POST", "/admin/discounts", a_body([regions["NA"].id], code="SUMMER"))).json()["discount"]
    assert (await api("DELETE", f"/admin/discounts/{old['id']}")).status_code == 200
    r = await api("POST", "/admin/discounts", a_body([regions["NA"].id], code="summer"))
    assert r.status_code == 200
    assert r.json()["discount"]["code"] == "SUMMER" and r.json()["discount"]["id"] != old["id"]


async def test_create_with_an_unknown_condition_resource_is_a_404_and_creates_nothing(api, regions):
    body = a_body([regions["NA"].id])
    body["rule"]["conditions"] = [{"operator": "in", "products": ["prod_nope"]}]
    assert_error(await api("POST", "/admin/discounts", body), "Product with product_id prod_nope does not exist.",
                 404, "not_found")
    assert await Discount.all().count() == 0 and await DiscountRule.all().count() == 0


async def test_create_with_two_conditions_of_one_type_and_operator_is_a_422_and_creates_nothing(api, regions):
    coffee, tea = await a_product("Coffee"), await a_product("Tea")
    body = a_body([regions["NA"].id])
    body["rule"]["conditions"] = [{"operator": "in", "products": [coffee.id]}, {"operator": "in", "products": [tea.id]}]
    r = await api("POST", "/admin/discounts", body)
    assert r.status_code == 422
    assert r.json() == {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "Discount Condition with operator 'in' and type 'products' already exist on a Discount Rule",
    }
    assert await Discount.all().count() == 0 and await DiscountCondition.all().count() == 0


async def test_create_shapes_its_answer_with_expand_and_fields_checked_before_the_body(api, regions):
    r = await api("POST", "/admin/discounts?fields=code&expand=rule", a_body([regions["NA"].id]))
    assert r.status_code == 200 and set(r.json()["discount"]) == {"id", "code", "rule"}
    assert_error(await api("POST", "/admin/discounts?expand=owner", {}), "Requested relations [owner] are not valid")
    assert await Discount.all().count() == 1


# ---------------------------------------------------------------- get


async def test_get_by_code_ignores_case_and_surrounding_spaces(api):
    testing, test = await a_discount("TESTING"), await a_discount("TEST")
    for sent, wanted in (("test", test), ("TesT", test), ("%20testing", testing), ("testing%20", testing)):
        r = await api("GET", f"/admin/discounts/code/{sent}")
        assert r.status_code == 200, sent
        shown = r.json()["discount"]
        assert shown["id"] == wanted.id and set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS


async def test_get_by_code_decodes_the_path_once(api):
    sale, odd = await a_discount("SUMMER SALE"), await a_discount("50%41")
    r = await api("GET", "/admin/discounts/code/summer%20sale?fields=code&expand=")
    assert r.status_code == 200 and r.json()["discount"] == {"id": sale.id, "code": "SUMMER SALE"}
    r = await api("GET", "/admin/discounts/code/50%2541?fields=code&expand=")
    assert r.status_code == 200 and r.json()["discount"] == {"id": odd.id, "code": "50%41"}


async def test_get_by_code_of_an_unknown_or_deleted_code_is_a_404_naming_the_code_as_sent(api):
    await a_discount("GONE", deleted_at=datetime.now(timezone.utc))
    for sent, named in (("nope", "nope"), ("%20gone", " gone"), ("x" * 300, "x" * 300)):
        assert_error(await api("GET", f"/admin/discounts/code/{sent}"), f"Discounts with code {named} was not found",
                     404, "not_found")


async def test_get_returns_the_discount_with_its_default_relations(api, regions):
    discount = await a_discount("SUMMER", regions=(regions["NA"], regions["EU"]), metadata={"note": "vip"})
    condition = await a_condition(discount, "products", await a_product())
    r = await api("GET", f"/admin/discounts/{discount.id}")
    assert r.status_code == 200 and set(r.json()) == {"discount"}
    shown = r.json()["discount"]
    assert set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert (shown["id"], shown["code"], shown["metadata"]) == (discount.id, "SUMMER", {"note": "vip"})
    assert {g["id"] for g in shown["regions"]} == {regions["NA"].id, regions["EU"].id}
    assert [c["id"] for c in shown["rule"]["conditions"]] == [condition.id]


async def test_get_with_only_the_id_and_the_parent_shows_exactly_those(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    child = await a_dynamic_code(parent, "CHILD")
    r = await api("GET", f"/admin/discounts/{parent.id}?fields=id&expand=parent_discount")
    assert r.json() == {"discount": {"id": parent.id, "parent_discount": None}}
    r = await api("GET", f"/admin/discounts/{child.id}?fields=id&expand=parent_discount")
    shown = r.json()["discount"]
    assert set(shown) == {"id", "parent_discount"} and shown["parent_discount"]["code"] == "PARENT"


async def test_get_of_an_unknown_or_deleted_discount_is_a_404(api):
    gone = await a_discount("GONE", deleted_at=datetime.now(timezone.utc))
    for discount_id in ("disc_nope", "disc_" + "x" * 100, gone.id):
        assert_error(await api("GET", f"/admin/discounts/{discount_id}"),
                     f"Discount with id {discount_id} was not found", 404, "not_found")


async def test_get_refuses_an_unknown_relation(api):
    discount = await a_discount()
    assert_error(await api("GET", f"/admin/discounts/{discount.id}?expand=owner"),
                 "Requested relations [owner] are not valid")


# ---------------------------------------------------------------- update


async def test_update_changes_what_is_sent_and_upper_cases_the_code(api, regions):
    discount = await a_discount("SUMMER", regions=(regions["NA"],), usage_limit=5)
    body = {
        "code": " autumn ", "is_disabled": True, "starts_at": "2030-01-01", "ends_at": "2030-03-01",
        "valid_duration": "P3D", "usage_limit": 10,
        "rule": {"id": discount.rule_id, "value": 25, "allocation": "item", "description": "a quarter off"},
    }
    r = await api("POST", f"/admin/discounts/{discount.id}", body)
    assert r.status_code == 200 and set(r.json()) == {"discount"}
    shown = r.json()["discount"]
    assert set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert (shown["code"], shown["is_disabled"], shown["valid_duration"], shown["usage_limit"]) == (
        "AUTUMN", True, "P3D", 10)
    assert when(shown["starts_at"]) == datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert when(shown["ends_at"]) == datetime(2030, 3, 1, tzinfo=timezone.utc)
    rule = shown["rule"]
    assert (rule["type"], rule["value"], rule["allocation"], rule["description"]) == (
        "percentage", 25, "item", "a quarter off")
    stored = await Discount.get(id=discount.id).prefetch_related("rule")
    assert (stored.code, stored.is_disabled, stored.rule.value) == ("AUTUMN", True, 25)


async def test_update_with_null_clears_the_end_the_duration_and_the_usage_limit(api):
    discount = await a_discount(ends_at=datetime(2031, 1, 1, tzinfo=timezone.utc), valid_duration="P1D",
                                usage_limit=3)
    body = {"ends_at": None, "valid_duration": None, "usage_limit": None}
    shown = (await api("POST", f"/admin/discounts/{discount.id}", body)).json()["discount"]
    assert (shown["ends_at"], shown["valid_duration"], shown["usage_limit"]) == (None, None, None)
    stored = await Discount.get(id=discount.id)
    assert (stored.ends_at, stored.valid_duration, stored.usage_limit) == (None, None, None)


async def test_update_leaves_what_is_not_sent_alone(api, regions):
    discount = await a_discount("SUMMER", regions=(regions["NA"],), ends_at=datetime(2031, 1, 1, tzinfo=timezone.utc),
                                usage_limit=3, metadata={"a": 1})
    shown = (await api("POST", f"/admin/discounts/{discount.id}", {})).json()["discount"]
    assert (shown["code"], shown["usage_limit"], shown["metadata"]) == ("SUMMER", 3, {"a": 1})
    assert when(shown["ends_at"]) == datetime(2031, 1, 1, tzinfo=timezone.utc)
    assert [g["id"] for g in shown["regions"]] == [regions["NA"].id]


async def test_update_replaces_the_regions(api, regions):
    discount = await a_discount(regions=(regions["NA"],))
    r = await api("POST", f"/admin/discounts/{discount.id}", {"regions": [regions["EU"].id]})
    assert [g["id"] for g in r.json()["discount"]["regions"]] == [regions["EU"].id]
    r = await api("POST", f"/admin/discounts/{discount.id}", {"regions": [regions["NA"].id, regions["EU"].id]})
    assert {g["id"] for g in r.json()["discount"]["regions"]} == {regions["NA"].id, regions["EU"].id}
    r = await api("POST", f"/admin/discounts/{discount.id}", {"regions": []})
    assert r.status_code == 200 and r.json()["discount"]["regions"] == []
    assert await region_ids(discount.id) == set()


async def test_update_to_an_unknown_region_is_a_404_and_keeps_the_regions(api, regions):
    discount = await a_discount(regions=(regions["NA"],))
    r = await api("POST", f"/admin/discounts/{discount.id}", {"regions": [regions["EU"].id, "reg_nope"]})
    assert_error(r, "Region with reg_nope was not found", 404, "not_found")
    assert await region_ids(discount.id) == {regions["NA"].id}


async def test_update_gives_a_fixed_discount_one_region_at_most(api, regions):
    discount = await a_discount(kind="fixed", value=100, regions=(regions["NA"],))
    r = await api("POST", f"/admin/discounts/{discount.id}", {"regions": [regions["NA"].id, regions["EU"].id]})
    assert_error(r, "Fixed discounts can have one region")
    assert await region_ids(discount.id) == {regions["NA"].id}


async def test_update_merges_metadata(api):
    discount = await a_discount(metadata={"keep": 1, "drop": 2, "nulled": 3})
    body = {"metadata": {"drop": "", "nulled": None, "new": "yes"}}
    shown = (await api("POST", f"/admin/discounts/{discount.id}", body)).json()["discount"]
    assert shown["metadata"] == {"keep": 1, "nulled": None, "new": "yes"}
    assert (await Discount.get(id=discount.id)).metadata == {"keep": 1, "nulled": None, "new": "yes"}


async def test_update_checks_the_end_against_the_start_the_discount_will_have(api):
    discount = await a_discount(starts_at=datetime(2030, 1, 1, tzinfo=timezone.utc))
    path = f"/admin/discounts/{discount.id}"
    assert_error(await api("POST", path, {"ends_at": "2029-12-31"}), LATE_START)
    assert_error(await api("POST", path, {"ends_at": "2030-01-01"}), LATE_START)
    assert (await api("POST", path, {"starts_at": "2029-01-01", "ends_at": "2029-12-31"})).status_code == 200
    assert_error(await api("POST", path, {"starts_at": "2030-06-01"}), LATE_START)  # after the stored end
    stored = await Discount.get(id=discount.id)
    assert (stored.starts_at, stored.ends_at) == (datetime(2029, 1, 1, tzinfo=timezone.utc),
                                                  datetime(2029, 12, 31, tzinfo=timezone.utc))


async def test_update_that_sends_no_date_leaves_an_already_ended_window_alone(api, regions):
    # Given a discount made with an end before its (default) start, which create accepts as Medusa does
    body = a_body([regions["NA"].id], ends_at="2020-01-01")
    created = (await api("POST", "/admin/discounts", body)).json()["discount"]
    # When something else is changed, I expect no complaint about the dates
    r = await api("POST", f"/admin/discounts/{created['id']}", {"is_disabled": True})
    assert r.status_code == 200 and r.json()["discount"]["is_disabled"] is True


async def test_update_to_another_live_code_is_a_422_and_to_its_own_code_is_fine(api):
    await a_discount("TAKEN")
    discount = await a_discount("MINE")
    r = await api("POST", f"/admin/discounts/{discount.id}", {"code": "taken"})
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "code": "invalid_request_error",
                        "message": "Discount with code TAKEN already exists."}
    r = await api("POST", f"/admin/discounts/{discount.id}", {"code": " mine "})
    assert r.status_code == 200 and r.json()["discount"]["code"] == "MINE"
    await a_discount("FREED", deleted_at=datetime.now(timezone.utc))
    r = await api("POST", f"/admin/discounts/{discount.id}", {"code": "freed"})
    assert r.status_code == 200 and r.json()["discount"]["code"] == "FREED"


@pytest.mark.parametrize("body,message", [
    ({"is_dynamic": True}, "property is_dynamic should not exist"),
    ({"rule": {"id": "RULE", "type": "fixed"}}, "property type should not exist"),
    ({"usage_count": 5}, "property usage_count should not exist"),
    ({"rule": {"value": 5}}, "id should not be empty"),
    ({"rule": {"id": "RULE", "value": -1}}, "value must not be less than 0"),
    ({"rule": {"id": "RULE", "value": 2.5}}, "value must be an integer number"),
    ({"rule": {"id": "RULE", "value": 101}}, "Discount value above 100 is not allowed when type is percentage"),
    ({"rule": {"id": "RULE", "allocation": "all"}}, 'Invalid allocation type, must be one of "total" or "item"'),
    ({"code": ""}, "code should not be empty"),
    ({"code": "   "}, "code should not be empty"),
    ({"usage_limit": 0}, "usage_limit must be a positive number"),
    ({"valid_duration": "tomorrow"}, BAD_DURATION),
    ({"ends_at": "soon"}, "ends_at must be a Date instance"),
    ({"is_disabled": "yes"}, "is_disabled must be a boolean value"),
    ({"regions": [1]}, "each value in regions must be a string"),
    ({"metadata": "x"}, "metadata must be an object"),
])
async def test_update_refuses_a_bad_body_with_a_400_and_changes_nothing(api, body, message):
    discount = await a_discount("SUMMER", usage_limit=3, valid_duration="P1D")
    if "rule" in body and "id" in body["rule"]:
        body = {"rule": {**body["rule"], "id": discount.rule_id}}
    assert_error(await api("POST", f"/admin/discounts/{discount.id}", body), message)
    stored = await Discount.get(id=discount.id).prefetch_related("rule")
    assert (stored.code, stored.usage_limit, stored.valid_duration, stored.is_dynamic) == ("SUMMER", 3, "P1D", False)
    assert (stored.rule.type, stored.rule.value, stored.rule.allocation) == ("percentage", 10, "total")


async def test_update_allows_a_rule_value_of_zero(api):
    discount = await a_discount()
    r = await api("POST", f"/admin/discounts/{discount.id}", {"rule": {"id": discount.rule_id, "value": 0}})
    assert r.status_code == 200 and r.json()["discount"]["rule"]["value"] == 0


async def test_update_refuses_the_rule_of_another_discount(api):
    discount, other = await a_discount("MINE"), await a_discount("OTHER")
    r = await api("POST", f"/admin/discounts/{discount.id}", {"rule": {"id": other.rule_id, "value": 50}})
    assert_error(r, f"Rule with id {other.rule_id} does not belong to Discount with id {discount.id}")
    assert (await DiscountRule.get(id=other.rule_id)).value == 10


async def test_update_of_an_unknown_or_deleted_discount_is_a_404(api):
    gone = await a_discount("GONE", deleted_at=datetime.now(timezone.utc))
    for discount_id in ("disc_nope", gone.id):
        assert_error(await api("POST", f"/admin/discounts/{discount_id}", {"is_disabled": True}),
                     f"Discount with id {discount_id} was not found", 404, "not_found")


async def test_update_shapes_its_answer_with_expand_and_fields(api):
    discount = await a_discount()
    r = await api("POST", f"/admin/discounts/{discount.id}?fields=code&expand=rule", {"code": "new"})
    assert r.json() == {"discount": {"id": discount.id, "code": "NEW", "rule": r.json()["discount"]["rule"]}}


async def test_update_adds_a_condition_and_replaces_the_resources_and_operator_of_an_existing_one(api):
    discount = await a_discount()
    coffee, tea, cake = await a_product("Coffee"), await a_product("Tea"), await a_product("Cake")
    existing = await a_condition(discount, "products", coffee, tea)
    group = await CustomerGroup.create(name="vip")
    body = {"rule": {"id": discount.rule_id, "conditions": [
        {"id": existing.id, "operator": "not_in", "products": [tea.id, cake.id]},
        {"operator": "in", "customer_groups": [group.id]},
    ]}}
    r = await api("POST", f"/admin/discounts/{discount.id}", body)
    assert r.status_code == 200
    conditions = {c["type"]: c for c in r.json()["discount"]["rule"]["conditions"]}
    assert conditions["products"]["id"] == existing.id and conditions["products"]["operator"] == "not_in"
    assert await linked(existing.id) == {tea.id, cake.id}
    assert await linked(conditions["customer_groups"]["id"], "customer_groups") == {group.id}


async def test_update_refuses_an_operator_other_than_in_or_not_in(api):
    discount = await a_discount()
    coffee = await a_product()
    existing = await a_condition(discount, "products", coffee)
    group = await CustomerGroup.create(name="vip")
    for condition in ({"id": existing.id, "operator": "all", "products": [coffee.id]},
                      {"operator": "all", "customer_groups": [group.id]}):
        body = {"rule": {"id": discount.rule_id, "conditions": [condition]}}
        assert_error(await api("POST", f"/admin/discounts/{discount.id}", body),
                     "operator must be one of the following values: in, not_in")
    assert [(c.id, c.operator) for c in await DiscountCondition.all()] == [(existing.id, "in")]


async def test_update_with_a_condition_of_the_same_type_and_operator_is_a_422(api):
    discount = await a_discount()
    coffee = await a_product()
    await a_condition(discount, "products", coffee)
    body = {"rule": {"id": discount.rule_id, "conditions": [{"operator": "in", "products": [coffee.id]}]}}
    r = await api("POST", f"/admin/discounts/{discount.id}", body)
    assert r.status_code == 422 and r.json()["type"] == "duplicate_error"
    assert await DiscountCondition.all().count() == 1


async def test_update_is_all_or_nothing(api):
    # Given a rule change and a good condition, followed by a condition on an unknown product
    discount = await a_discount()
    coffee = await a_product()
    body = {"code": "CHANGED", "rule": {"id": discount.rule_id, "value": 50, "conditions": [
        {"operator": "in", "products": [coffee.id]}, {"operator": "not_in", "products": ["prod_nope"]},
    ]}}
    assert_error(await api("POST", f"/admin/discounts/{discount.id}", body),
                 "Product with product_id prod_nope does not exist.", 404, "not_found")
    # I expect nothing of it stored
    stored = await Discount.get(id=discount.id).prefetch_related("rule")
    assert (stored.code, stored.rule.value) == ("SUMMER", 10)
    assert await DiscountCondition.all().count() == 0


async def test_update_of_a_condition_that_is_not_there_is_a_404(api):
    discount = await a_discount()
    coffee = await a_product()
    body = {"rule": {"id": discount.rule_id, "conditions": [{"id": "discon_nope", "products": [coffee.id]}]}}
    assert_error(await api("POST", f"/admin/discounts/{discount.id}", body),
                 "DiscountCondition with id discon_nope was not found", 404, "not_found")


async def test_update_refuses_to_turn_a_condition_into_another_type(api):
    # Given an `in` and a `not_in` condition on products
    discount = await a_discount()
    condition = await a_condition(discount, "products", await a_product())
    await a_condition(discount, "products", await a_product("Tea"), operator="not_in")
    kind = await ProductType.create(value="beans")
    # When the first is sent with product types (and the operator of the second)
    body = {"rule": {"id": discount.rule_id, "conditions": [
        {"id": condition.id, "operator": "not_in", "product_types": [kind.id]},
    ]}}
    r = await api("POST", f"/admin/discounts/{discount.id}", body)
    # I expect the change of type named, not the operator clash it would lead to
    assert_error(r, f"Condition with id {condition.id} holds products, not product_types")
    stored = await DiscountCondition.get(id=condition.id)
    assert stored.operator == "in" and await linked(condition.id, "product_types") == set()
    assert len(await linked(condition.id)) == 1


# ---------------------------------------------------------------- delete


async def test_delete_soft_deletes_and_is_idempotent(api):
    discount = await a_discount()
    for _ in range(2):
        r = await api("DELETE", f"/admin/discounts/{discount.id}")
        assert (r.status_code, r.json()) == (200, {"id": discount.id, "object": "discount", "deleted": True})
    assert (await Discount.get(id=discount.id)).deleted_at is not None
    assert (await api("GET", f"/admin/discounts/{discount.id}")).status_code == 404
    assert (await api("GET", "/admin/discounts")).json()["count"] == 0
    r = await api("DELETE", "/admin/discounts/disc_nope")
    assert (r.status_code, r.json()) == (200, {"id": "disc_nope", "object": "discount", "deleted": True})


async def test_deleting_a_discount_deletes_its_dynamic_codes(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    child = await a_dynamic_code(parent, "CHILD")
    other = await a_discount("OTHER")
    assert (await api("DELETE", f"/admin/discounts/{parent.id}")).status_code == 200
    assert (await Discount.get(id=child.id)).deleted_at is not None
    assert (await Discount.get(id=other.id)).deleted_at is None
    assert (await api("GET", "/admin/discounts/code/child")).status_code == 404


# ---------------------------------------------------------------- conditions


CONDITION_KINDS = ["products", "product_collections", "product_types", "product_tags", "customer_groups"]


@pytest.mark.parametrize("kind", CONDITION_KINDS)
async def test_create_condition_links_the_resources_and_answers_with_the_discount(api, kind):
    discount = await a_discount()
    first, second = await a_resource(kind, 1), await a_resource(kind, 2)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions",
                  {"operator": "not_in", kind: [first.id, second.id]})
    assert r.status_code == 200 and set(r.json()) == {"discount"}
    shown = r.json()["discount"]
    assert shown["id"] == discount.id and set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    [condition] = shown["rule"]["conditions"]
    assert condition["id"].startswith("discon_")
    assert (condition["type"], condition["operator"]) == (kind, "not_in")
    assert condition["discount_rule_id"] == discount.rule_id
    assert await linked(condition["id"], kind) == {first.id, second.id}


async def test_create_condition_shapes_its_answer_with_expand_and_fields(api):
    discount = await a_discount()
    coffee = await a_product()
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions?expand=rule.conditions.products&fields=code",
                  {"operator": "in", "products": [coffee.id]})
    shown = r.json()["discount"]
    assert set(shown) == {"id", "code", "rule"}
    assert [p["id"] for p in shown["rule"]["conditions"][0]["products"]] == [coffee.id]


async def test_one_condition_per_type_and_operator(api):
    discount = await a_discount()
    coffee, tea = await a_product("Coffee"), await a_product("Tea")
    await a_condition(discount, "products", coffee)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions", {"operator": "in", "products": [tea.id]})
    assert r.status_code == 422
    assert r.json() == {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "Discount Condition with operator 'in' and type 'products' already exist on a Discount Rule",
    }
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions", {"operator": "not_in", "products": [tea.id]})
    assert r.status_code == 200 and len(r.json()["discount"]["rule"]["conditions"]) == 2


@pytest.mark.parametrize("kind,label", [
    ("products", "Product with product_id"),
    ("product_collections", "Product_collection with product_collection_id"),
    ("product_types", "Product_type with product_type_id"),
    ("product_tags", "Product_tag with product_tag_id"),
    ("customer_groups", "Customer_group with customer_group_id"),
])
async def test_create_condition_with_an_unknown_resource_is_a_404_naming_it(api, kind, label):
    discount = await a_discount()
    known = await a_resource(kind)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions", {"operator": "in", kind: [known.id, "x_nope"]})
    assert_error(r, f"{label} x_nope does not exist.", 404, "not_found")
    assert await DiscountCondition.all().count() == 0


async def test_create_condition_with_a_deleted_resource_is_a_404(api):
    discount = await a_discount()
    coffee = await a_product()
    await Product.filter(id=coffee.id).update(deleted_at=datetime.now(timezone.utc))
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions", {"operator": "in", "products": [coffee.id]})
    assert_error(r, f"Product with product_id {coffee.id} does not exist.", 404, "not_found")


@pytest.mark.parametrize("body,message", [
    ({"products": ["P"]}, "operator should not be empty"),
    ({"operator": "between", "products": ["P"]}, "operator must be one of the following values: in, not_in"),
    ({"operator": "in", "products": ["P"], "product_types": ["T"]},
     "Only one of products, product_types is allowed, Only one of product_types, products is allowed"),
    ({"operator": "in", "products": ["P"], "customer_groups": []},
     "Only one of products, customer_groups is allowed, Only one of customer_groups, products is allowed"),
    ({"operator": "in"}, MISSING_RESOURCES),
    ({"operator": "in", "product_tags": []}, MISSING_RESOURCES),
    ({"operator": "in", "products": "P"}, "products must be an array"),
    ({"operator": "in", "products": ["P"], "regions": ["R"]}, "property regions should not exist"),
])
async def test_create_condition_refuses_a_bad_body_with_a_400(api, body, message):
    discount = await a_discount()
    product = await a_product()
    if isinstance(body.get("products"), list):
        body = {**body, "products": [product.id]}
    assert_error(await api("POST", f"/admin/discounts/{discount.id}/conditions", body), message)
    assert await DiscountCondition.all().count() == 0


async def test_get_condition_shows_its_columns_and_rule(api):
    discount = await a_discount()
    condition = await a_condition(discount, "products", await a_product())
    r = await api("GET", f"/admin/discounts/{discount.id}/conditions/{condition.id}")
    assert r.status_code == 200 and set(r.json()) == {"discount_condition"}
    shown = r.json()["discount_condition"]
    assert set(shown) == CONDITION_DEFAULTS | {"discount_rule"}
    assert (shown["id"], shown["type"], shown["operator"]) == (condition.id, "products", "in")
    assert shown["discount_rule"]["id"] == discount.rule_id and set(shown["discount_rule"]) == RULE_COLUMNS


async def test_get_condition_with_products_and_their_profiles_shows_only_what_was_asked(api):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    path = f"/admin/discounts/{discount.id}/conditions/{condition.id}"
    r = await api("GET", f"{path}?expand=products.profiles&fields=id,type")
    shown = r.json()["discount_condition"]
    assert set(shown) == {"id", "type", "products"} and shown["type"] == "products"
    [product] = shown["products"]
    assert product["id"] == coffee.id and [p["id"] for p in product["profiles"]] == [coffee.profile_id]


async def test_update_condition_replaces_its_resources(api):
    discount = await a_discount()
    coffee, tea, cake = await a_product("Coffee"), await a_product("Tea"), await a_product("Cake")
    condition = await a_condition(discount, "products", coffee, tea)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}", {"products": [tea.id, cake.id]})
    assert r.status_code == 200 and r.json()["discount"]["id"] == discount.id
    assert await linked(condition.id) == {tea.id, cake.id}
    assert (await DiscountCondition.get(id=condition.id)).operator == "in"


@pytest.mark.parametrize("body,message", [
    ({"operator": "not_in", "products": ["P"]}, "property operator should not exist"),
    ({"products": []}, MISSING_RESOURCES),
    ({}, MISSING_RESOURCES),
    ({"products": ["P"], "product_tags": ["T"]},
     "Only one of products, product_tags is allowed, Only one of product_tags, products is allowed"),
])
async def test_update_condition_refuses_a_bad_body_and_keeps_the_resources(api, body, message):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    if body.get("products"):
        body = {**body, "products": [coffee.id]}
    assert_error(await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}", body), message)
    assert await linked(condition.id) == {coffee.id}


async def test_update_condition_with_resources_of_another_type_is_a_400(api):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    tag = await ProductTag.create(value="organic")
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}", {"product_tags": [tag.id]})
    assert_error(r, f"Condition with id {condition.id} holds products, not product_tags")
    assert await linked(condition.id) == {coffee.id} and await linked(condition.id, "product_tags") == set()


async def test_update_condition_with_an_unknown_resource_is_a_404_and_keeps_the_resources(api):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}", {"products": ["prod_nope"]})
    assert_error(r, "Product with product_id prod_nope does not exist.", 404, "not_found")
    assert await linked(condition.id) == {coffee.id}


async def test_delete_condition_removes_it_and_its_links_and_answers_with_the_discount(api):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    r = await api("DELETE", f"/admin/discounts/{discount.id}/conditions/{condition.id}")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"id", "object", "deleted", "discount"}
    assert (body["id"], body["object"], body["deleted"]) == (condition.id, "discount-condition", True)
    assert body["discount"]["id"] == discount.id and body["discount"]["rule"]["conditions"] == []
    assert not await DiscountCondition.filter(id=condition.id).exists()
    [row] = await connections.get("default").execute_query_dict(
        f"SELECT COUNT(*) AS n FROM discount_condition_product WHERE condition_id = '{condition.id}'")
    assert row["n"] == 0 and await Product.filter(id=coffee.id).exists()


async def test_delete_condition_that_is_not_there_is_fine_but_the_discount_must_exist(api):
    discount = await a_discount()
    r = await api("DELETE", f"/admin/discounts/{discount.id}/conditions/discon_nope")
    assert r.status_code == 200
    assert (r.json()["id"], r.json()["deleted"], r.json()["discount"]["id"]) == ("discon_nope", True, discount.id)
    assert_error(await api("DELETE", "/admin/discounts/disc_nope/conditions/discon_nope"),
                 "Discount with id disc_nope was not found", 404, "not_found")


async def test_batch_add_adds_resources_of_the_conditions_type_and_keeps_the_rest(api):
    discount = await a_discount()
    coffee, tea, cake = await a_product("Coffee"), await a_product("Tea"), await a_product("Cake")
    condition = await a_condition(discount, "products", coffee)
    body = {"resources": [{"id": tea.id}, {"id": cake.id}, {"id": coffee.id}]}
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch"
                          "?expand=rule.conditions.products.profiles", body)
    assert r.status_code == 200
    [shown] = r.json()["discount"]["rule"]["conditions"]
    assert {p["id"] for p in shown["products"]} == {coffee.id, tea.id, cake.id}
    assert all(len(p["profiles"]) == 1 for p in shown["products"])
    assert await linked(condition.id) == {coffee.id, tea.id, cake.id}


async def test_batch_add_to_a_group_condition_adds_groups(api):
    discount = await a_discount()
    vip, staff = await CustomerGroup.create(name="vip"), await CustomerGroup.create(name="staff")
    condition = await a_condition(discount, "customer_groups", vip)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch",
                  {"resources": [{"id": staff.id}]})
    assert r.status_code == 200 and r.json()["discount"]["id"] == discount.id
    assert await linked(condition.id, "customer_groups") == {vip.id, staff.id}


@pytest.mark.parametrize("method", ["POST", "DELETE"])
@pytest.mark.parametrize("body,message", [
    ({"resources": []}, MISSING_RESOURCES),
    ({"resources": [{"id": ""}]}, "id should not be empty"),
    ({"resources": [{"id": "P", "title": "x"}]}, "property title should not exist"),
    ({"resources": "P"}, "resources must be an array"),
])
async def test_batch_changes_refuse_a_bad_body(api, method, body, message):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", coffee)
    r = await api(method, f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch", body)
    assert_error(r, message)
    assert await linked(condition.id) == {coffee.id}


async def test_batch_add_of_an_unknown_resource_is_a_404_and_adds_nothing(api):
    discount = await a_discount()
    coffee, tea = await a_product("Coffee"), await a_product("Tea")
    condition = await a_condition(discount, "products", coffee)
    r = await api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch",
                  {"resources": [{"id": tea.id}, {"id": "prod_nope"}]})
    assert_error(r, "Product with product_id prod_nope does not exist.", 404, "not_found")
    assert await linked(condition.id) == {coffee.id}


async def test_batch_delete_removes_only_those_resources(api):
    discount = await a_discount()
    products = [await a_product(f"Product {i}") for i in range(4)]
    condition = await a_condition(discount, "products", *products)
    body = {"resources": [{"id": p.id} for p in products[:3]] + [{"id": "prod_not_linked"}]}
    r = await api("DELETE", f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch"
                            "?expand=rule.conditions.products", body)
    assert r.status_code == 200
    assert [p["id"] for p in r.json()["discount"]["rule"]["conditions"][0]["products"]] == [products[3].id]
    assert await linked(condition.id) == {products[3].id}
    assert await Product.all().count() == 4


OWNED_ROUTES = [
    ("GET", "/conditions/COND", None),
    ("POST", "/conditions/COND", {"products": ["PROD"]}),
    ("DELETE", "/conditions/COND", None),
    ("POST", "/conditions/COND/batch", {"resources": [{"id": "PROD"}]}),
    ("DELETE", "/conditions/COND/batch", {"resources": [{"id": "OWNED"}]}),
    ("POST", "", {"rule": {"id": "RULE", "conditions": [{"id": "COND", "products": ["PROD"]}]}}),
]


def _fill(value, names: dict[str, str]):
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


@pytest.mark.parametrize("method,suffix,body", OWNED_ROUTES)
async def test_a_condition_of_another_discount_is_refused_the_same_way_on_every_route(api, method, suffix, body):
    mine, theirs = await a_discount("MINE"), await a_discount("THEIRS")
    owned, spare = await a_product("Owned"), await a_product("Spare")
    condition = await a_condition(theirs, "products", owned)
    names = {"COND": condition.id, "PROD": spare.id, "OWNED": owned.id, "RULE": mine.rule_id}
    path = f"/admin/discounts/{mine.id}" + suffix.replace("COND", condition.id)
    assert_error(await api(method, path, _fill(body, names)),
                 f"Condition with id {condition.id} does not belong to Discount with id {mine.id}")
    assert await linked(condition.id) == {owned.id}


@pytest.mark.parametrize("method,suffix,body", [
    ("POST", "/conditions", {"operator": "in", "products": ["PROD"]}),
    *OWNED_ROUTES[:5],
])
async def test_condition_routes_of_an_unknown_discount_are_a_404(api, method, suffix, body):
    theirs = await a_discount("THEIRS")
    coffee = await a_product()
    condition = await a_condition(theirs, "products", coffee)
    path = "/admin/discounts/disc_nope" + suffix.replace("COND", condition.id)
    if body and suffix != "/conditions":
        body = {}  # the discount and its condition are looked for before the body is read
    assert_error(await api(method, path, _fill(body, {"PROD": coffee.id})), "Discount with id disc_nope was not found",
                 404, "not_found")


@pytest.mark.parametrize("method,suffix,body", [r for r in OWNED_ROUTES if r[0] != "DELETE" or "batch" in r[1]])
async def test_condition_routes_of_an_unknown_condition_are_a_404(api, method, suffix, body):
    discount = await a_discount()
    coffee = await a_product()
    names = {"COND": "discon_nope", "PROD": coffee.id, "OWNED": coffee.id, "RULE": discount.rule_id}
    path = f"/admin/discounts/{discount.id}" + suffix.replace("COND", "discon_nope")
    assert_error(await api(method, path, _fill(body, names)), "DiscountCondition with id discon_nope was not found",
                 404, "not_found")


# ---------------------------------------------------------------- dynamic codes


async def test_a_dynamic_code_is_a_child_on_the_parents_rule_that_ends_a_valid_duration_from_now(api, regions):
    parent = await a_discount("PARENT", is_dynamic=True, valid_duration="P2DT12H", regions=(regions["NA"],))
    before = datetime.now(timezone.utc)
    r = await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes",
                  {"code": " child-1 ", "metadata": {"for": "jane"}})
    after = datetime.now(timezone.utc)
    assert r.status_code == 200 and set(r.json()) == {"discount"}
    child = r.json()["discount"]
    assert set(child) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert child["id"] != parent.id and child["code"] == "CHILD-1"
    assert (child["rule_id"], child["rule"]["id"]) == (parent.rule_id, parent.rule_id)
    assert (child["is_dynamic"], child["is_disabled"], child["parent_discount_id"]) == (True, False, parent.id)
    assert child["parent_discount"]["id"] == parent.id and child["parent_discount"]["code"] == "PARENT"
    assert child["regions"] == [] and child["metadata"] == {"for": "jane"} and child["usage_limit"] == 1
    assert before <= when(child["starts_at"]) <= after
    assert before + timedelta(days=2, hours=12) <= when(child["ends_at"]) <= after + timedelta(days=2, hours=12)
    assert (await Discount.get(id=child["id"])).parent_discount_id == parent.id


async def test_a_dynamic_code_of_a_parent_without_a_duration_never_ends(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    child = (await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", {"code": "forever"})).json()["discount"]
    assert child["ends_at"] is None


@pytest.mark.parametrize("parent_limit,sent,expected", [(5, 2, 2), (5, None, 5), (None, None, 1), (None, 7, 7)])
async def test_a_dynamic_codes_usage_limit_is_the_one_sent_else_the_parents_else_one(api, parent_limit, sent, expected):
    parent = await a_discount("PARENT", is_dynamic=True, usage_limit=parent_limit)
    body = {"code": "child", **({"usage_limit": sent} if sent is not None else {})}
    child = (await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", body)).json()["discount"]
    assert child["usage_limit"] == expected


async def test_only_a_dynamic_discount_gets_dynamic_codes(api):
    parent = await a_discount("PLAIN")
    r = await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", {"code": "child"})
    assert_error(r, "Discount must be set to dynamic", 400, "not_allowed")
    assert_error(await api("POST", "/admin/discounts/disc_nope/dynamic-codes", {"code": "child"}),
                 "Discount with id disc_nope was not found", 404, "not_found")
    assert await Discount.all().count() == 1


async def test_a_dynamic_code_must_be_free_among_live_codes(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    await a_discount("TAKEN")
    await a_discount("FREED", deleted_at=datetime.now(timezone.utc))
    r = await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", {"code": "taken"})
    assert r.status_code == 422
    assert r.json() == {"type": "duplicate_error", "code": "invalid_request_error",
                        "message": "Discount with code TAKEN already exists."}
    r = await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", {"code": "freed"})
    assert r.status_code == 200 and r.json()["discount"]["code"] == "FREED"


@pytest.mark.parametrize("body,message", [
    ({}, "code should not be empty"),
    ({"code": "  "}, "code should not be empty"),
    ({"code": 5}, "code must be a string"),
    ({"code": "child", "usage_limit": 0}, "usage_limit must be a positive number"),
    ({"code": "child", "metadata": 1}, "metadata must be an object"),
    ({"code": "child", "rule_id": "dru_1"}, "property rule_id should not exist"),
])
async def test_a_dynamic_code_refuses_a_bad_body(api, body, message):
    parent = await a_discount("PARENT", is_dynamic=True)
    assert_error(await api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", body), message)
    assert await Discount.all().count() == 1


async def test_deleting_a_dynamic_code_soft_deletes_it_and_answers_with_the_parent(api, regions):
    parent = await a_discount("PARENT", is_dynamic=True, regions=(regions["NA"],))
    child, sibling = await a_dynamic_code(parent, "CHILD"), await a_dynamic_code(parent, "SIBLING")
    r = await api("DELETE", f"/admin/discounts/{parent.id}/dynamic-codes/CHILD")
    assert r.status_code == 200
    shown = r.json()["discount"]
    assert shown["id"] == parent.id and set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert [g["id"] for g in shown["regions"]] == [regions["NA"].id]
    assert (await Discount.get(id=child.id)).deleted_at is not None
    assert (await Discount.get(id=sibling.id)).deleted_at is None
    r = await api("DELETE", f"/admin/discounts/{parent.id}/dynamic-codes/CHILD")
    assert r.status_code == 200 and r.json()["discount"]["id"] == parent.id


async def test_deleting_a_dynamic_code_matches_the_stored_code_exactly(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    child = await a_dynamic_code(parent, "SUMMER SALE")
    r = await api("DELETE", f"/admin/discounts/{parent.id}/dynamic-codes/summer%20sale")
    assert r.status_code == 200 and (await Discount.get(id=child.id)).deleted_at is None
    r = await api("DELETE", f"/admin/discounts/{parent.id}/dynamic-codes/SUMMER%20SALE")
    assert r.status_code == 200 and (await Discount.get(id=child.id)).deleted_at is not None


async def test_deleting_a_code_that_is_not_there_is_fine_but_the_parent_must_exist(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    r = await api("DELETE", f"/admin/discounts/{parent.id}/dynamic-codes/NOPE")
    assert r.status_code == 200 and r.json()["discount"]["id"] == parent.id
    assert_error(await api("DELETE", "/admin/discounts/disc_nope/dynamic-codes/NOPE"),
                 "Discount with id disc_nope was not found", 404, "not_found")


async def test_deleting_a_code_of_another_discount_is_refused(api):
    mine, theirs = await a_discount("MINE", is_dynamic=True), await a_discount("THEIRS", is_dynamic=True)
    child = await a_dynamic_code(theirs, "THEIRCHILD")
    for code, target in (("THEIRCHILD", child), ("THEIRS", theirs)):
        r = await api("DELETE", f"/admin/discounts/{mine.id}/dynamic-codes/{code}")
        assert_error(r, f"Discount with code {code} does not belong to Discount with id {mine.id}")
        assert (await Discount.get(id=target.id)).deleted_at is None


# ---------------------------------------------------------------- regions


async def test_add_region_attaches_it_once(api, regions):
    discount = await a_discount(regions=(regions["NA"],))
    for _ in range(2):
        r = await api("POST", f"/admin/discounts/{discount.id}/regions/{regions['EU'].id}")
        assert r.status_code == 200
        shown = r.json()["discount"]
        assert set(shown) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
        assert {g["id"] for g in shown["regions"]} == {regions["NA"].id, regions["EU"].id}
    assert await region_ids(discount.id) == {regions["NA"].id, regions["EU"].id}


async def test_a_fixed_discount_takes_a_second_region_only_in_place_of_the_first(api, regions):
    empty = await a_discount("EMPTY", kind="fixed", value=100)
    r = await api("POST", f"/admin/discounts/{empty.id}/regions/{regions['NA'].id}")
    assert r.status_code == 200 and await region_ids(empty.id) == {regions["NA"].id}
    assert (await api("POST", f"/admin/discounts/{empty.id}/regions/{regions['NA'].id}")).status_code == 200
    assert_error(await api("POST", f"/admin/discounts/{empty.id}/regions/{regions['EU'].id}"),
                 "Fixed discounts can have one region")
    assert await region_ids(empty.id) == {regions["NA"].id}


async def test_add_region_of_an_unknown_region_or_discount_is_a_404(api, regions):
    discount = await a_discount(regions=(regions["NA"],))
    assert_error(await api("POST", f"/admin/discounts/{discount.id}/regions/reg_nope"),
                 "Region with reg_nope was not found", 404, "not_found")
    assert_error(await api("POST", f"/admin/discounts/disc_nope/regions/{regions['EU'].id}"),
                 "Discount with id disc_nope was not found", 404, "not_found")
    assert await region_ids(discount.id) == {regions["NA"].id}


async def test_remove_region_detaches_it_and_ignores_one_that_is_not_attached(api, regions):
    discount = await a_discount(regions=(regions["NA"], regions["EU"]))
    r = await api("DELETE", f"/admin/discounts/{discount.id}/regions/{regions['NA'].id}")
    assert r.status_code == 200 and [g["id"] for g in r.json()["discount"]["regions"]] == [regions["EU"].id]
    for region_id in (regions["NA"].id, "reg_nope"):
        r = await api("DELETE", f"/admin/discounts/{discount.id}/regions/{region_id}")
        assert r.status_code == 200 and set(r.json()["discount"]) == DISCOUNT_COLUMNS | DEFAULT_RELATIONS
    assert await region_ids(discount.id) == {regions["EU"].id}
    assert_error(await api("DELETE", f"/admin/discounts/disc_nope/regions/{regions['EU'].id}"),
                 "Discount with id disc_nope was not found", 404, "not_found")


# ---------------------------------------------------------------- concurrency


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_creates_of_one_code_make_one_discount(api, regions):
    responses = await asyncio.gather(*(
        api("POST", "/admin/discounts", a_body([regions["NA"].id], code="FLASH")) for _ in range(4)
    ))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert {r.json()["message"] for r in responses if r.status_code == 422} == {
        "Discount with code FLASH already exists."
    }
    assert await Discount.filter(code="FLASH").count() == 1


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_dynamic_codes_of_one_code_make_one_child(api):
    parent = await a_discount("PARENT", is_dynamic=True)
    responses = await asyncio.gather(*(
        api("POST", f"/admin/discounts/{parent.id}/dynamic-codes", {"code": "child"}) for _ in range(4)
    ))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert await Discount.filter(code="CHILD").count() == 1


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_conditions_of_one_type_and_operator_make_one_condition(api):
    discount = await a_discount()
    products = [await a_product(f"Product {i}") for i in range(4)]
    responses = await asyncio.gather(*(
        api("POST", f"/admin/discounts/{discount.id}/conditions", {"operator": "in", "products": [p.id]})
        for p in products
    ))
    assert sorted(r.status_code for r in responses) == [200, 422, 422, 422]
    assert {r.json()["message"] for r in responses if r.status_code == 422} == {
        "Discount Condition with operator 'in' and type 'products' already exist on a Discount Rule"
    }
    assert await DiscountCondition.all().count() == 1


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_regions_for_a_fixed_discount_leave_it_one(api, regions):
    discount = await a_discount(kind="fixed", value=100)
    responses = await asyncio.gather(*(
        api("POST", f"/admin/discounts/{discount.id}/regions/{region.id}") for region in regions.values()
    ))
    assert sorted(r.status_code for r in responses) == [200, 400]
    assert len(await region_ids(discount.id)) == 1


@requires_postgres("needs concurrent transactions")
async def test_simultaneous_adds_of_one_region_or_product_link_it_once(api, regions):
    discount = await a_discount()
    coffee = await a_product()
    condition = await a_condition(discount, "products", await a_product("Tea"))
    responses = await asyncio.gather(
        *(api("POST", f"/admin/discounts/{discount.id}/regions/{regions['NA'].id}") for _ in range(3)),
        *(api("POST", f"/admin/discounts/{discount.id}/conditions/{condition.id}/batch",
              {"resources": [{"id": coffee.id}]}) for _ in range(3)),
    )
    assert [r.status_code for r in responses] == [200] * 6
    assert await region_ids(discount.id) == {regions["NA"].id} and coffee.id in await linked(condition.id)
