"""Bodies are bounded in shape before anything reads them closely: a JSON body nested
deeper than MAX_JSON_DEPTH levels, and a list longer than its field's bound, are a 400 naming the
bound, decided before a single element is validated; never a 500 or a worker busy for seconds."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import types
import typing
from typing import Annotated

import pytest
from pydantic import field_validator

import app
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


# ---------------------------------------------------------------- list lengths

NOTHING_VALID = "[" + ",".join(["{}"] * 200_000) + "]"  # 600 KB of elements that each fail validation


async def test_a_cart_of_200000_invalid_items_is_refused_by_its_length_before_any_item_is_read(client, seeded):
    # When an anonymous shopper posts a cart whose items are 200,000 empty objects
    r = await _post(client, "/store/carts", '{"items": %s}' % NOTHING_VALID)
    # I expect a 400 naming the cap alone: no item was validated, or its errors would be named too
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": "A cart can hold at most 500 lines"}


@pytest.mark.parametrize("path,body,message", [
    ("/admin/draft-orders", '{"email": "a@b.co", "region_id": "reg_x", "shipping_methods": [], "items": %s}',
     "A draft order can hold at most 500 lines"),
    ("/admin/orders/order_x/return", '{"items": %s}', "A return can hold at most 500 lines"),
    ("/admin/customer-groups/cgrp_x/customers/batch", '{"customer_ids": %s}',
     "customer_ids must contain no more than 10000 elements"),
    ("/admin/discounts/disc_x/conditions", '{"operator": "in", "products": %s}',
     "products must contain no more than 10000 elements"),
    ("/admin/webhooks", '{"url": "https://example.com/hook", "events": %s}',
     "events must contain no more than 200 elements"),
])
async def test_admin_lists_are_refused_by_their_length_before_any_element_is_read(
        client, admin_headers, path, body, message):
    r = await _post(client, path, body % NOTHING_VALID, admin_headers)
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": message}


class _Counted(Body):
    name: str

    @field_validator("name")
    @classmethod
    def _count(cls, value):
        _Counted.seen += 1
        return value


_Counted.seen = 0


class _Holder(Body):
    things: Annotated[list[_Counted], max_items(3)]


def test_a_bound_is_checked_before_any_element_is_validated():
    _Counted.seen = 0
    with pytest.raises(InvalidData, match="^things must contain no more than 3 elements$"):
        parse_model(_Holder, {"things": [{"name": "x"}] * 4})
    assert _Counted.seen == 0
    parse_model(_Holder, {"things": [{"name": "x"}] * 3})
    assert _Counted.seen == 3


def test_every_list_a_body_carries_has_a_bound():
    # Given every request body of the app
    bodies = body_models()
    assert len(bodies) > 50
    # I expect each list in them to carry max_items or max_lines
    unbounded = [f"{model.__module__}.{model.__qualname__}.{name}"
                 for model in bodies for name, field in model.model_fields.items()
                 if not all(bounded for bounded in list_bounds(field.annotation, field.metadata))]
    assert unbounded == []


def body_models() -> list[type[Body]]:
    """Every request body model the app defines (the module's own test models left out)."""
    for module in pkgutil.walk_packages(app.__path__, "app."):
        importlib.import_module(module.name)
    found, todo = [], [Body]
    while todo:
        model = todo.pop()
        todo.extend(model.__subclasses__())
        if model.__module__.startswith("app."):
            found.append(model)
    return found


def list_bounds(annotation, metadata=()):
    """For each list (set, tuple) in a field's type, whether a bound is declared on it."""
    origin = typing.get_origin(annotation)
    if origin is Annotated:
        inner, *more = typing.get_args(annotation)
        yield from list_bounds(inner, (*metadata, *more))
    elif origin in (typing.Union, types.UnionType):
        for member in typing.get_args(annotation):
            yield from list_bounds(member, metadata)
    elif origin in (list, set, tuple, frozenset):
        yield any(hasattr(getattr(m, "func", None), "bound") for m in metadata)
