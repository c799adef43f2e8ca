"""File storage: where uploads and exports live. One small interface, several implementations.

Keys are relative paths chosen by the service (`uploads/<ulid>-name.csv`, `exports/...`); a key never
comes from a client unchecked. The embedded default stores under a local directory; other
implementations come from plugins (services/core/plugins.py `Providers.files`): the built-in
plugin's S3-compatible store when S3_BUCKET is set (services/builtin_plugins.py).

An implementation whose files can be fetched without us may also offer `public_url(key)` (None
when it has no public address) and `signed_url(key, seconds, filename)`; without them the web
tier serves the files itself (services/files/uploads.py).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import AsyncIterable, BinaryIO, Protocol

__all__ = ["FileStorage", "configure", "storage"]


class FileStorage(Protocol):
    async def put(self, key: str, data: bytes | AsyncIterable[bytes]) -> int:
        """Store `data` under `key` (replacing it); returns the number of bytes written."""

    def open_read(self, key: str) -> AbstractContextManager[BinaryIO]:
        """A binary file to read the stored object from, streamed (memory does not grow with size).
        Raises services.core.errors.NotFound when the key does not exist."""

    def open_write(self, key: str) -> AbstractContextManager[BinaryIO]:
        """A binary file to write the object into; it is stored when the context exits cleanly."""

    async def delete(self, key: str) -> None:
        """Remove the object; a missing key is not an error."""

    async def exists(self, key: str) -> bool: ...


_current: FileStorage | None = None


def configure(settings, offered: FileStorage | None = None) -> FileStorage:
    """Set the process's storage (every process at start-up: services/setup.py): the one a plugin
    offers (the shop chose it in the plugin's settings), else the local directory FILE_STORAGE_DIR."""
    global _current
    if offered is None:
        from services.files.local import LocalFileStorage

        offered = LocalFileStorage(settings.file_storage_dir)
    _current = offered
    return _current


def storage() -> FileStorage:
    if _current is None:
        raise RuntimeError("file storage is not configured: call services.setup.configure(settings)")
    return _current
