"""One log line per request with its id, route template, status, duration and who asked; the id
answered in X-Request-Id; never a token, a query string or a path's values; JSON lines on ask."""

import json
import logging

from workers.logs import JsonFormatter


async def test_a_request_leaves_one_line_with_its_id_and_the_id_comes_back(client, admin_headers, caplog):
    caplog.set_level(logging.INFO, logger="commerce.access")
    r = await client.get("/admin/customers?q=secret-looking", headers={**admin_headers, "X-Request-Id": "req-42"})
    assert r.status_code == 200 and r.headers["x-request-id"] == "req-42"
    [line] = [rec for rec in caplog.records if rec.name == "commerce.access" and "req-42" in rec.getMessage()]
    text = line.getMessage()
    assert text.startswith("GET /admin/customers 200 ") and "id=req-42" in text and " user=usr_" in text
    token = admin_headers["Authorization"].split()[1]
    assert token not in text and "secret-looking" not in text
    assert line.http["route"] == "/admin/customers" and line.http["status"] == 200
    assert line.http["duration_ms"] >= 0


async def test_an_unusable_request_id_is_replaced_and_errors_are_logged_too(client, caplog):
    caplog.set_level(logging.INFO, logger="commerce.access")
    r = await client.get("/store/products/prod_missing", headers={"X-Request-Id": "two words " + "x" * 200})
    assert r.status_code == 404
    rid = r.headers["x-request-id"]
    assert len(rid) == 32 and " " not in rid
    [line] = [rec for rec in caplog.records if rec.name == "commerce.access" and rid in rec.getMessage()]
    assert " 404 " in line.getMessage() and "prod_missing" not in line.getMessage()
    assert line.http["route"] == "/store/products/<product_id:str>"


def test_json_lines_carry_the_request_fields():
    record = logging.LogRecord("commerce.access", logging.INFO, __file__, 1, "GET /x 200", None, None)
    record.http = {"route": "/x", "status": 200, "request_id": "r1"}
    out = json.loads(JsonFormatter().format(record))
    assert out["logger"] == "commerce.access" and out["message"] == "GET /x 200"
    assert out["http"] == {"route": "/x", "status": 200, "request_id": "r1"} and out["level"] == "INFO"


async def test_each_request_without_an_id_gets_a_new_one_and_its_line_is_the_same_as_ever(client, caplog):
    caplog.set_level(logging.INFO, logger="commerce.access")
    ids = [(await client.get("/health")).headers["x-request-id"] for _ in range(20)]
    assert len(set(ids)) == 20 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    lines = [rec for rec in caplog.records if rec.name == "commerce.access" and rec.http["request_id"] in ids]
    assert len(lines) == 20
    line = lines[0]
    assert line.levelno == logging.INFO and line.getMessage().startswith("GET /health 200 ")
    assert f"id={line.http['request_id']} client=127.0.0.1" in line.getMessage()
    assert line.http == {"method": "GET", "route": "/health", "status": 200, "duration_ms": line.http["duration_ms"],
                         "request_id": line.http["request_id"], "client": "127.0.0.1", "user_id": None,
                         "customer_id": None}
