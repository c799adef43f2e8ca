"""Admin currencies: `GET /admin/currencies`, `POST /admin/currencies/{code}`."""

import pytest

from models import Currency
from tests.conftest import count_queries

CURRENCY_KEYS = {"code", "symbol", "symbol_native", "name", "includes_tax"}


@pytest.fixture(autouse=True)
async def currencies_as_migrated():
    """The currency table outlives each test (it is seeded by the migrations): undo any toggle."""
    yield
    await Currency.filter(includes_tax=True).update(includes_tax=False)


def codes(body: dict) -> list[str]:
    return [c["code"] for c in body["currencies"]]


async def test_list_pages_through_the_120_migrated_currencies_by_code(client, admin_headers):
    r = await client.get("/admin/currencies?order=code", headers=admin_headers)
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"currencies", "count", "offset", "limit"}
    assert (body["count"], body["offset"], body["limit"]) == (120, 0, 20)
    assert len(body["currencies"]) == 20
    assert codes(body)[0] == "aed" and codes(body)[-1] == "cdf"
    assert all(set(c) == CURRENCY_KEYS for c in body["currencies"])
    usd = (await client.get("/admin/currencies?code=usd", headers=admin_headers)).json()["currencies"]
    assert usd == [{"code": "usd", "symbol": "$", "symbol_native": "$", "name": "US Dollar", "includes_tax": False}]


async def test_list_is_ordered_by_code_unless_told_otherwise(client, admin_headers):
    default = (await client.get("/admin/currencies?limit=5", headers=admin_headers)).json()
    assert codes(default) == sorted(codes(default)) and codes(default)[0] == "aed"
    descending = (await client.get("/admin/currencies?order=-code&limit=3", headers=admin_headers)).json()
    assert codes(descending) == ["zwl", "zmk", "zar"]
    first = (await client.get("/admin/currencies?order=name&limit=1", headers=admin_headers)).json()
    last = (await client.get("/admin/currencies?order=-name&limit=1", headers=admin_headers)).json()
    assert [first["currencies"][0]["name"], last["currencies"][0]["name"]] == ["Afghan Afghani", "Zimbabwean Dollar"]
    page = (await client.get("/admin/currencies?order=code&limit=2&offset=118", headers=admin_headers)).json()
    assert codes(page) == ["zmk", "zwl"] and (page["count"], page["offset"], page["limit"]) == (120, 118, 2)


async def test_q_matches_code_or_name_like_medusas_test(client, admin_headers):
    r = await client.get("/admin/currencies?q=us&order=code", headers=admin_headers)
    assert r.status_code == 200
    assert codes(r.json()) == ["aud", "byn", "rub", "usd"] and r.json()["count"] == 4
    assert codes((await client.get("/admin/currencies?q=EURO", headers=admin_headers)).json()) == ["eur"]


async def test_code_filter_ignores_case(client, admin_headers):
    assert codes((await client.get("/admin/currencies?code=EUR", headers=admin_headers)).json()) == ["eur"]
    assert (await client.get("/admin/currencies?code=xyz", headers=admin_headers)).json()["count"] == 0


async def test_includes_tax_filter_reads_a_boolean_string(client, admin_headers):
    await Currency.filter(code__in=["eur", "dkk"]).update(includes_tax=True)
    taxed = (await client.get("/admin/currencies?includes_tax=true", headers=admin_headers)).json()
    assert codes(taxed) == ["dkk", "eur"] and taxed["count"] == 2
    untaxed = (await client.get("/admin/currencies?includes_tax=false", headers=admin_headers)).json()
    assert untaxed["count"] == 118


@pytest.mark.parametrize("query,message", [
    ("expand=stores", "property expand should not exist"),
    ("fields=code", "property fields should not exist"),
    ("fields=code&expand=x", "property expand should not exist, property fields should not exist"),
    ("includes_tax=maybe", "includes_tax must be a boolean value"),
    ("order=nope", "Order field nope is not valid"),
    ("symbol=$", "property symbol should not exist"),
    ("code[]=usd&code[]=eur", "code must be a string"),
    ("offset=-1", "offset must not be less than 0"),
])
async def test_bad_list_queries_are_a_400_naming_the_problem(client, admin_headers, query, message):
    r = await client.get(f"/admin/currencies?{query}", headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}


async def test_list_runs_the_same_statements_for_one_currency_as_for_fifty(client, admin_headers):
    async with count_queries() as one:
        r1 = await client.get("/admin/currencies?limit=1", headers=admin_headers)
    async with count_queries() as fifty:
        r50 = await client.get("/admin/currencies?limit=50", headers=admin_headers)
    assert len(r1.json()["currencies"]) == 1 and len(r50.json()["currencies"]) == 50
    assert r1.json()["count"] == r50.json()["count"] == 120
    assert len(one) == len(fifty) == 3, fifty  # the admin's sign-in check, the page, the count


async def test_update_sets_includes_tax(client, admin_headers):
    r = await client.post("/admin/currencies/aed", json={"includes_tax": True}, headers=admin_headers)
    assert r.status_code == 200
    assert set(r.json()) == {"currency"}
    assert r.json()["currency"] == {
        "code": "aed", "symbol": "AED", "symbol_native": "د.إ.\u200f", "name": "United Arab Emirates Dirham",
        "includes_tax": True,
    }
    assert (await Currency.get(code="aed")).includes_tax is True
    r = await client.post("/admin/currencies/aed", json={"includes_tax": False}, headers=admin_headers)
    assert r.json()["currency"]["includes_tax"] is False


async def test_update_reads_the_code_in_any_case_and_an_empty_body_changes_nothing(client, admin_headers):
    r = await client.post("/admin/currencies/EUR", json={"includes_tax": True}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["currency"]["code"] == "eur"
    r = await client.post("/admin/currencies/eur", json={}, headers=admin_headers)
    assert r.status_code == 200 and r.json()["currency"]["includes_tax"] is True


async def test_update_of_an_unknown_currency_is_a_404(client, admin_headers):
    r = await client.post("/admin/currencies/XYZ", json={"includes_tax": True}, headers=admin_headers)
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "Currency with code: xyz was not found"}


@pytest.mark.parametrize("body,message", [
    ({"includes_tax": "true"}, "includes_tax must be a boolean value"),
    ({"includes_tax": 1}, "includes_tax must be a boolean value"),
    ({"includes_tax": True, "name": "x"}, "property name should not exist"),
])
async def test_update_refuses_a_bad_body(client, admin_headers, body, message):
    r = await client.post("/admin/currencies/usd", json=body, headers=admin_headers)
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": message}
    assert (await Currency.get(code="usd")).includes_tax is False


@pytest.mark.parametrize("method,path", [("GET", "/admin/currencies"), ("POST", "/admin/currencies/usd")])
async def test_both_routes_need_a_signed_in_admin(client, method, path):
    r = await client.request(method, path, json={"includes_tax": True})
    assert r.status_code == 401
    assert r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    assert (await Currency.get(code="usd")).includes_tax is False
