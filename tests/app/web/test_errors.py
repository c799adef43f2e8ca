"""The single error handler and CORS, over real HTTP: every error is JSON `{type, message}`
(+ `code`), with a 4xx status for anything the client did wrong."""

import asyncio
from datetime import datetime
from enum import Enum

import httpx
import orjson
import pytest
from pydantic import Field
from sanic import Request
from sanic.exceptions import BadRequest
from tortoise.exceptions import TransactionManagementError

from app.web.errors import stored_answer
from app.web.responses import json
from app.server import create_app
from app.web.validation import Body, Email, NonEmptyStr, parse_body
from models import Currency, Region
from services.checkout.completion import TransientFailure
from services.core.idempotency import KeyInUse, KeyReused
from services.orders.placement import InsufficientInventory
from services.core.errors import Conflict, Duplicate, NotAllowed, NotFound, UnexpectedState
from tests.conftest import SETTINGS, running, settings

STORE_ORIGIN = SETTINGS.store_cors[0]
ADMIN_ORIGIN = SETTINGS.admin_cors[0]
EVIL_ORIGIN = "https://evil.example"
MAX_BODY = 2048
UNKNOWN_ERROR = {"type": "unknown_error", "code": "unknown_error", "message": "An unknown error occurred."}


class RuleType(str, Enum):
    fixed = "fixed"
    percentage = "percentage"


class Rule(Body):
    type: RuleType
    value: int = Field(ge=0)


class EchoBody(Body):
    name: NonEmptyStr
    email: Email | None = None
    quantity: int | None = None
    ends_at: datetime | None = None
    rule: Rule | None = None
    tags: list[str] | None = None


def throwaway_app(**changes):
    """A fresh app with the real routes plus routes that fail on purpose."""
    app = create_app(settings(**changes), manage_orm=False)

    @app.get("/store/boom")
    async def boom(request: Request):
        raise RuntimeError("kaboom: password=hunter2")

    @app.get("/store/domain/<kind:str>")
    async def domain(request: Request, kind: str):
        raise {
            "duplicate": Duplicate("Product with handle shirt already exists."),
            "conflict": Conflict("The cart is being completed."),
            "not_found": NotFound("Product with id prod_x was not found"),
            "not_allowed": NotAllowed("Cannot delete a published product", code="cart_incompatible_state"),
            "unexpected": UnexpectedState("The payment session is in an unexpected state."),
            "transaction": TransactionManagementError("current transaction is aborted"),
            "bad_request": BadRequest("Invalid header"),
            "key_in_use": KeyInUse("key-1", retry_after=3),
            "key_reused": KeyReused("key-1"),
            "retrying": TransientFailure("key-1", "payment_authorized"),
        }[kind]

    @app.post("/store/echo")
    async def echo(request: Request):
        return json(parse_body(request, EchoBody).model_dump(mode="json", exclude_none=True))

    @app.post("/store/currency-again")
    async def currency_again(request: Request):
        code = (await Currency.first()).code
        await Currency.create(code=code, symbol="$", symbol_native="$", name="Again")
        return json({})

    @app.post("/store/region-with-missing-provider")
    async def region_with_missing_provider(request: Request):
        await Region.create(name="Nowhere", currency_code="usd", tax_provider_id="tp_missing")
        return json({})

    return app


@pytest.fixture(scope="module")
async def app_client(database):
    async with running(throwaway_app(max_body_bytes=MAX_BODY)) as client:
        yield client


def assert_json_error(r: httpx.Response, status: int, body: dict) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json() == body


# ---------------------------------------------------------------- bodies


@pytest.mark.parametrize("raw", [b"{not json", b'{"email": "a@b.co",}', b"\xff\xfe{}", b'{"a": 1'])
async def test_a_malformed_json_body_is_a_400_invalid_data(client, raw):
    r = await client.post("/admin/auth", content=raw, headers={"content-type": "application/json"})
    assert_json_error(r, 400, {"type": "invalid_data", "message": "The request body is not valid JSON"})


@pytest.mark.parametrize("raw", [b"[]", b'["a@b.co"]', b'"a@b.co"', b"42", b"null", b"true"])
async def test_a_json_body_that_is_not_an_object_is_a_400(client, raw):
    r = await client.post("/admin/auth", content=raw, headers={"content-type": "application/json"})
    assert_json_error(r, 400, {"type": "invalid_data", "message": "The request body must be a JSON object"})


