"""The OpenAPI 3.1 document of this server, generated from the code at start: every registered
route with its method, path and path parameters; the query parameters of routes that read their
query through a QuerySpec (paging, ordering, expand/fields and the filter model's keys); the
request body schema of routes that read it through `parse_body(request, Model)` (the pydantic
model's JSON schema); and the response wrapper (the keys of the JSON object the handler answers
with). Served at `GET /openapi.json`, and readable at `/docs` (Swagger UI from the
swagger-ui-bundle package: no CDN).

A test keeps it whole: every route is in the document and every documented path is a route.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from sanic import Sanic

from app.web.query import QuerySpec

__all__ = ["build_document", "UNDOCUMENTED", "openapi_path"]

# Routes that are not part of the API: the documentation page's own assets (and any route
# registered with `ctx_undocumented=True`).
UNDOCUMENTED = ("/docs/assets",)
_PARAM = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)(?::[^>]+)?>")
_ERROR = {
    "type": "object", "required": ["type", "message"],
    "properties": {"type": {"type": "string"}, "message": {"type": "string"}, "code": {"type": "string"}},
}


def openapi_path(sanic_path: str) -> str:
    return "/" + _PARAM.sub(lambda m: "{" + m.group(1) + "}", sanic_path.lstrip("/"))


def _source_tree(function) -> ast.Module | None:
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None


def _tree(handler) -> ast.AST | None:
    """The handler's source, with that of the functions of its own module it calls by name (a
    handler that answers from a kept copy calls the one that reads the query and builds it)."""
    tree = _source_tree(handler)
    if tree is None:
        return None
    body = list(tree.body)
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            called = handler.__globals__.get(call.func.id)
            if (inspect.isfunction(called) and called is not handler
                    and called.__module__ == handler.__module__):
                body += getattr(_source_tree(called), "body", [])
    return ast.Module(body=body, type_ignores=[])


def _resolved(handler, node: ast.AST) -> Any:
    if isinstance(node, ast.Name):
        return handler.__globals__.get(node.id)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return getattr(handler.__globals__.get(node.value.id), node.attr, None)
    return None


def _bodies(handler, tree: ast.AST) -> list[type[BaseModel]]:
    found = []
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "parse_body" and len(call.args) >= 2:
            model = _resolved(handler, call.args[1])
            if isinstance(model, type) and issubclass(model, BaseModel):
                found.append(model)
    return found


def _specs(handler, tree: ast.AST) -> list[QuerySpec]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                spec = _resolved(handler, arg)
                if isinstance(spec, QuerySpec):
                    found.append(spec)
    return found


def _answer_keys(tree: ast.AST) -> list[str]:
    """The keys of `json({...})` dict literals the handler answers with."""
    keys: list[str] = []
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "json" and call.args:
            first = call.args[0]
            if isinstance(first, ast.Dict):
                keys += [k.value for k in first.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return list(dict.fromkeys(keys))


def _query_parameters(specs: list[QuerySpec]) -> list[dict]:
    params: dict[str, dict] = {}
    for spec in specs:
        if spec.is_list:
            params["limit"] = {"type": "integer", "minimum": 0}
            params["offset"] = {"type": "integer", "minimum": 0}
            params["order"] = {"type": "string"}
        if spec.selectable:
            params["expand"] = {"type": "string"}
            params["fields"] = {"type": "string"}
        if spec.filters is not None:
            for name in spec.filters.model_fields:
                params.setdefault(name, {})
    return [{"name": name, "in": "query", "required": False, "schema": schema} for name, schema in params.items()]


def _hoist(schema: dict, prefix: str, components: dict) -> dict:
    """The model's schema with its `$defs` moved to the document's components, named apart by
    `prefix` (two modules may each have a model of one name)."""
    defs = schema.pop("$defs", {})

    def fix(node):
        if isinstance(node, dict):
            if node.get("default", ...) is None and node.get("type") not in (None, "null"):
                node = {k: v for k, v in node.items() if k != "default"}  # `x: str = None`: omitted, not null
            return {k: (f"#/components/schemas/{prefix}{v.rsplit('/', 1)[1]}" if k == "$ref" and isinstance(v, str)
                        and v.startswith("#/$defs/") else fix(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [fix(x) for x in node]
        return node

    for name, definition in defs.items():
        components[f"{prefix}{name}"] = fix(definition)
    return fix(schema)


def _prefix(handler) -> str:
    return "".join(p.title() for p in handler.__module__.removeprefix("app.").replace(".", "_").split("_"))


def _operation_id(method: str, path: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", path.replace("{", "by_").replace("}", ""))
    return method.lower() + "".join(w[:1].upper() + w[1:] for w in words)


def _operation(method: str, path: str, handler, components: dict) -> dict:
    tree = _tree(handler)
    area = path.split("/")[1] if path.count("/") else ""
    op: dict[str, Any] = {
        "operationId": _operation_id(method, path), "tags": [area or "meta"],
        "summary": (inspect.getdoc(handler) or "").split("\n")[0] or None,
        "parameters": [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                       for name in re.findall(r"{([^}]+)}", path)],
    }
    if not op["summary"]:
        del op["summary"]
    keys: list[str] = []
    if tree is not None:
        op["parameters"] += _query_parameters(_specs(handler, tree))
        bodies = _bodies(handler, tree)
        if bodies and method in ("post", "put", "patch", "delete"):
            model = bodies[0]
            prefix = _prefix(handler)
            name = f"{prefix}{model.__name__}"
            components[name] = _hoist(model.model_json_schema(), prefix, components)
            op["requestBody"] = {"required": False, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{name}"}}}}
        keys = _answer_keys(tree)
    answer: dict[str, Any] = {"type": "object"}
    if keys:
        answer["properties"] = {k: {} for k in keys}
    op["responses"] = {
        "200": {"description": "OK", "content": {"application/json": {"schema": answer}}},
        "4XX": {"description": "A refusal", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Error"}}}},
    }
    if area == "admin":
        op["security"] = [{"bearer": []}, {"apiToken": []}, {"session": []}]
    return op


def build_document(app: Sanic) -> dict:
    paths: dict[str, dict] = {}
    components: dict[str, Any] = {"Error": _ERROR}
    for route in sorted(app.router.routes, key=lambda r: r.path):
        path = openapi_path(route.path)
        if path.startswith(UNDOCUMENTED) or getattr(route.ctx, "undocumented", False):
            continue  # (a route marks itself with `ctx_undocumented=True`: the dashboard's files)
        for method in sorted(m.lower() for m in route.methods if m not in ("HEAD", "OPTIONS")):
            # The handler's own code, under the wrapper that retries reads (app/web/db_retry.py).
            handler = inspect.unwrap(route.handler)
            paths.setdefault(path, {})[method] = _operation(method, path, handler, components)
    return {
        "openapi": "3.1.0",
        "info": {"title": "commerce: the Medusa v1 admin and store API", "version": _version(),
                 "description": "Generated from the code (app/openapi.py). Admin routes take a JWT "
                                "(`Authorization: Bearer`), an API token (`x-medusa-access-token`) or the "
                                "session cookie; store routes take the shopper's session cookie."},
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "apiToken": {"type": "apiKey", "in": "header", "name": "x-medusa-access-token"},
            "session": {"type": "apiKey", "in": "cookie", "name": "connect.sid"},
        }},
    }


@lru_cache(maxsize=1)
def _version() -> str:
    try:
        from importlib.metadata import version

        return version("commerce")
    except Exception:
        return "0"
