"""The recording provider, the embedded default: the message is kept on its notification row
(by the delivery, as for every provider) and written to the log, with its token masked; the
clear messages of this process are kept in memory for tests and local tools, bounded."""

from __future__ import annotations

import logging
from collections import deque

from services.notifications.outgoing import OutgoingMessage

__all__ = ["RecordProvider"]

log = logging.getLogger("commerce.notifications")


class RecordProvider:
    id = "record"

    def __init__(self, keep: int = 100):
        self.delivered: deque[OutgoingMessage] = deque(maxlen=keep)

    async def send(self, message: OutgoingMessage) -> None:
        shown = message.masked()
        log.info("message %s to %s: %s\n%s", shown.kind, shown.to, shown.subject, shown.body)
        self.delivered.append(message)
