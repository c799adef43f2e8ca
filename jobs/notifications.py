"""Message delivery as an actor: a failed send is retried with backoff (about an hour in all);
the notification row shows each error meanwhile and ends `failed` if every try fails. The
provider is the one the process's start-up chose (services/setup.py)."""

import dramatiq

from services.notifications.delivery import SEND_ACTOR, deliver


@dramatiq.actor(
    actor_name=SEND_ACTOR, queue_name="default", max_retries=10, min_backoff=5_000, max_backoff=1_800_000,
    time_limit=120_000,
)
async def send_notification(notification_id: str) -> dict:
    return await deliver(notification_id, max_attempts=send_notification.options["max_retries"] + 1)
