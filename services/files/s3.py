"""Files in an S3-compatible bucket (AWS S3, MinIO, R2, Ceph ...), through boto3.

Objects pass through a spooled temporary file (memory up to `SPOOL_BYTES`, then disk), so neither
reading nor writing holds a whole object in memory. `open_read` and `open_write` block while
they transfer, as the local storage's do on its disk: call them off the event loop
(`asyncio.to_thread`) where a request is waiting; `put`, `delete` and `exists` do so themselves.
"""

from __future__ import annotations

import asyncio
import mimetypes
import tempfile
from contextlib import contextmanager
from typing import Any, AsyncIterable, BinaryIO, Iterator
from urllib.parse import quote

from services.core.errors import InvalidData, NotFound

__all__ = ["S3FileStorage", "SPOOL_BYTES"]

SPOOL_BYTES = 8 * 1024 * 1024
_MISSING = {"404", "NoSuchKey", "NotFound"}


def _content_type(key: str) -> str:
    return mimetypes.guess_type(key)[0] or "application/octet-stream"


class S3FileStorage:
    def __init__(self, bucket: str, client: Any, public_url: str | None = None) -> None:
        self.bucket, self.client, self.public_base = bucket, client, public_url

    @classmethod
    def from_settings(cls, settings) -> "S3FileStorage":
        import boto3
        from botocore.config import Config

        config = Config(
            signature_version="s3v4", connect_timeout=5, read_timeout=60,
            retries={"max_attempts": 3, "mode": "standard"},
            # Most S3-compatible servers want path-style addressing; AWS itself prefers virtual hosts.
            s3={"addressing_style": "path" if settings.s3_endpoint_url else "auto"},
        )
        client = boto3.session.Session().client(
            "s3", endpoint_url=settings.s3_endpoint_url, region_name=settings.s3_region,
            aws_access_key_id=settings.s3_access_key_id, aws_secret_access_key=settings.s3_secret_access_key,
            config=config,
        )
        return cls(settings.s3_bucket, client, settings.s3_public_url)

    @staticmethod
    def _key(key: str) -> str:
        if not key or key.startswith("/"):
            raise InvalidData(f"Invalid file key {key!r}")
        return key

    def _upload(self, f: BinaryIO, key: str) -> None:
        f.seek(0)
        self.client.upload_fileobj(f, self.bucket, key, ExtraArgs={"ContentType": _content_type(key)})

    async def put(self, key: str, data: bytes | AsyncIterable[bytes]) -> int:
        key = self._key(key)
        with tempfile.SpooledTemporaryFile(SPOOL_BYTES) as f:
            if isinstance(data, (bytes, bytearray)):
                written = f.write(data)
            else:
                written = 0
                async for chunk in data:
                    written += f.write(chunk)
            await asyncio.to_thread(self._upload, f, key)
        return written

    @contextmanager
    def open_read(self, key: str) -> Iterator[BinaryIO]:
        from botocore.exceptions import ClientError

        key = self._key(key)
        with tempfile.SpooledTemporaryFile(SPOOL_BYTES) as f:
            try:
                self.client.download_fileobj(self.bucket, key, f)
            except ClientError as e:
                if e.response.get("Error", {}).get("Code") in _MISSING:
                    raise NotFound(f"File with key {key} was not found") from None
                raise
            f.seek(0)
            yield f

    @contextmanager
    def open_write(self, key: str) -> Iterator[BinaryIO]:
        """Uploaded when the block ends without an exception; nothing is stored otherwise."""
        key = self._key(key)
        with tempfile.SpooledTemporaryFile(SPOOL_BYTES) as f:
            yield f
            self._upload(f, key)

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self.client.delete_object, Bucket=self.bucket, Key=self._key(key))

    async def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            await asyncio.to_thread(self.client.head_object, Bucket=self.bucket, Key=self._key(key))
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") in _MISSING:
                return False
            raise
        return True

    # ------------------------------------------------------------ links straight to the bucket

    def public_url(self, key: str) -> str | None:
        """Where a public upload can be fetched without us, when S3_PUBLIC_URL names such a place."""
        return f"{self.public_base}/{quote(key)}" if self.public_base else None

    def signed_url(self, key: str, seconds: int, filename: str | None = None) -> str:
        """A presigned GET of `key`, valid for `seconds`; checked by the bucket itself."""
        params = {"Bucket": self.bucket, "Key": self._key(key)}
        if filename:
            params["ResponseContentDisposition"] = f'attachment; filename="{filename}"'
        return self.client.generate_presigned_url("get_object", Params=params, ExpiresIn=seconds)
