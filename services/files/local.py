"""Files under a local directory: the embedded default."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import AsyncIterable, BinaryIO, Iterator

from services.core.errors import InvalidData, NotFound

__all__ = ["LocalFileStorage"]


class LocalFileStorage:
    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).resolve()

    def path(self, key: str) -> Path:
        """The file for `key`; a key that would leave the root (`../x`, `/etc/x`) is refused."""
        target = (self.root / key).resolve()
        if key == "" or not target.is_relative_to(self.root) or target == self.root:
            raise InvalidData(f"Invalid file key {key!r}")
        return target

    async def put(self, key: str, data: bytes | AsyncIterable[bytes]) -> int:
        with self.open_write(key) as out:
            if isinstance(data, (bytes, bytearray)):
                return out.write(data)
            written = 0
            async for chunk in data:
                written += out.write(chunk)
            return written

    @contextmanager
    def open_read(self, key: str) -> Iterator[BinaryIO]:
        try:
            f = open(self.path(key), "rb")
        except (FileNotFoundError, IsADirectoryError):
            raise NotFound(f"File with key {key} was not found") from None
        with f:
            yield f

    @contextmanager
    def open_write(self, key: str) -> Iterator[BinaryIO]:
        """Written to a temporary file first, then renamed: a reader never sees half a file."""
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as f:
                yield f
            os.replace(tmp, target)
        except BaseException:
            os.unlink(tmp)
            raise

    async def delete(self, key: str) -> None:
        """A key naming a directory is refused: only files are stored objects."""
        target = self.path(key)
        try:
            target.unlink()
        except FileNotFoundError:
            pass
        except (IsADirectoryError, PermissionError):  # Linux says the first, macOS the second
            if not target.is_dir():
                raise
            raise InvalidData(f"Invalid file key {key!r}: it names a directory") from None

    async def exists(self, key: str) -> bool:
        return self.path(key).is_file()
