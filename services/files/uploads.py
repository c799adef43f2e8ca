"""Admin uploads: files streamed from a multipart/form-data body into the file
storage under keys we choose, links to them, their removal, and reading them back to serve them.

Keys: `uploads/<ULID>-<name>` (public: anyone holding the URL may fetch it, as Medusa's image
uploads) and `protected/<ULID>-<name>` (import CSVs: fetched only through a signed link). The
client's file name is reduced to a safe base name; a path in it is never followed.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import mimetypes
import re
import time
import unicodedata
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import AsyncIterable, AsyncIterator, BinaryIO
from urllib.parse import quote

from multipart import MultipartError, MultipartSegment, PushMultipartParser, parse_options_header
from ulid import ULID

from services.core.errors import InvalidData, NotFound, Unauthorized
from services.files import storage

__all__ = [
    "Links", "StoredFile", "save_uploads", "download_url", "delete_upload", "open_stored", "public_key",
    "check_key", "FIELD", "PUBLIC_PREFIX", "PROTECTED_PREFIX",
]

FIELD = "files"  # the multipart field Medusa v1 (multer) reads
PUBLIC_PREFIX, PROTECTED_PREFIX = "uploads", "protected"
MAX_PARTS = 1000  # parts of one request, files and plain fields together
_SEGMENT = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
_ULID_PREFIX = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}-")
_CHUNK = 64 * 1024

log = logging.getLogger("commerce.uploads")


# ---------------------------------------------------------------- keys


def check_key(key: str) -> str:
    """A key a client names (download, delete): relative segments of safe characters, no `..`."""
    if not 0 < len(key) <= 1024 or not all(_SEGMENT.match(s) for s in key.split("/")):
        raise InvalidData(f"Invalid file key {key[:200]!r}")
    return key


def public_key(name: str) -> str:
    """The key of a public upload served at `/uploads/<name>`."""
    return check_key(f"{PUBLIC_PREFIX}/{name}")


def _safe_name(filename: str) -> str:
    base = re.split(r"[\\/]", filename)[-1]  # a client's path is never followed
    base = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode()
    stem, dot, ext = base.rpartition(".")
    if not dot:
        stem, ext = ext, ""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", stem).strip("-_")[:80]
    ext = re.sub(r"[^A-Za-z0-9]+", "", ext)[:16]
    return (stem or "file") + (f".{ext}" if ext else "")


def new_key(prefix: str, filename: str) -> str:
    return f"{prefix}/{ULID()}-{_safe_name(filename)}"


def _filename(key: str) -> str:
    """The name a download is saved as: the key's last part without our `<ULID>-` prefix."""
    return _ULID_PREFIX.sub("", key.rsplit("/", 1)[-1]) or "file"


# ---------------------------------------------------------------- links


