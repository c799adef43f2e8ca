"""The OpenAPI document covers the API exactly: every registered route is in it and every path it
documents is a route; it is a valid OpenAPI 3.1 document; /docs renders it without a CDN."""

from openapi_spec_validator import validate
from sanic import Sanic

from app.openapi import UNDOCUMENTED, openapi_path


async def test_the_document_is_valid_and_covers_every_route_and_only_routes(client):
    r = await client.get("/openapi.json")
    assert r.status_code == 200
    document = r.json()
    validate(document)
    app = Sanic.get_app("commerce_test")
    routes = {(openapi_path(route.path), method.lower()) for route in app.router.routes
              for method in route.methods if method not in ("HEAD", "OPTIONS")
              if not getattr(route.ctx, "undocumented", False)}  # the dashboard's files: not API
    routes = {(p, m) for p, m in routes if not p.startswith(UNDOCUMENTED)}
    documented = {(p, m) for p, ops in document["paths"].items() for m in ops}
    assert routes == documented
    assert not [p for p in document["paths"] if p.startswith("/app")]
    assert len(documented) > 250
    swap = document["paths"]["/admin/orders/{order_id}/swaps"]["post"]
    schema = document["components"]["schemas"][swap["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                                                .rsplit("/", 1)[1]]
    assert {"return_items", "additional_items"} <= set(schema["properties"])
    listing = document["paths"]["/admin/products"]["get"]
    assert {"limit", "offset", "expand", "q"} <= {p["name"] for p in listing["parameters"]}
    assert "products" in listing["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
    assert len({op["operationId"] for ops in document["paths"].values() for op in ops.values()}) == len(documented)


async def test_the_docs_page_is_served_from_the_package(client):
    r = await client.get("/docs")
    assert r.status_code == 200 and "/openapi.json" in r.text and "https://" not in r.text
    r = await client.get("/docs/assets/swagger-ui-bundle.js")
    assert r.status_code == 200 and len(r.content) > 100_000
