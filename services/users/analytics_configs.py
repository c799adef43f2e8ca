"""Each back-office user's answer to the dashboard's usage-data consent question (opt out,
anonymize). Only the answer is kept: this server collects and sends no usage data."""

from __future__ import annotations

from tortoise.exceptions import IntegrityError

from models import AnalyticsConfig
from services.core.clock import now
from services.core.db import atomic
from services.core.errors import Duplicate, NotFound

__all__ = ["get_config", "create_config", "update_config", "delete_config"]


async def _live(user_id: str) -> AnalyticsConfig | None:
    return await AnalyticsConfig.get_or_none(user_id=user_id, deleted_at=None)


async def get_config(user_id: str) -> AnalyticsConfig:
    config = await _live(user_id)
    if config is None:  # the dashboard reads this 404 as "not asked yet" and asks
        raise NotFound(f"No analytics config found for user with id: {user_id}")
    return config


def _taken(user_id: str) -> Duplicate:
    return Duplicate(f"Analytics_config with user_id {user_id} already exists.")


async def create_config(user_id: str, *, opt_out: bool, anonymize: bool = False) -> AnalyticsConfig:
    """The user's first answer; a second is a Duplicate (change it with `update_config`)."""
    try:
        async with atomic():
            if await _live(user_id) is not None:
                raise _taken(user_id)
            return await AnalyticsConfig.create(user_id=user_id, opt_out=opt_out, anonymize=anonymize)
    except IntegrityError:  # another request answered for the user meanwhile (one live config a user)
        raise _taken(user_id) from None


async def update_config(user_id: str, *, opt_out: bool | None = None, anonymize: bool | None = None) -> AnalyticsConfig:
    """Change the given answers, creating the config (unspecified answers false) when there is none."""
    changes = {k: v for k, v in (("opt_out", opt_out), ("anonymize", anonymize)) if v is not None}
    for _ in range(2):  # a racing first answer makes the create fail once; the second pass updates it
        try:
            async with atomic():
                config = await _live(user_id)
                if config is None:
                    return await AnalyticsConfig.create(
                        user_id=user_id, opt_out=bool(opt_out), anonymize=bool(anonymize),
                    )
                if changes:
                    await AnalyticsConfig.filter(id=config.id).update(updated_at=now(), **changes)
                    await config.refresh_from_db()
                return config
        except IntegrityError:
            continue
    raise _taken(user_id)  # unreachable unless the racing config was deleted and re-created meanwhile


async def delete_config(user_id: str) -> None:
    """Soft-delete the user's config (the dashboard then asks again); none is no error."""
    await AnalyticsConfig.filter(user_id=user_id, deleted_at=None).update(deleted_at=now())
