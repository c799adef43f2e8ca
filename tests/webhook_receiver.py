"""A real HTTP receiver for webhook tests: an asyncio server on a loopback port that records every
request (headers, raw body) and answers with the scripted statuses (then 200), or holds a request
without answering while `hold` is set. Stoppable and restartable on the same port."""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass, field

__all__ = ["Receiver", "Received"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=list)  # answered in turn; then 200
    port: int = field(default_factory=_free_port)
    received: list[Received] = field(default_factory=list)
    hold: asyncio.Event | None = None  # set: requests are read and never answered
    tls: ssl.SSLContext | None = None  # set: it speaks https
    _server: asyncio.base_events.Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    async def start(self) -> "Receiver":
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, ssl=self.tls)
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            path = lines[0].split(" ")[1]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            self.received.append(Received(path, headers, body))
            while self.hold is not None and self.hold.is_set():
                await asyncio.sleep(0.05)
            status = self.statuses.pop(0) if self.statuses else 200
            writer.write(f"HTTP/1.1 {status} X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".encode())
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
