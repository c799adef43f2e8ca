"""Stored files served by us (what the local storage stores, it serves). `GET /uploads/{name}`:
public uploads, for anyone with the URL (product
images). `GET /files/{key}?expires=&signature=`: any stored file through a short-lived signed link
from `POST /admin/uploads/download-url` or a protected upload."""

from __future__ import annotations

import hashlib
import hmac

from sanic import Blueprint, Request

from services.files.uploads import Links, StoredFile, open_stored, public_key

__all__ = ["bp", "links", "links_for"]

bp = Blueprint("files")

# A stored file never runs as a page of our origin (an uploaded .html or .svg could otherwise
# script the admin API with the admin's cookie).
_SAFE = {"x-content-type-options": "nosniff", "content-security-policy": "default-src 'none'; sandbox"}
_INLINE = ("image/", "application/pdf", "text/plain")


def links_for(settings, base_url: str) -> Links:
    # A key of its own, derived from the JWT secret: a link can never pass for a token.
    secret = hmac.new(settings.jwt_secret.encode(), b"commerce file links", hashlib.sha256).digest()
    return Links(settings.backend_url or base_url, secret, settings.download_url_seconds)


def links(request: Request) -> Links:
    return links_for(request.app.ctx.settings, f"{request.scheme}://{request.host}")


async def _send(request: Request, stored: StoredFile, cache: str, attachment: bool) -> None:
    inline = not attachment and stored.content_type.startswith(_INLINE)
    disposition = f'{"inline" if inline else "attachment"}; filename="{stored.filename}"'
    headers = {**_SAFE, "cache-control": cache, "content-disposition": disposition,
               "content-length": str(stored.size)}
    try:
        response = await request.respond(headers=headers, content_type=stored.content_type)
        async for chunk in stored.chunks():
            await response.send(chunk)
        await response.eof()
    finally:
        await stored.close()


@bp.get("/uploads/<name:str>")
async def public(request: Request, name: str):
    stored = await open_stored(public_key(name))
    # Keys are unique (a ULID each) and never rewritten, so a copy stays good.
    await _send(request, stored, "public, max-age=31536000, immutable", attachment=False)


@bp.get("/files/<key:path>")
async def signed(request: Request, key: str):
    links(request).verify(key, request.args.get("expires"), request.args.get("signature"))
    await _send(request, await open_stored(key), "private, no-store", attachment=True)
