"""What the registries of providers share (payment, fulfillment and tax providers, each a dict by
id in its area): taking the plugins' offers (`Offered`), and the rows that list the providers a
process has (the tables regions point at and the dashboard reads), kept in step at start."""

from __future__ import annotations

from typing import Callable, Iterable

from tortoise.exceptions import IntegrityError

__all__ = ["install_rows", "Offered"]


class Offered:
    """The providers a registry took from the plugins (services/plugins.py): each `configure`
    registers those offered now and unregisters those offered last time and not now (Stripe's, once
    STRIPE_API_KEY is removed), leaving the area's built-in ones alone."""

    def __init__(self, register: Callable, unregister: Callable[[str], None]):
        self._register, self._unregister, self._ids = register, unregister, set()

    def configure(self, providers: Iterable) -> None:
        providers = list(providers)
        ids = {p.id for p in providers}
        for gone in self._ids - ids:
            self._unregister(gone)
        for provider in providers:
            self._register(provider)
        self._ids = ids


async def install_rows(model, registered: Iterable[str]) -> None:
    """Every registered provider has its row, installed; a row whose provider this process does
    not have (its key removed, its plugin turned off) shows as not installed, as Medusa v1 does,
    so regions that name it keep their data and the dashboard says it is missing."""
    registered = sorted(set(registered))
    await model.filter(is_installed=True).exclude(id__in=registered).update(is_installed=False)
    await model.filter(id__in=registered, is_installed=False).update(is_installed=True)
    for provider_id in registered:
        if await model.filter(id=provider_id).exists():
            continue
        try:
            await model.create(id=provider_id, is_installed=True)
        except IntegrityError:  # another process starting at the same moment wrote it
            pass
