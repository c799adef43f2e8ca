"""The request head (request line and headers) must arrive whole within HEADER_TIMEOUT_SECONDS
of its first byte. Sanic's REQUEST_TIMEOUT only bounds each pause, so a client sending a header
byte every few seconds held its connection, and the server's resources, for ever. Served with
`protocol=HeadDeadlineProtocol` (workers/cli.py; tests/conftest.py)."""

from __future__ import annotations

import asyncio

from sanic.exceptions import RequestTimeout
from sanic.http import Http
from sanic.server.protocols.http_protocol import HttpProtocol

__all__ = ["HeadDeadlineProtocol"]


class _HeadDeadlineHttp(Http):
    async def http1_request_header(self):
        end = self.recv_buffer.find(b"\r\n\r\n")
        if 0 <= end < self.HEADER_MAX_SIZE:
            # The whole head is already buffered (as for nearly every request): parsing it cannot
            # wait, so no deadline to arm.
            return await super().http1_request_header()
        seconds = self.protocol.app.ctx.settings.header_timeout_seconds
        try:
            async with asyncio.timeout(seconds):
                await super().http1_request_header()
        except TimeoutError:
            self.keep_alive = False  # the rest of the head may still come: answer, then close
            raise RequestTimeout(f"The request head did not arrive within {seconds:g} seconds") from None


class HeadDeadlineProtocol(HttpProtocol):
    HTTP_CLASS = _HeadDeadlineHttp
