"""Admin uploads: `/admin/uploads`. Upload bodies are streamed into the file
storage as they arrive, up to Settings.max_upload_bytes (not the JSON body limit)."""

from typing import Annotated

from pydantic import Field
from sanic import Blueprint, Request

from app.web.files import links
from app.web.responses import deleted, json
from app.web.validation import Body, parse_body
from services.files.uploads import delete_upload, download_url, save_uploads

bp = Blueprint("admin_uploads", url_prefix="/uploads")


class FileKey(Body):
    # Validated when absent too, so a missing key reads as Medusa's `file_key must be a string`.
    file_key: Annotated[str, Field(validate_default=True)] = None  # type: ignore[assignment]


async def _receive(request: Request, protected: bool):
    # Sanic lifts the size limit of streamed routes; ours applies from the first byte (a declared
    # Content-Length over it is refused before anything is read).
    request.stream.request_max_size = request.app.ctx.settings.max_upload_bytes
    uploads = await save_uploads(
        request.stream, request.headers.get("content-type"), protected=protected, links=links(request)
    )
    return json({"uploads": uploads})


@bp.post("", stream=True)
async def upload(request: Request):
    return await _receive(request, protected=False)


@bp.post("/protected", stream=True)
async def upload_protected(request: Request):
    return await _receive(request, protected=True)


@bp.post("/download-url")
async def download(request: Request):
    body = parse_body(request, FileKey)
    return json({"download_url": await download_url(body.file_key, links(request))})


@bp.delete("")
async def delete(request: Request):
    body = parse_body(request, FileKey)
    return deleted(await delete_upload(body.file_key), "file")
