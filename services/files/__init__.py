"""File storage: where uploads and exports live. One small interface, several implementations.

Keys are relative paths chosen by the service (`uploads/<ulid>-name.csv`, `exports/...`); a key never
comes from a client unchecked. The embedded default stores under a local directory; other
implementations (an S3-compatible store) are chosen by configuration in `storage_for(settings)`.

An implementation whose files can be fetched without us may also offer `public_url(key)` (None
when it has no public address) and `signed_url(key, seconds, filename)`; without them the web
tier serves the files itself (services/files/uploads.py).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import AsyncIterable, BinaryIO, Protocol

__all__ = ["FileStorage", "storage_for", "configure", "storage"]


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


def storage_for(settings) -> FileStorage:
    """An S3-compatible bucket when S3_BUCKET is set, else the local directory."""
    if getattr(settings, "s3_bucket", None):
        from services.files.s3 import S3FileStorage

        return S3FileStorage.from_settings(settings)
    from services.files.local import LocalFileStorage

    return LocalFileStorage(settings.file_storage_dir)


def configure(settings) -> FileStorage:
    """Set the process's storage from its settings (every process at start-up: services/setup.py)."""
    global _current
    _current = storage_for(settings)
    return _current


def storage() -> FileStorage:
    if _current is None:
        raise RuntimeError("file storage is not configured: call services.setup.configure(settings)")
    return _current
