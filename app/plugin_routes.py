"""The plugins' routes (services/core/plugins.py `Plugin.routes`), mounted beside the core's by
app/server.py create_app: the same gate covers them (admin authentication under /admin, CORS,
CSRF, JSON bodies, request ids), the same error handler answers for them (a DomainError in
Medusa's shape, anything else a 500 logged with the plugin's name and the request id), and
/openapi.json lists them.

A plugin's paths live under /admin/, /store/ or its own prefix (/<its name>/), and never take a
path the core or another plugin has: the dashboard, /health and the core's routes stay the core's."""

from __future__ import annotations

import re

from sanic import Blueprint, Sanic

from services.plugins import Active, PluginError, resolve

__all__ = ["mount_plugin_routes", "blueprint_of", "declared_routes"]

_PARAMETER = re.compile(r"<[^>]*>")


def _allowed(path: str, name: str) -> bool:
    path = "/" + path.lstrip("/")
    return any(path == p.rstrip("/") or path.startswith(p) for p in ("/admin/", "/store/", f"/{name}/"))


def _shape(path: str) -> str:
    """What the router tells routes apart by: /store/products/<id> and /store/products/<handle> are one."""
    return _PARAMETER.sub("<>", "/" + path.strip("/"))


def blueprint_of(ref: str, name: str) -> Blueprint:
    """The blueprint a plugin's `routes` entry names; PluginError when it is none."""
    bp = resolve(ref, name)
    if not isinstance(bp, Blueprint):
        raise PluginError(name, f"{ref} is {type(bp).__name__}, not a sanic Blueprint")
    return bp


def declared_routes(bp: Blueprint) -> list[tuple[str, frozenset]]:
    """Each route the blueprint declares, as (path with its prefix, methods), before mounting."""
    prefix = (bp.url_prefix or "").rstrip("/")
    return [("/" + f"{prefix}/{future.uri.lstrip('/')}".strip("/"), future.methods) for future in bp._future_routes]


def _check(name: str, path: str, methods, taken: set[tuple[str, str]]) -> None:
    if not _allowed(path, name):
        raise PluginError(name, f"route {path} is outside /admin/, /store/ and /{name}/")
    clash = sorted(m for m in methods if (m, _shape(path)) in taken)
    if clash:
        raise PluginError(name, f"route {clash[0]} {path} is already the core's or another plugin's")


def mount_plugin_routes(app: Sanic, active: tuple[Active, ...]) -> None:
    taken = {(method, _shape(route.path)) for route in app.router.routes for method in route.methods}
    for plugin in active:
        for ref in plugin.plugin.routes:
            bp = blueprint_of(ref, plugin.name)
            for path, methods in declared_routes(bp):  # before Sanic's router refuses a clash in its own words
                _check(plugin.name, path, methods, taken)
            before = {id(route) for route in app.router.routes}
            try:
                app.blueprint(bp)
            except Exception as e:
                raise PluginError(plugin.name, f"the routes of {ref} cannot be mounted: {type(e).__name__}: {e}") from e
            for route in [r for r in app.router.routes if id(r) not in before]:
                path = "/" + route.path.lstrip("/")
                _check(plugin.name, path, route.methods, taken)
                taken.update((m, _shape(path)) for m in route.methods)
                route.ctx.plugin = plugin.name
