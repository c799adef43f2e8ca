"""A TCP stand-in for PostgreSQL between a process under test and the real server, told by the
test how to treat new connections: `open` passes them through, `refuse` answers as a server at its
connection limit does (SQLSTATE 53300, "sorry, too many clients already"), `bad_password` as it
does to a wrong password (28P01), `silent` accepts and never answers (a server that hangs); `pass_first` lets that many next
connections through first. The shared server's settings stay untouched."""

from __future__ import annotations

import asyncio
import struct
import threading
from urllib.parse import urlsplit, urlunsplit

from tests.conftest import _free_port

__all__ = ["DatabaseGate"]

_SSL_REQUEST = 80877103


_REFUSALS = {
    "refuse": (b"53300", b"sorry, too many clients already"),
    "bad_password": (b"28P01", b'password authentication failed for user "postgres"'),
}


def _error(sqlstate: bytes, message: bytes) -> bytes:
    fields = b"".join(code + text + b"\0" for code, text in (
        (b"S", b"FATAL"), (b"V", b"FATAL"), (b"C", sqlstate), (b"M", message),
    )) + b"\0"
    return b"E" + struct.pack("!i", len(fields) + 4) + fields


class DatabaseGate:
    def __init__(self, database_url: str, mode: str = "refuse"):
        parts = urlsplit(database_url)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self.port = _free_port()
        self.url = urlunsplit(parts._replace(netloc=f"{parts.username or 'postgres'}@127.0.0.1:{self.port}"))
        self.mode = mode
        self.pass_first = 0  # this many next connections pass through whatever the mode
        self.refused = 0  # connections answered with an error
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="db-gate", daemon=True)
        self._held: set[asyncio.StreamWriter] = set()

    def __enter__(self) -> "DatabaseGate":
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        self._ready.set()
        self._loop.run_forever()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mode = self.mode
        if self.pass_first > 0:
            self.pass_first -= 1
            mode = "open"
        try:
            if mode == "silent":
                self._held.add(writer)
                return
            if mode in _REFUSALS:
                await self._refuse(reader, writer, *_REFUSALS[mode])
                return
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        except (OSError, asyncio.IncompleteReadError):
            writer.close()

    async def _refuse(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *error: bytes) -> None:
        """As PostgreSQL does: SSL declined, the start-up packet read, then the error."""
        while True:
            length = struct.unpack("!i", await reader.readexactly(4))[0]
            body = await reader.readexactly(length - 4)
            if struct.unpack("!i", body[:4])[0] != _SSL_REQUEST:
                break
            writer.write(b"N")
        writer.write(_error(*error))
        await writer.drain()
        writer.close()
        self.refused += 1


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()
