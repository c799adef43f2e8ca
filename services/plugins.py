"""Loading the plugins (services/core/plugins.py) and handing their parts out: the built-in ones
(Stripe, SMTP, S3: services/builtin_plugins.py), then each package's in the `commerce.plugins`
entry-point group that PLUGINS names, in that order.

Every process loads them the same way at start (services/setup.py configure), so a plugin that
cannot be imported, has a setting that does not validate, or declares something the core cannot
take stops the process with one `PluginError` line naming it; the commands print that line and
exit 78 (a setting is wrong). A plugin installed but not named in PLUGINS stays off, as a Medusa v1
plugin not listed in medusa-config.js does; `commerce plugins` lists both.

Like the composition root (services/setup.py), this module sits above every area."""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Callable, Iterable, Mapping

from services.core.outbox import QUEUES
from services.core.plugins import Plugin, PluginContext, Providers, Schedule

__all__ = [
    "PluginError", "Active", "ENTRY_POINT_GROUP", "BUILT_IN", "installed", "declared_twice", "enabled", "load", "use",
    "current", "settings_of", "resolve", "own_settings", "tortoise_apps", "offered", "choose", "schedules_of",
    "subscriber_registrations",
]

log = logging.getLogger("commerce.plugins")

ENTRY_POINT_GROUP = "commerce.plugins"
# The plugins that ship inside the package, loaded in every process, each turned on by its own
# settings (STRIPE_API_KEY, SMTP_HOST, S3_BUCKET).
BUILT_IN = ("services.builtin_plugins:stripe", "services.builtin_plugins:smtp", "services.builtin_plugins:s3")


class PluginError(Exception):
    """One line naming the plugin and what is wrong with it."""

    def __init__(self, name: str, what: str):
        super().__init__(f"plugin {name}: {what}")
        self.name = name


@dataclass(frozen=True)
class Active:
    """A plugin this process runs, with its settings read."""

    plugin: Plugin
    context: PluginContext

    @property
    def name(self) -> str:
        return self.plugin.name


def resolve(ref: str, owner: str) -> Any:
    """The object a "module:attribute" string names (a module for "module")."""
    module_name, _, attribute = ref.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attribute) if attribute else module
    except Exception as e:
        raise PluginError(owner, f"{ref} cannot be imported: {type(e).__name__}: {e}") from e


def installed() -> dict[str, EntryPoint]:
    """The packages' plugins by entry-point name (whether PLUGINS names them or not)."""
    return {entry.name: entry for entry in entry_points(group=ENTRY_POINT_GROUP)}


def declared_twice(name: str) -> str | None:
    """What is wrong when several installed packages declare a plugin of this name (the entry
    points would keep one of them, whichever was found last), else None."""
    packages = sorted({e.dist.name if e.dist else e.value for e in entry_points(group=ENTRY_POINT_GROUP, name=name)})
    if len(packages) < 2:
        return None
    return f"declared by {len(packages)} installed packages ({', '.join(packages)}): uninstall all but one"


def _as_plugin(found: Any, name: str) -> Plugin:
    if not isinstance(found, Plugin) and hasattr(found, "plugin"):  # a module holding `plugin`
        found = found.plugin
    if not isinstance(found, Plugin):
        raise PluginError(name, f"names {type(found).__name__}, not a services.core.plugins.Plugin")
    return found


@lru_cache(maxsize=16)
def enabled(names: tuple[str, ...]) -> tuple[Plugin, ...]:
    """The built-in plugins, then those `names` (PLUGINS) names, imported; the first that cannot
    be raises PluginError."""
    plugins = [_as_plugin(resolve(ref, ref.rpartition(":")[2]), ref.rpartition(":")[2]) for ref in BUILT_IN]
    found = installed()
    for name in names:
        entry = found.get(name)
        if entry is None:
            raise PluginError(name, "named in PLUGINS but not installed (no `commerce.plugins` entry point of that "
                                    "name; `commerce plugins` lists those installed)")
        if twice := declared_twice(name):
            raise PluginError(name, twice)
        try:
            loaded = entry.load()
        except Exception as e:
            raise PluginError(name, f"cannot be imported: {type(e).__name__}: {e}") from e
        plugin = _as_plugin(loaded, name)
        if plugin.name != name:
            raise PluginError(name, f"its entry point is named {name} but the plugin {plugin.name}")
        plugins.append(plugin)
    seen: set[str] = set()
    for plugin in plugins:
        if plugin.name in seen:
            raise PluginError(plugin.name, "is loaded twice (a built-in plugin's name?)")
        seen.add(plugin.name)
    return tuple(plugins)


def own_settings(plugin: Plugin, environ: Mapping[str, str]) -> Any:
    """The plugin's settings model filled from the environment under its prefix; a variable with
    the prefix that the model does not know is refused (a misspelt name would otherwise pass)."""
    if plugin.settings is None:
        return None
    from pydantic import ValidationError

    prefix = plugin.prefix
    given = {key[len(prefix):].lower(): value for key, value in environ.items() if key.startswith(prefix)}
    known = set(plugin.settings.model_fields)
    unknown = sorted(set(given) - known)
    if unknown:
        raise PluginError(plugin.name, f"unknown setting {prefix}{unknown[0].upper()} (it knows "
                                       f"{', '.join(prefix + k.upper() for k in sorted(known))})")
    try:
        return plugin.settings(**given)
    except ValidationError as e:
        first = e.errors()[0]
        where = prefix + "_".join(str(p) for p in first["loc"]).upper()
        raise PluginError(plugin.name, f"setting {where}: {first['msg']}") from None


