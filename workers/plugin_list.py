"""`commerce plugins`: what is installed (the built-in plugins and every package's in the
`commerce.plugins` entry-point group), whether PLUGINS turns it on, and what each adds: routes,
subscribers, jobs, scheduled jobs, tables and their migrations, providers, settings, templates.

A plugin that cannot be loaded is listed with its error rather than stopping the list; the command
then exits 78 if that plugin is on (the other commands would refuse to start), else 0."""

from __future__ import annotations

import json
import os
import pkgutil
import sys
from typing import Any, TextIO

import dramatiq

from app.config import Settings
from services import plugins
from services.core.plugins import Plugin, PluginContext
from services.plugins import PluginError, resolve
from workers.broker import setup_broker

__all__ = ["list_plugins", "describe"]


def _routes(plugin: Plugin) -> list[str]:
    from app.plugin_routes import blueprint_of, declared_routes

    found = [(path, method) for ref in plugin.routes
             for path, methods in declared_routes(blueprint_of(ref, plugin.name)) for method in methods]
    # A blueprint keeps its routes in a set: sorted, the list reads the same on every run.
    return [f"{method} {path}" for path, method in sorted(found)]


def _subscribers(active: plugins.Active) -> list[str]:
    """Registered as a process registers them, so an id a process would refuse is this row's error."""
    heard: list[str] = []

    def record(subscriber_id: str, events, handle) -> None:
        names = "every event" if events == "*" else ", ".join([events] if isinstance(events, str) else events)
        heard.append(f"{subscriber_id} ({names})")

    for register in plugins.subscriber_registrations([active]):
        register(record)
    return heard


def _jobs(plugin: Plugin) -> list[str]:
    broker = dramatiq.get_broker()
    for module in plugin.jobs:
        resolve(module, plugin.name)
    return sorted(name for name in broker.get_declared_actors()
                  if broker.get_actor(name).fn.__module__ in plugin.jobs)


def _tables(plugin: Plugin) -> tuple[list[str], list[str]]:
    if not plugin.models:
        return [], []
    from tortoise.models import Model

    module = resolve(plugin.models, plugin.name)
    tables = sorted(
        getattr(getattr(value, "Meta", None), "table", None) or value.__name__.lower()
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Model) and value.__module__ == module.__name__
        and not getattr(getattr(value, "Meta", None), "abstract", False)
    )
    migrations: list[str] = []
    if plugin.migrations:
        package = resolve(plugin.migrations, plugin.name)
        migrations = sorted(m.name for m in pkgutil.iter_modules(package.__path__) if not m.name.startswith("_"))
    return tables, migrations


def _providers(plugin: Plugin, ctx: PluginContext) -> list[str]:
    if plugin.providers is None:
        return []
    offered = plugin.providers(ctx)
    if offered is None:
        return ["none with these settings"]
    found = [f"{kind} {p.id}" for kind in ("payment", "fulfillment", "tax") for p in getattr(offered, kind)]
    found += [f"{kind} {getattr(p, 'id', type(p).__name__)}" for kind in ("notification", "files", "search")
              if (p := getattr(offered, kind)) is not None]
    return found


def describe(plugin: Plugin, settings: Settings, on: bool, environ=None) -> dict[str, Any]:
    """What the plugin adds; an `error` (one line) where part of it cannot be read."""
    row: dict[str, Any] = {"name": plugin.name, "version": plugin.version, "on": on, "built_in": plugin.built_in,
                           "description": plugin.description}
    try:
        active = plugins.Active(plugin, PluginContext(settings, plugins.own_settings(plugin, environ or os.environ)))
        tables, migrations = _tables(plugin)
        row.update(
            routes=_routes(plugin), subscribers=_subscribers(active), jobs=_jobs(plugin),
            schedules=[f"{s.actor} {s.when}" for _, s in plugins.schedules_of([active])],
            tables=tables, migrations=migrations, providers=_providers(plugin, active.context),
            settings=sorted(plugin.prefix + k.upper() for k in plugin.settings.model_fields) if plugin.settings else [],
            templates=str(plugin.templates) if plugin.templates else None,
        )
    except PluginError as e:
        row["error"] = str(e)
    except Exception as e:
        row["error"] = f"plugin {plugin.name}: {type(e).__name__}: {e}"
    return row


def _everything(settings: Settings) -> list[dict[str, Any]]:
    rows = []
    for plugin in plugins.enabled(()):  # the built-in ones
        rows.append(describe(plugin, settings, True))
    for name, entry in sorted(plugins.installed().items()):
        on = name in settings.plugins
        try:
            if twice := plugins.declared_twice(name):
                raise PluginError(name, twice)
            loaded = entry.load()
            plugin = loaded if isinstance(loaded, Plugin) else getattr(loaded, "plugin", None)
            if not isinstance(plugin, Plugin):
                raise TypeError(f"{entry.value} is not a services.core.plugins.Plugin")
        except Exception as e:
            error = str(e) if isinstance(e, PluginError) else f"plugin {name}: cannot be imported: {type(e).__name__}: {e}"
            rows.append({"name": name, "version": entry.dist.version if entry.dist else "?", "on": on,
                         "built_in": False, "error": error})
            continue
        rows.append(describe(plugin, settings, on))
    missing = [n for n in settings.plugins if n not in plugins.installed()]
    rows += [{"name": n, "version": None, "on": True, "built_in": False,
              "error": f"plugin {n}: named in PLUGINS but not installed"} for n in missing]
    return rows


_PARTS = ("routes", "subscribers", "jobs", "schedules", "tables", "migrations", "providers", "settings")


def _print(row: dict[str, Any], out: TextIO) -> None:
    state = "on" if row["on"] else "off (not in PLUGINS)"
    kind = ", built in" if row.get("built_in") else ""
    print(f"{row['name']} {row.get('version') or '?'}: {state}{kind}"
          + (f" — {row['description']}" if row.get("description") else ""), file=out)
    if row.get("error"):
        print(f"  error: {row['error']}", file=out)
        return
    for part in _PARTS:
        if row.get(part):
            print(f"  {part + ':':13}{', '.join(row[part])}", file=out)
    if row.get("templates"):
        print(f"  {'templates:':13}{row['templates']}", file=out)


def list_plugins(settings: Settings, *, as_json: bool = False, out: TextIO = sys.stdout) -> int:
    """Print the list; the exit code (78 when a plugin that is on cannot be loaded)."""
    setup_broker(settings)  # the actors bind to it as they are imported; nothing is sent
    rows = _everything(settings)
    for row in rows:
        if as_json:
            print(json.dumps(row), file=out)
        else:
            _print(row, out)
    return 78 if any(r["on"] and r.get("error") for r in rows) else 0