@dataclass(frozen=True)
class Links:
    """Addresses of stored files on our own web tier. A signed link names one key and an expiry
    (unix seconds), with an HMAC of both, so it works from a plain browser navigation (no
    Authorization header) yet only for as long as it was issued for."""

    base_url: str
    secret: bytes
    seconds: int

    def public(self, key: str) -> str:
        return f"{self.base_url}/{quote(key)}"  # `uploads/<name>` is the route as well as the key

    def signed(self, key: str, now: float | None = None) -> str:
        expires = int(now if now is not None else time.time()) + self.seconds
        return f"{self.base_url}/files/{quote(key)}?expires={expires}&signature={self._sign(key, expires)}"

    def verify(self, key: str, expires: str | None, signature: str | None) -> None:
        if not (expires and len(expires) <= 12 and expires.isascii() and expires.isdigit() and signature):
            raise Unauthorized("The download link is not signed")
        valid = hmac.compare_digest(self._sign(key, int(expires)), signature)
        if not valid or int(expires) < time.time():
            raise Unauthorized("The download link is not valid or has expired")

    def _sign(self, key: str, expires: int) -> str:
        digest = hmac.new(self.secret, f"{key}\n{expires}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _public_url(key: str, links: Links) -> str:
    direct = getattr(storage(), "public_url", None)
    return (direct(key) if direct else None) or links.public(key)


def _signed_url(key: str, links: Links) -> str:
    direct = getattr(storage(), "signed_url", None)
    return direct(key, links.seconds, _filename(key)) if direct else links.signed(key)


# ---------------------------------------------------------------- uploading


def _boundary(content_type: str | None) -> str:
    kind, options = parse_options_header(content_type or "")
    if kind != "multipart/form-data" or not options.get("boundary"):
        raise InvalidData(f"The request must be multipart/form-data with the files in the field {FIELD!r}")
    return options["boundary"]


async def _events(chunks: AsyncIterable[bytes], boundary: str) -> AsyncIterator[MultipartSegment | bytes | None]:
    """The parser's events: a segment's headers, then its body in chunks, then None."""
    try:
        with PushMultipartParser(boundary, max_segment_count=MAX_PARTS) as parser:
            async for chunk in chunks:
                for event in parser.parse(chunk):
                    yield event
    except MultipartError as e:
        raise InvalidData(f"The multipart body is not valid: {e}") from None


async def _body(events: AsyncIterator) -> AsyncIterator[bytes]:
    """One segment's body, pulled from the shared event stream up to the segment's end."""
    async for event in events:
        if event is None:
            return
        yield event


async def save_uploads(
    chunks: AsyncIterable[bytes], content_type: str | None, *, protected: bool, links: Links
) -> list[dict[str, str]]:
    """Store each file of the `files` field as it arrives; `[{url, key}]` in request order. Plain
    fields are ignored (as multer does); a file under another field is refused. On any failure,
    what this request stored is removed again."""
    events = _events(chunks, _boundary(content_type))
    prefix = PROTECTED_PREFIX if protected else PUBLIC_PREFIX
    keys: list[str] = []
    try:
        async for event in events:
            if not isinstance(event, MultipartSegment) or not event.filename:
                continue  # a plain field, its body, or an empty file input: skipped
            if event.name != FIELD:
                raise InvalidData(f"Unexpected field {event.name}: files go in the field {FIELD!r}")
            keys.append(new_key(prefix, event.filename))
            await storage().put(keys[-1], _body(events))
    except BaseException:
        await asyncio.shield(_remove(keys))
        raise
    finally:
        await events.aclose()
    url = _signed_url if protected else _public_url
    return [{"url": url(key, links), "key": key} for key in keys]


async def _remove(keys: list[str]) -> None:
    for key in keys:
        try:
            await storage().delete(key)
        except Exception:  # the upload's own error is the one to report
            log.warning("could not remove the partial upload %s", key, exc_info=True)


# ---------------------------------------------------------------- links, removal, reading


async def download_url(key: str, links: Links) -> str:
    key = check_key(key)
    if not await storage().exists(key):
        raise NotFound(f"File with key {key} was not found")
    return _signed_url(key, links)


async def delete_upload(key: str) -> str:
    """Remove the file; a missing one is not an error (Medusa v1's delete never fails)."""
    key = check_key(key)
    await storage().delete(key)
    return key


@dataclass
class StoredFile:
    key: str
    size: int
    content_type: str
    filename: str
    _context: AbstractContextManager
    _file: BinaryIO

    async def chunks(self) -> AsyncIterator[bytes]:
        """The content, read off the event loop."""
        while chunk := await asyncio.to_thread(self._file.read, _CHUNK):
            yield chunk

    async def close(self) -> None:
        await asyncio.to_thread(self._context.__exit__, None, None, None)


async def open_stored(key: str) -> StoredFile:
    """The stored file, opened (NotFound when it is missing) and ready to stream; `close()` it."""
    context = storage().open_read(check_key(key))
    f = await asyncio.to_thread(context.__enter__)

    def size() -> int:
        end = f.seek(0, 2)
        f.seek(0)
        return end

    try:
        length = await asyncio.to_thread(size)
    except BaseException:
        context.__exit__(None, None, None)
        raise
    content_type = mimetypes.guess_type(key)[0] or "application/octet-stream"
    return StoredFile(key, length, content_type, _filename(key), context, f)