async def test_an_empty_body_is_validated_as_an_empty_object(app_client):
    for raw in (b"", b"  \n"):
        r = await app_client.post("/store/echo", content=raw)
        assert_json_error(r, 400, {"type": "invalid_data", "message": "name should not be empty"})
    r = await app_client.post("/store/echo", json={"name": "ok"})
    assert r.status_code == 200 and r.json() == {"name": "ok"}


async def test_body_validation_reports_every_problem_in_one_message(app_client):
    r = await app_client.post("/store/echo", json={"name": 5, "extra": True, "more": 1})
    assert_json_error(r, 400, {
        "type": "invalid_data",
        "message": "name must be a string, property extra should not exist, property more should not exist",
    })


async def test_a_json_body_is_read_as_a_json_client_sends_it(app_client):
    body = {"name": "Summer", "email": "a@b.co", "quantity": 2, "ends_at": "2024-06-30T23:59:59Z",
            "rule": {"type": "percentage", "value": 10}, "tags": ["a", "b"]}
    r = await app_client.post("/store/echo", json=body)
    assert r.status_code == 200, r.text
    assert r.json() == {**body, "ends_at": "2024-06-30T23:59:59Z"}


@pytest.mark.parametrize("body,message", [
    ({"name": "x", "quantity": "2"}, "quantity must be an integer number"),
    ({"name": "x", "quantity": 1.5}, "quantity must be an integer number"),
    ({"name": "x", "quantity": True}, "quantity must be an integer number"),
    ({"name": 1}, "name must be a string"),
    ({"name": ""}, "name should not be empty"),
    ({"name": "x", "email": "not-an-email"}, "email must be an email"),
    ({"name": "x", "ends_at": "next tuesday"}, "ends_at must be a Date instance"),
    ({"name": "x", "ends_at": 1700000000}, "ends_at must be a Date instance"),
    ({"name": "x", "tags": "a"}, "tags must be an array"),
    ({"name": "x", "tags": ["a", 2]}, "tags must be a string"),
    ({"name": "x", "rule": "fixed"}, "rule must be an object"),
    ({"name": "x", "rule": {"type": "free", "value": -1, "extra": 1}},
     "type must be one of the following values: fixed, percentage, value must not be less than 0, "
     "property extra should not exist"),
    ({"name": "x", "rule": {"type": "fixed"}}, "value should not be empty"),
])
async def test_a_body_is_validated_strictly_with_class_validator_messages(app_client, body, message):
    assert_json_error(await app_client.post("/store/echo", json=body), 400,
                      {"type": "invalid_data", "message": message})


async def test_an_oversized_body_is_a_413_json(app_client):
    r = await app_client.post("/store/echo", json={"name": "x" * (MAX_BODY + 10)})
    assert_json_error(r, 413, {"type": "invalid_data", "message": "The request body is too large"})
    # a body just under the limit is read as usual
    r = await app_client.post("/store/echo", json={"name": "x" * (MAX_BODY - 100)})
    assert r.status_code == 200


async def test_an_oversized_body_sent_in_chunks_is_a_413_json(app_client):
    async def chunks():
        for _ in range(8):
            yield b'{"name": "' + b"x" * 1000

    r = await app_client.post("/store/echo", content=chunks())
    assert "content-length" not in r.request.headers
    assert_json_error(r, 413, {"type": "invalid_data", "message": "The request body is too large"})


async def test_an_oversized_body_is_refused_before_admin_sign_in_is_checked(app_client):
    r = await app_client.post("/admin/auth", json={"email": "a@b.co", "password": "x" * MAX_BODY})
    assert r.status_code == 413 and r.json()["type"] == "invalid_data"


async def test_oversized_headers_are_a_431_json_not_a_body_error(client):
    r = await client.get("/store/regions", headers={"X-Padding": "x" * 20_000})
    assert_json_error(r, 431, {"type": "invalid_data", "message": "The request headers are too large"})