def load(settings, environ: Mapping[str, str] | None = None) -> tuple[Active, ...]:
    """The process's plugins (built-in and PLUGINS'), each with its settings checked."""
    environ = os.environ if environ is None else environ
    active = tuple(Active(p, PluginContext(settings, own_settings(p, environ))) for p in enabled(settings.plugins))
    schedules_of(active)  # a bad cron line stops every process, not only the scheduler
    return active


_current: tuple[Active, ...] = ()


def use(active: tuple[Active, ...]) -> None:
    global _current
    _current = active


def current() -> tuple[Active, ...]:
    """The plugins services/setup.py configure loaded in this process."""
    return _current


def settings_of(name: str) -> Any:
    """A plugin's own settings in this process (an instance of its `settings` model), for its
    subscribers, jobs and routes to read; raises LookupError when the plugin is not on."""
    for active in _current:
        if active.name == name:
            return active.context.settings
    raise LookupError(f"plugin {name} is not on in this process (PLUGINS)")


def tortoise_apps(names: tuple[str, ...]) -> dict[str, dict]:
    """The Tortoise apps of the plugins with tables, by plugin name (app/config.py adds them)."""
    return {
        p.name: {"models": [p.models], "default_connection": "default",
                 **({"migrations": p.migrations} if p.migrations else {})}
        for p in enabled(names) if p.models
    }


def _call(active: Active, what: str, function: Callable, *args) -> Any:
    try:
        return function(*args)
    except PluginError:
        raise
    except Exception as e:
        raise PluginError(active.name, f"its {what} failed: {type(e).__name__}: {e}") from e


def offered(active: Iterable[Active]) -> list[tuple[str, Providers]]:
    """Each plugin's providers for this process's settings (a plugin may offer none: Stripe
    without STRIPE_API_KEY)."""
    found = []
    for a in active:
        if a.plugin.providers is None:
            continue
        providers = _call(a, "providers", a.plugin.providers, a.context)
        if providers is None:
            continue
        if not isinstance(providers, Providers):
            raise PluginError(a.name, f"providers answered {type(providers).__name__}, not Providers")
        found.append((a.name, providers))
    return found


def choose(kind: str, offers: list[tuple[str, Any]], wanted: str | None, setting: str) -> Any:
    """The one provider of `kind` the shop uses: the plugin `wanted` names (its setting), else the
    only one offered, else None (the built-in). Two offered and none named is refused: which one
    sends the shop's mail must not depend on the order packages were installed in."""
    if wanted:
        for name, provider in offers:
            if name == wanted or getattr(provider, "id", None) == wanted:
                return provider
        raise PluginError(wanted, f"{setting} names it, but it offers no {kind} (offered: "
                                  f"{', '.join(n for n, _ in offers) or 'none'})")
    if len(offers) > 1:
        names = ", ".join(n for n, _ in offers)
        raise PluginError(offers[1][0], f"{names} each offer a {kind}: name the one to use in {setting}")
    return offers[0][1] if offers else None


def schedules_of(active: Iterable[Active]) -> list[tuple[str, Schedule]]:
    """Each plugin's scheduled jobs for this process's settings, with their cron lines checked."""
    from apscheduler.triggers.cron import CronTrigger

    found = []
    for a in active:
        declared = a.plugin.schedules
        items = _call(a, "schedules", declared, a.context) if callable(declared) else declared
        for schedule in items or ():
            if not isinstance(schedule, Schedule):
                raise PluginError(a.name, f"schedules holds {type(schedule).__name__}, not Schedule")
            if schedule.queue not in QUEUES:
                raise PluginError(a.name, f"schedule of {schedule.actor} names queue {schedule.queue!r}: the "
                                          f"workers take {', '.join(QUEUES)}")
            if schedule.cron is not None:
                try:
                    CronTrigger.from_crontab(schedule.cron, timezone="UTC")
                except ValueError as e:
                    raise PluginError(a.name, f"schedule of {schedule.actor}: cron {schedule.cron!r}: {e}") from None
            found.append((a.name, schedule))
    return found


def subscriber_registrations(active: Iterable[Active]) -> list[Callable[[Callable], None]]:
    """Each plugin's subscribers, registered through a `subscribe` that keeps the plugin's ids
    apart from every other's: each must start with the plugin's name and a dot (receipts name ids)."""
    registrations = []
    for a in active:
        if a.plugin.subscribers is None:
            continue

        def register(subscribe, a=a):
            def own(subscriber_id: str, events, handle) -> None:
                if not subscriber_id.startswith(a.name + "."):
                    raise PluginError(a.name, f"subscriber id {subscriber_id!r} must start with '{a.name}.'")
                subscribe(subscriber_id, events, handle)

            _call(a, "subscribers", a.plugin.subscribers, own)

        registrations.append(register)
    return registrations
