"""The plugins' routes (services/core/plugins.py `Plugin.routes`), mounted beside the core's by
app/server.py create_app: the same gate covers them (admin authentication under /admin, CORS,
CSRF, JSON bodies, request ids), the same error handler answers for them (a DomainError in
Medusa's shape, anything else a 500 logged with the plugin's name and the request id), and
/openapi.json lists them.

A plugin's paths live under /admin/, /store/ or its own prefix (/<its name>/), and never take a
path the core or another plugin has: the dashboard, /health and the core's routes stay the core's."""

from __future__ import annotations

from sanic import Blueprint, Sanic

from services.plugins import Active, PluginError, resolve

__all__ = ["mount_plugin_routes"]


def _allowed(path: str, name: str) -> bool:
    path = "/" + path.lstrip("/")
    return any(path == p.rstrip("/") or path.startswith(p) for p in ("/admin/", "/store/", f"/{name}/"))


def mount_plugin_routes(app: Sanic, active: tuple[Active, ...]) -> None:
    taken = {(method, "/" + route.path.lstrip("/")) for route in app.router.routes for method in route.methods}
    for plugin in active:
        for ref in plugin.plugin.routes:
            bp = resolve(ref, plugin.name)
            if not isinstance(bp, Blueprint):
                raise PluginError(plugin.name, f"{ref} is {type(bp).__name__}, not a sanic Blueprint")
            before = {id(route) for route in app.router.routes}
            try:
                app.blueprint(bp)
            except Exception as e:
                raise PluginError(plugin.name, f"the routes of {ref} cannot be mounted: {type(e).__name__}: {e}") from e
            for route in [r for r in app.router.routes if id(r) not in before]:
                path = "/" + route.path.lstrip("/")
                if not _allowed(path, plugin.name):
                    raise PluginError(plugin.name, f"route {path} is outside /admin/, /store/ and /{plugin.name}/")
                clash = sorted(m for m in route.methods if (m, path) in taken)
                if clash:
                    raise PluginError(plugin.name, f"route {clash[0]} {path} is already the core's or another plugin's")
                taken.update((m, path) for m in route.methods)
                route.ctx.plugin = plugin.name