async def raw_request(client: httpx.AsyncClient, raw: bytes) -> tuple[int, dict, dict]:
    """Send bytes no well-behaved client would; the status, headers and JSON body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", client.base_url.port)
    try:
        writer.write(raw)
        await writer.drain()
        head, _, body = (await asyncio.wait_for(reader.read(65536), 10)).partition(b"\r\n\r\n")
    finally:
        writer.close()
    status_line, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, orjson.loads(body)


@pytest.mark.parametrize("raw,message", [
    (b"POST /store/auth HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}", "Bad content-length"),
    (b"POST /store/auth HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
     "Bad chunked encoding"),
    (b"GET /store/r\xc3\xa9gions HTTP/1.1\r\nHost: x\r\n\r\n", "URL may only contain US-ASCII characters."),
])
async def test_a_malformed_http_request_is_a_400_json(client, raw, message):
    status, headers, body = await raw_request(client, raw)
    assert status == 400 and headers["content-type"].startswith("application/json")
    assert body == {"type": "invalid_data", "message": message}


# ---------------------------------------------------------------- routes


@pytest.mark.parametrize("path", ["/store/no-such-route", "/store/products/prod_1/nothing", "/nowhere"])
async def test_an_unknown_route_outside_admin_is_a_404_json(client, path):
    r = await client.get(path)
    assert_json_error(r, 404, {"type": "not_found", "message": f"Route GET {path} was not found"})


async def test_an_unknown_admin_route_without_credentials_is_a_401_json(client):
    for method in ("GET", "POST", "DELETE"):
        r = await client.request(method, "/admin/no-such-route")
        assert_json_error(r, 401, {"type": "unauthorized", "message": "Unauthorized"})


async def test_an_unknown_admin_route_with_credentials_is_a_404_json(client, admin_headers):
    r = await client.get("/admin/no-such-route", headers=admin_headers)
    assert_json_error(r, 404, {"type": "not_found", "message": "Route GET /admin/no-such-route was not found"})


async def test_a_wrong_method_is_a_405_json(client):
    r = await client.delete("/store/products")
    assert_json_error(r, 405, {"type": "not_allowed", "message": "Method DELETE is not allowed on /store/products"})


async def test_a_wrong_method_on_an_admin_route_is_a_401_without_credentials_and_405_with(client, admin_headers):
    assert_json_error(await client.put("/admin/auth"), 401, {"type": "unauthorized", "message": "Unauthorized"})
    r = await client.put("/admin/auth", headers=admin_headers)
    assert_json_error(r, 405, {"type": "not_allowed", "message": "Method PUT is not allowed on /admin/auth"})


async def test_a_bad_query_is_a_400_json_not_a_500(client):
    r = await client.get("/store/products?limit=abc&order=password&expand=secrets")
    assert_json_error(r, 400, {"type": "invalid_data", "message": (
        "limit must be a number conforming to the specified constraints, Order field password is not valid, "
        "Requested relations [secrets] are not valid"
    )})


async def test_an_offset_beyond_any_table_is_a_400_not_a_database_error(client):
    r = await client.get("/store/regions?offset=99999999999999999999")
    assert_json_error(r, 400, {
        "type": "invalid_data", "message": "offset must not be greater than 9223372036854775807",
    })
    r = await client.get("/store/regions?offset=1000000&limit=99999999999999999999")
    assert r.status_code == 200
    assert r.json() == {"regions": [], "count": 0, "offset": 1000000, "limit": 1000}  # a reference list
    r = await client.get(f"/store/regions?offset={2**63 - 1}")
    assert r.status_code == 200 and r.json()["regions"] == []


# ---------------------------------------------------------------- exceptions raised by handlers


async def test_an_unexpected_exception_is_a_500_unknown_error_that_reveals_nothing(app_client, caplog):
    with caplog.at_level("ERROR", logger="commerce.errors"):
        r = await app_client.get("/store/boom")
    assert_json_error(r, 500, UNKNOWN_ERROR)
    assert "hunter2" not in r.text
    # the fault is logged with its traceback for the operator
    assert any(rec.exc_info and isinstance(rec.exc_info[1], RuntimeError) for rec in caplog.records)


@pytest.mark.parametrize("kind,status,body", [
    ("duplicate", 422, {"type": "duplicate_error", "code": "invalid_request_error",
                        "message": "Product with handle shirt already exists."}),
    ("conflict", 409, {"type": "conflict", "code": "invalid_state_error",
                       "message": "The cart is being completed."}),
    ("not_found", 404, {"type": "not_found", "message": "Product with id prod_x was not found"}),
    ("not_allowed", 400, {"type": "not_allowed", "code": "cart_incompatible_state",
                          "message": "Cannot delete a published product"}),
    ("unexpected", 500, {"type": "unexpected_state",
                         "message": "The payment session is in an unexpected state."}),
    ("transaction", 409, {"type": "conflict", "code": "invalid_state_error", "message": (
        "The request conflicted with another request. You may retry the request with the provided "
        "Idempotency-Key.")}),
    ("bad_request", 400, {"type": "invalid_data", "message": "Invalid header"}),
])
async def test_a_domain_or_transaction_error_maps_to_its_status_and_code(app_client, kind, status, body):
    assert_json_error(await app_client.get(f"/store/domain/{kind}"), status, body)


async def test_a_unique_violation_the_service_did_not_check_is_a_422_duplicate(app_client):
    r = await app_client.post("/store/currency-again")
    assert_json_error(r, 422, {
        "type": "duplicate_error", "code": "invalid_request_error",
        "message": "The request conflicts with existing data.",
    })


async def test_a_foreign_key_violation_is_a_404(app_client):
    r = await app_client.post("/store/region-with-missing-provider")
    assert_json_error(r, 404, {"type": "not_found", "message": "A record the request refers to does not exist."})
    assert await Region.filter(name="Nowhere").count() == 0


KEY_HEADERS = {"idempotency-key": "key-1", "access-control-expose-headers": "Idempotency-Key, Retry-After, X-Request-Id"}


@pytest.mark.parametrize("kind,status,code,headers", [
    ("key_in_use", 409, "idempotency_key_in_use", {**KEY_HEADERS, "retry-after": "3"}),
    ("key_reused", 422, "idempotency_key_reused", KEY_HEADERS),
    ("retrying", 503, "completion_retrying", {**KEY_HEADERS, "retry-after": "2"}),
])
async def test_a_keyed_outcome_is_answered_by_the_handler_with_its_key_headers(app_client, kind, status, code, headers):
    # Given a service outcome that carries the request's key (and when to retry)
    for origin in ({}, {"Origin": STORE_ORIGIN}):
        r = await app_client.get(f"/store/domain/{kind}", headers=origin)
        # I expect the handler alone to give it its status, code and headers, with or without CORS
        assert r.status_code == status, r.text
        assert r.json()["code"] == code
        assert {name: r.headers.get(name) for name in headers} == headers
        if "retry-after" not in headers:
            assert "retry-after" not in r.headers


def test_a_stock_refusal_stored_for_a_key_is_medusas_409_with_one_error_a_variant():
    assert stored_answer(InsufficientInventory(["variant_a", "variant_b"])) == (409, {"errors": [
        {"type": "not_allowed", "code": "insufficient_inventory",
         "message": f"Variant with id: {v} does not have the required inventory"}
        for v in ("variant_a", "variant_b")
    ]})
    # anything else is stored as the handler answers it
    assert stored_answer(UnexpectedState("Unknown recovery point")) == (
        500, {"type": "unexpected_state", "message": "Unknown recovery point"}
    )


# ---------------------------------------------------------------- CORS


def assert_cors(r: httpx.Response, origin: str) -> None:
    assert r.headers["access-control-allow-origin"] == origin
    assert r.headers["access-control-allow-credentials"] == "true"
    assert "origin" in r.headers["vary"].lower()


def assert_no_cors(r: httpx.Response) -> None:
    assert "access-control-allow-origin" not in r.headers
    assert "access-control-allow-credentials" not in r.headers


async def test_an_allowed_origin_on_store_gets_cors_headers_with_credentials(client):
    r = await client.get("/store/regions", headers={"Origin": STORE_ORIGIN})
    assert r.status_code == 200
    assert_cors(r, STORE_ORIGIN)
    assert "idempotency-key" in r.headers["access-control-expose-headers"].lower()


async def test_a_disallowed_origin_gets_no_cors_headers(client):
    for origin in (EVIL_ORIGIN, ADMIN_ORIGIN, STORE_ORIGIN + ".evil.example", "null"):
        r = await client.get("/store/regions", headers={"Origin": origin})
        assert r.status_code == 200
        assert_no_cors(r)


async def test_a_request_without_origin_gets_no_cors_headers(client):
    assert_no_cors(await client.get("/store/regions"))


async def test_admin_answers_admin_cors_origins_only(client, admin_headers):
    r = await client.get("/admin/auth", headers={**admin_headers, "Origin": ADMIN_ORIGIN})
    assert r.status_code == 200
    assert_cors(r, ADMIN_ORIGIN)
    r = await client.get("/admin/auth", headers={**admin_headers, "Origin": STORE_ORIGIN})
    assert r.status_code == 200
    assert_no_cors(r)


async def test_cors_origins_come_from_the_settings():
    app = create_app(settings(store_cors=("https://shop.example",), admin_cors=("https://admin.example",)),
                     manage_orm=False)
    async with running(app) as client:
        assert_cors(await client.get("/store/regions", headers={"Origin": "https://shop.example"}),
                    "https://shop.example")
        assert_no_cors(await client.get("/store/regions", headers={"Origin": STORE_ORIGIN}))
        assert_cors(await client.get("/admin/auth", headers={"Origin": "https://admin.example"}),
                    "https://admin.example")
        assert_no_cors(await client.get("/admin/auth", headers={"Origin": "https://shop.example"}))


async def test_a_wildcard_origin_list_reflects_any_origin():
    async with running(create_app(settings(store_cors=("*",)), manage_orm=False)) as client:
        assert_cors(await client.get("/store/regions", headers={"Origin": EVIL_ORIGIN}), EVIL_ORIGIN)


def preflight_headers(origin: str, method: str = "GET", request_headers: str | None = None) -> dict:
    headers = {"Origin": origin, "Access-Control-Request-Method": method}
    if request_headers is not None:
        headers["Access-Control-Request-Headers"] = request_headers
    return headers


def assert_preflight(r: httpx.Response, origin: str, method: str, allowed_headers: set[str]) -> None:
    assert r.status_code == 204, r.text
    assert r.content == b""
    assert_cors(r, origin)
    assert method in [m.strip() for m in r.headers["access-control-allow-methods"].split(",")]
    assert allowed_headers <= {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert int(r.headers["access-control-max-age"]) > 0


CLIENT_HEADERS = {"content-type", "authorization", "x-publishable-api-key", "idempotency-key", "x-medusa-access-token"}


async def test_a_preflight_on_an_existing_store_route_is_a_204_with_allow_headers(client):
    r = await client.options("/store/products", headers=preflight_headers(STORE_ORIGIN))
    assert_preflight(r, STORE_ORIGIN, "GET", CLIENT_HEADERS)
    r = await client.options("/store/auth", headers=preflight_headers(STORE_ORIGIN, "POST", "content-type"))
    assert_preflight(r, STORE_ORIGIN, "POST", {"content-type"})


async def test_a_preflight_allows_the_headers_a_storefront_asks_for(client):
    asked = "content-type,x-publishable-api-key,sentry-trace,baggage"
    r = await client.options("/store/carts", headers=preflight_headers(STORE_ORIGIN, "POST", asked))
    assert_preflight(r, STORE_ORIGIN, "POST", set(asked.split(",")))


async def test_a_preflight_on_admin_routes_needs_no_credentials(client):
    for path, method in (("/admin/auth", "POST"), ("/admin/auth", "DELETE"), ("/admin/auth/token", "POST"),
                         ("/admin/products", "GET")):
        r = await client.options(path, headers=preflight_headers(ADMIN_ORIGIN, method, "authorization"))
        assert_preflight(r, ADMIN_ORIGIN, method, {"authorization"})


async def test_a_preflight_from_a_disallowed_origin_gets_no_allow_headers(client):
    r = await client.options("/store/products", headers=preflight_headers(EVIL_ORIGIN))
    assert r.status_code == 204
    assert_no_cors(r)
    assert "access-control-allow-methods" not in r.headers
    r = await client.options("/admin/auth", headers=preflight_headers(STORE_ORIGIN, "POST"))
    assert r.status_code == 204
    assert_no_cors(r)


async def test_error_responses_carry_cors_headers_for_allowed_origins(client, app_client):
    store = {"Origin": STORE_ORIGIN}
    for r in (
        await client.get("/store/no-such-route", headers=store),
        await client.get("/store/products?limit=abc", headers=store),
        await client.delete("/store/products", headers=store),
        await app_client.get("/store/boom", headers=store),
        await app_client.get("/store/domain/duplicate", headers=store),
        await app_client.post("/store/echo", json={"name": "x" * (MAX_BODY + 10)}, headers=store),
    ):
        assert r.status_code >= 400
        assert r.headers["content-type"].startswith("application/json")
        assert_cors(r, STORE_ORIGIN)
    admin = {"Origin": ADMIN_ORIGIN}
    for r in (
        await client.get("/admin/auth", headers=admin),
        await client.get("/admin/no-such-route", headers=admin),
        await client.post("/admin/auth", content=b"{", headers={**admin, "content-type": "application/json"}),
    ):
        assert r.status_code in (400, 401)
        assert_cors(r, ADMIN_ORIGIN)
    r = await client.get("/admin/auth", headers={"Origin": EVIL_ORIGIN})
    assert r.status_code == 401
    assert_no_cors(r)
