"""Bodies are bounded in shape before anything reads them closely (issue 33): a JSON body nested
deeper than MAX_JSON_DEPTH levels, and a list longer than its field's bound, are a 400 naming the
bound, decided before a single element is validated; never a 500 or a worker busy for seconds."""

from __future__ import annotations

import logging
from typing import Annotated

import pytest
from pydantic import field_validator

from app.web.validation import MAX_JSON_DEPTH, Body, max_items, parse_model
from services.core.errors import InvalidData

DEEP = f"The request body is nested deeper than {MAX_JSON_DEPTH} levels"


def _nested(key: str, levels: int) -> str:
    """`{key: {"a": {"a": ... {}}}}`: objects `levels` levels deep."""
    return '{"%s":%s{}%s}' % (key, '{"a":' * (levels - 2), "}" * (levels - 2))


def _post(client, path, content, headers=None):
    return client.post(path, content=content, headers={"content-type": "application/json", **(headers or {})})


# ---------------------------------------------------------------- nesting depth


@pytest.mark.parametrize("levels", [254, 500, 1000])
@pytest.mark.parametrize("path,key", [
    ("/store/carts", "context"),
    ("/store/customers", "metadata"),
    ("/admin/auth", "email"),
    ("/store/carts/cart_01JAAAAAAAAAAAAAAAAAAAAAAA/complete", "x"),
])
async def test_a_deeply_nested_body_is_a_400_for_anyone_and_logs_no_error(client, caplog, path, key, levels):
    caplog.set_level(logging.WARNING)
    r = await _post(client, path, _nested(key, levels))
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": DEEP}
    assert [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.ERROR] == []


async def test_a_deeply_nested_body_is_a_400_on_a_signed_in_admin_route(client, admin_headers):
    r = await _post(client, "/admin/products", _nested("metadata", 300), admin_headers)
    assert r.status_code == 400, r.text
    assert r.json()["message"] == DEEP


async def test_a_body_at_the_depth_bound_is_read_as_usual(client, seeded):
    # Given a cart whose context is nested down to the bound exactly
    r = await _post(client, "/store/carts", _nested("context", MAX_JSON_DEPTH))
    # I expect it made, with the context kept whole
    assert r.status_code == 200, r.text
    context, levels = r.json()["cart"]["context"], 2
    while context.get("a") is not None:
        context, levels = context["a"], levels + 1
    assert levels == MAX_JSON_DEPTH
    # And one level more refused
    r = await _post(client, "/store/carts", _nested("context", MAX_JSON_DEPTH + 1))
    assert r.status_code == 400 and r.json()["message"] == DEEP
