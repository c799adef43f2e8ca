"""What a plugin is: the one interface through which a shop's own code (and the built-in Stripe,
SMTP and S3 parts) adds to the server. A package names a `Plugin` in the `commerce.plugins`
entry-point group; `PLUGINS` (a setting) turns it on; services/plugins.py loads it and hands each
part to the process that runs it (docs/plugins.md).

A plugin declares, all optional:
- `routes`: Sanic blueprints, as "module:attribute" strings (imported by the web processes only),
  mounted beside the core's, so the core's gate (admin authentication under /admin, CORS, CSRF,
  JSON bodies, request ids, the error shape) covers them and /openapi.json lists them;
- `subscribers`: a function given `subscribe` (services/events/subscribers.py), as the areas'
  are: durable, once per event, in a transaction with the receipt;
- `jobs`: modules of Dramatiq actors, imported by every process once its broker exists (a job is
  asked for with services.core.outbox.enqueue, in the caller's transaction);
- `schedules`: `Schedule`s asking for an actor every so many seconds or on a cron line, once per
  slot however many schedulers run (or a function of the `PluginContext` answering them);
- `models` and `migrations`: a module of Tortoise models and a package of Tortoise migrations, its
  own Tortoise app named after the plugin, migrated by `commerce migrate` after the core's;
- `providers`: a function of the `PluginContext` answering `Providers` (payment, fulfillment and
  tax providers chosen per region; a notification provider, a file storage and a search engine
  chosen by settings), each with the interface the core already calls;
- `settings`: a pydantic model of its own settings, read from the environment under its prefix
  (`LOYALTY_` for a plugin named loyalty) and checked when every process starts;
- `templates`: a folder of notification templates searched after NOTIFICATION_TEMPLATES and
  before the built-in ones.

This module is the interface only (it sits in the lowest floor, so any area may declare a
plugin); loading and wiring are services/plugins.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

__all__ = ["Plugin", "Schedule", "Providers", "PluginContext", "NAME"]

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


@dataclass(frozen=True)
class Schedule:
    """Ask for `actor` (a job's actor name) with `args` every `every` seconds, or at the times of
    `cron` (five crontab fields, UTC). Each slot runs once across every scheduler of the
    deployment; a slot missed while no scheduler ran is not made up, so a scheduled job should be a
    catch-up sweep (as the core's maintenance is)."""

    actor: str
    every: float | None = None
    cron: str | None = None
    args: tuple = ()
    queue: str = "default"

    def __post_init__(self) -> None:
        if (self.every is None) == (self.cron is None):
            raise ValueError(f"schedule of {self.actor}: give exactly one of every= and cron=")
        if self.every is not None and self.every < 1:
            raise ValueError(f"schedule of {self.actor}: every= is at least 1 second")

    @property
    def when(self) -> str:
        return f"every {self.every:g}s" if self.every is not None else f"cron {self.cron}"


@dataclass(frozen=True)
class Providers:
    """What a plugin provides. Payment, fulfillment and tax providers register by their `id`, which
    a region names (its payment and fulfillment providers, its tax provider), as in Medusa v1. A
    notification provider, a file storage and a search engine serve the whole shop: one of each
    is used, the one NOTIFICATION_PROVIDER, FILE_PROVIDER or SEARCH_PROVIDER names when several are
    offered (the built-in ones when none is)."""

    payment: tuple = ()
    fulfillment: tuple = ()
    tax: tuple = ()
    notification: Any = None  # services/notifications/outgoing.py NotificationProvider
    files: Any = None  # services/files FileStorage
    search: Any = None  # services/catalog/search_engines.py SearchEngine


@dataclass(frozen=True)
class PluginContext:
    """What a plugin's functions are given: the process's settings (app.config.Settings) and the
    plugin's own (an instance of its `settings` model, or None)."""

    core: Any
    settings: Any = None


@dataclass(frozen=True)
class Plugin:
    name: str  # a-z, 0-9 and _: its Tortoise app's label, its settings' prefix
    version: str
    routes: tuple[str, ...] = ()  # "module:blueprint"
    subscribers: Callable[[Callable], None] | None = None
    jobs: tuple[str, ...] = ()  # modules of actors
    schedules: tuple[Schedule, ...] | Callable[[PluginContext], Iterable[Schedule]] = ()
    models: str | None = None  # module of Tortoise models
    migrations: str | None = None  # package of Tortoise migrations
    providers: Callable[[PluginContext], Providers | None] | None = None
    settings: type | None = None  # a pydantic model
    settings_prefix: str | None = None  # default: the name, upper-cased, and "_"
    templates: Path | None = None  # notification templates
    description: str = ""
    built_in: bool = field(default=False, repr=False)  # ships inside the package (stripe, smtp, s3)

    def __post_init__(self) -> None:
        if not NAME.match(self.name or ""):
            raise ValueError(f"plugin name {self.name!r}: a-z, 0-9 and _, starting with a letter")
        if self.migrations and not self.models:
            raise ValueError(f"plugin {self.name}: migrations need the models they create (models=)")
        if self.name == "models":
            raise ValueError("plugin name 'models' is the core's own tables")

    @property
    def prefix(self) -> str:
        return self.settings_prefix if self.settings_prefix is not None else self.name.upper() + "_"
