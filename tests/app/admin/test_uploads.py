"""Admin uploads: files streamed into the file storage under keys we choose,
served back (public uploads to anyone with the URL, everything else through short-lived signed
links), removed on request, and never beyond the upload size limit."""

import asyncio
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import pytest

from app.web.files import links_for
from app.server import create_app
from app.shapes.completion import ApiAnswers
from services import files, setup
from tests.conftest import SETTINGS, running, settings

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
CSV = b"Product Handle,Product Title\nshirt,Shirt\n"


@pytest.fixture
def stored():
    """The files in the test session's storage directory, emptied first (keys as paths)."""
    root = Path(SETTINGS.file_storage_dir)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    return lambda: sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def multipart(*parts: tuple[str, str | None, bytes], boundary: str = "b0undary") -> tuple[bytes, dict]:
    """A multipart/form-data body made by hand: (field, filename or None, content) per part."""
    body = b""
    for field, filename, content in parts:
        disposition = f'form-data; name="{field}"' + (f'; filename="{filename}"' if filename is not None else "")
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + content + b"\r\n"
    body += f"--{boundary}--\r\n".encode()
    return body, {"content-type": f"multipart/form-data; boundary={boundary}"}


# ---------------------------------------------------------------- uploading and serving


async def test_an_uploaded_image_is_served_at_its_url_without_signing_in(client, admin_headers, stored):
    # Given an admin uploads a product image
    r = await client.post("/admin/uploads", headers=admin_headers, files={"files": ("shirt.png", PNG, "image/png")})
    # Then its key is ours and its URL serves the same bytes to anyone
    assert r.status_code == 200 and set(r.json()) == {"uploads"}
    [upload] = r.json()["uploads"]
    assert upload["key"].startswith("uploads/") and upload["key"].endswith("-shirt.png")
    assert upload["url"] == f"{client.base_url}/{upload['key']}"
    assert stored() == [upload["key"]]
    image = await client.get(path_of(upload["url"]))
    assert image.status_code == 200 and image.content == PNG
    assert image.headers["content-type"] == "image/png"
    assert image.headers["content-disposition"] == 'inline; filename="shirt.png"'
    assert image.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in image.headers["content-security-policy"]


async def test_several_files_are_stored_and_answered_in_request_order(client, admin_headers, stored):
    sent = [("files", (f"image-{i}.png", PNG + bytes([i]), "image/png")) for i in range(3)]
    uploads = (await client.post("/admin/uploads", headers=admin_headers, files=sent)).json()["uploads"]
    assert [u["key"].split("-", 1)[1] for u in uploads] == ["image-0.png", "image-1.png", "image-2.png"]
    for i, upload in enumerate(uploads):
        assert (await client.get(path_of(upload["url"]))).content == PNG + bytes([i])
    assert len(stored()) == 3


async def test_an_html_upload_is_served_as_an_attachment_that_cannot_run(client, admin_headers, stored):
    html = b"<script>fetch('/admin/users')</script>"
    [upload] = (await client.post("/admin/uploads", headers=admin_headers,
                                  files={"files": ("page.html", html, "text/html")})).json()["uploads"]
    r = await client.get(path_of(upload["url"]))
    assert r.headers["content-disposition"] == 'attachment; filename="page.html"'
    assert r.headers["content-security-policy"] == "default-src 'none'; sandbox"


async def test_a_multipart_body_without_files_uploads_nothing(client, admin_headers, stored):
    body, headers = multipart(("note", None, b"just a field"), ("files", "", b""))
    r = await client.post("/admin/uploads", headers={**admin_headers, **headers}, content=body)
    assert r.status_code == 200 and r.json() == {"uploads": []}
    assert stored() == []


async def test_an_upload_larger_than_the_json_body_limit_is_accepted(client, admin_headers, stored):
    big = b"x" * (SETTINGS.max_body_bytes + 500_000)
    r = await client.post("/admin/uploads/protected", headers=admin_headers, files={"files": ("big.csv", big)})
    assert r.status_code == 200
    key = r.json()["uploads"][0]["key"]
    assert (Path(SETTINGS.file_storage_dir) / key).stat().st_size == len(big)


# ---------------------------------------------------------------- refused uploads


async def test_a_body_that_is_not_multipart_is_a_400(client, admin_headers, stored):
    r = await client.post("/admin/uploads", headers=admin_headers, json={"files": ["a.png"]})
    assert r.status_code == 400
    assert r.json() == {
        "type": "invalid_data",
        "message": "The request must be multipart/form-data with the files in the field 'files'",
    }


async def test_a_file_in_another_field_is_a_400_and_nothing_stays_stored(client, admin_headers, stored):
    sent = [("files", ("good.png", PNG, "image/png")), ("avatar", ("me.png", PNG, "image/png"))]
    r = await client.post("/admin/uploads", headers=admin_headers, files=sent)
    assert r.status_code == 400
    assert r.json()["message"] == "Unexpected field avatar: files go in the field 'files'"
    assert stored() == []


async def test_a_truncated_multipart_body_is_a_400_and_nothing_stays_stored(client, admin_headers, stored):
    body, headers = multipart(("files", "a.csv", CSV))
    r = await client.post("/admin/uploads", headers={**admin_headers, **headers}, content=body[:-20])
    assert r.status_code == 400 and r.json()["message"].startswith("The multipart body is not valid")
    assert stored() == []


async def test_a_client_path_in_the_file_name_is_never_followed(client, admin_headers, stored):
    sent = [("files", ("../../../etc/passwd", b"root", "text/plain")),
            ("files", ("..\\..\\évil name!.csv", CSV, "text/csv"))]
    uploads = (await client.post("/admin/uploads", headers=admin_headers, files=sent)).json()["uploads"]
    assert [u["key"].split("-", 1)[1] for u in uploads] == ["passwd", "evil-name.csv"]
    assert all(u["key"].count("/") == 1 for u in uploads)
    assert stored() == sorted(u["key"] for u in uploads)


@pytest.mark.parametrize("route", ["/admin/uploads", "/admin/uploads/protected"])
async def test_uploads_over_the_upload_limit_are_a_413_and_nothing_stays_stored(client, admin_headers, stored, route):
    app = create_app(settings(max_upload_bytes=2_000), manage_orm=False)
    async with running(app) as small:
        # Declared too large: refused before a byte is read
        body, headers = multipart(("files", "a.csv", b"x" * 3_000))
        r = await small.post(route, headers={**admin_headers, **headers}, content=body)
        assert r.status_code == 413
        assert r.json() == {"type": "invalid_data", "message": "The request body is too large"}

        # Sent in chunks with no declared size: stopped once past the limit, the partial file removed
        async def chunked():
            for i in range(0, len(body), 500):
                yield body[i:i + 500]

        r = await small.post(route, headers={**admin_headers, **headers}, content=chunked())
        assert r.status_code == 413
        assert stored() == []

        # Within the limit, the same route takes it
        body, headers = multipart(("files", "a.csv", b"x" * 1_000))
        assert (await small.post(route, headers={**admin_headers, **headers}, content=body)).status_code == 200


# ---------------------------------------------------------------- protected files and signed links


async def test_a_protected_upload_is_reached_only_through_its_signed_link(client, admin_headers, stored):
    # Given an import CSV uploaded as protected
    r = await client.post("/admin/uploads/protected", headers=admin_headers, files={"files": ("import.csv", CSV)})
    [upload] = r.json()["uploads"]
    assert upload["key"].startswith("protected/") and upload["key"].endswith("-import.csv")
    # Then its URL is a signed link that works without signing in, as a download
    r = await client.get(path_of(upload["url"]))
    assert r.status_code == 200 and r.content == CSV
    assert r.headers["content-disposition"] == 'attachment; filename="import.csv"'
    assert r.headers["cache-control"] == "private, no-store"
    # but it is not public, and the link without its signature opens nothing
    name = upload["key"].split("/", 1)[1]
    assert (await client.get(f"/uploads/{name}")).status_code == 404
    r = await client.get(f"/files/{upload['key']}")
    assert r.status_code == 401 and r.json()["type"] == "unauthorized"


async def test_download_url_gives_a_short_lived_link_to_a_stored_file(client, admin_headers, stored):
    key = (await client.post("/admin/uploads/protected", headers=admin_headers,
                             files={"files": ("export.csv", CSV)})).json()["uploads"][0]["key"]
    before = int(time.time())
    r = await client.post("/admin/uploads/download-url", headers=admin_headers, json={"file_key": key})
    assert r.status_code == 200 and set(r.json()) == {"download_url"}
    url = r.json()["download_url"]
    expires = int(url.split("expires=")[1].split("&")[0])
    assert before + SETTINGS.download_url_seconds <= expires <= int(time.time()) + SETTINGS.download_url_seconds
    assert (await client.get(path_of(url))).content == CSV


async def test_a_tampered_expired_or_borrowed_signature_opens_nothing(client, admin_headers, stored):
    keys = [u["key"] for u in (await client.post(
        "/admin/uploads/protected", headers=admin_headers, files=[("files", ("a.csv", CSV)), ("files", ("b.csv", CSV))],
    )).json()["uploads"]]
    links = links_for(SETTINGS, str(client.base_url))
    good = path_of(links.signed(keys[0]))
    expired = path_of(links.signed(keys[0], now=time.time() - SETTINGS.download_url_seconds - 5))
    borrowed = good.replace(keys[0], keys[1])  # a's signature on b's key
    tampered = good[:-3] + ("AAA" if not good.endswith("AAA") else "BBB")
    later = good.replace("expires=", "expires=9")  # a later expiry under the old signature
    assert (await client.get(good)).status_code == 200
    for url in (expired, borrowed, tampered, later, f"/files/{keys[0]}?expires=abc&signature=x",
                f"/files/{keys[0]}?expires={'9' * 5000}&signature=x"):
        r = await client.get(url)
        assert r.status_code == 401, url
        assert r.json()["type"] == "unauthorized"


async def test_an_export_written_by_a_job_downloads_under_its_own_name(client, admin_headers, stored):
    # Given a batch job wrote its export through the file storage
    with files.storage().open_write("exports/products/product-export-batch_01.csv") as f:
        f.write(CSV)
    # When the admin asks for its download link, I expect the file under its own name
    r = await client.post("/admin/uploads/download-url", headers=admin_headers,
                          json={"file_key": "exports/products/product-export-batch_01.csv"})
    download = await client.get(path_of(r.json()["download_url"]))
    assert download.status_code == 200 and download.content == CSV
    assert download.headers["content-disposition"] == 'attachment; filename="product-export-batch_01.csv"'


async def test_download_url_for_a_missing_file_is_a_404(client, admin_headers, stored):
    r = await client.post("/admin/uploads/download-url", headers=admin_headers, json={"file_key": "exports/none.csv"})
    assert r.status_code == 404
    assert r.json() == {"type": "not_found", "message": "File with key exports/none.csv was not found"}


@pytest.mark.parametrize("body,message", [
    ({}, "file_key must be a string"),
    ({"file_key": 42}, "file_key must be a string"),
    ({"file_key": "x", "extra": 1}, "property extra should not exist"),
])
async def test_download_url_and_delete_need_a_file_key_string(client, admin_headers, body, message):
    for method, path in (("POST", "/admin/uploads/download-url"), ("DELETE", "/admin/uploads")):
        r = await client.request(method, path, headers=admin_headers, json=body)
        assert r.status_code == 400, (method, r.text)
        assert r.json() == {"type": "invalid_data", "message": message}


@pytest.mark.parametrize("key", ["../secret.txt", "uploads/../../secret.txt", "/etc/passwd", "uploads//a", "", "a\\b"])
async def test_keys_that_could_leave_the_storage_are_refused(client, admin_headers, stored, key):
    outside = Path(SETTINGS.file_storage_dir).parent / "secret.txt"
    outside.write_text("secret")
    try:
        for method, path in (("POST", "/admin/uploads/download-url"), ("DELETE", "/admin/uploads")):
            r = await client.request(method, path, headers=admin_headers, json={"file_key": key})
            assert r.status_code == 400, (method, key, r.text)
            assert r.json()["message"].startswith("Invalid file key")
        assert outside.read_text() == "secret"
    finally:
        outside.unlink()


async def raw_get(client, target: str) -> tuple[int, bytes]:
    """GET `target` exactly as written (httpx would resolve `..` before sending)."""
    reader, writer = await asyncio.open_connection(client.base_url.host, client.base_url.port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n".encode())
    response = await reader.read()
    writer.close()
    head, _, body = response.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_served_paths_cannot_leave_the_storage(client, admin_headers, stored):
    (Path(SETTINGS.file_storage_dir) / "protected").mkdir()
    (Path(SETTINGS.file_storage_dir) / "protected" / "private.csv").write_bytes(CSV)
    (Path(SETTINGS.file_storage_dir).parent / "secret.txt").write_bytes(CSV)
    links = links_for(SETTINGS, str(client.base_url))
    try:
        for target in ("/uploads/..%2Fprotected%2Fprivate.csv", "/uploads/%2E%2E/protected/private.csv",
                       "/uploads/../protected/private.csv", "/uploads/..", "/uploads/../../secret.txt",
                       # even links we signed ourselves, for keys that leave their place
                       path_of(links.signed("protected/../protected/private.csv")),
                       path_of(links.signed("../secret.txt")).replace("%2E%2E", "..")):
            status, body = await raw_get(client, target)
            assert status in (400, 404), (target, status)
            assert CSV not in body
    finally:
        (Path(SETTINGS.file_storage_dir).parent / "secret.txt").unlink()


# ---------------------------------------------------------------- deleting


async def test_delete_removes_the_file_and_answers_like_medusa_even_when_it_is_gone(client, admin_headers, stored):
    [upload] = (await client.post("/admin/uploads", headers=admin_headers,
                                  files={"files": ("old.png", PNG, "image/png")})).json()["uploads"]
    for _ in range(2):
        r = await client.request("DELETE", "/admin/uploads", headers=admin_headers, json={"file_key": upload["key"]})
        assert r.status_code == 200
        assert r.json() == {"id": upload["key"], "object": "file", "deleted": True}
    assert stored() == []
    r = await client.get(path_of(upload["url"]))
    assert r.status_code == 404 and r.json()["type"] == "not_found"


async def test_deleting_a_key_that_names_a_directory_is_a_400_and_keeps_its_files(client, admin_headers, stored):
    [upload] = (await client.post("/admin/uploads", headers=admin_headers,
                                  files={"files": ("old.png", PNG, "image/png")})).json()["uploads"]
    directory = upload["key"].rsplit("/", 1)[0]
    r = await client.request("DELETE", "/admin/uploads", headers=admin_headers, json={"file_key": directory})
    assert r.status_code == 400, r.text
    assert r.json() == {"type": "invalid_data", "message": f"Invalid file key {directory!r}: it names a directory"}
    assert stored() == [upload["key"]]


# ---------------------------------------------------------------- signed-in admins only


async def test_every_upload_route_needs_a_signed_in_admin(client, admin, stored):
    body, headers = multipart(("files", "a.csv", CSV))
    for path in ("/admin/uploads", "/admin/uploads/protected"):
        r = await client.post(path, headers=headers, content=body)
        assert r.status_code == 401 and r.json() == {"type": "unauthorized", "message": "Unauthorized"}
    for method, path in (("POST", "/admin/uploads/download-url"), ("DELETE", "/admin/uploads")):
        r = await client.request(method, path, json={"file_key": "uploads/a.csv"})
        assert r.status_code == 401
    assert stored() == []


# ---------------------------------------------------------------- with files in an S3 bucket


async def test_with_s3_storage_uploads_land_in_the_bucket_and_protected_links_are_presigned(
    admin_headers, s3_endpoint
):
    bucket = "uploads-test"
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, aws_access_key_id="test", aws_secret_access_key="test",
                      region_name="us-east-1")
    s3.create_bucket(Bucket=bucket)
    app = create_app(settings(
        s3_bucket=bucket, s3_endpoint_url=s3_endpoint, s3_region="us-east-1", s3_access_key_id="test",
        s3_secret_access_key="test",
    ), manage_orm=False)
    try:
        async with running(app) as http:
            [image] = (await http.post("/admin/uploads", headers=admin_headers,
                                       files={"files": ("cap.png", PNG, "image/png")})).json()["uploads"]
            [csv] = (await http.post("/admin/uploads/protected", headers=admin_headers,
                                     files={"files": ("import.csv", CSV)})).json()["uploads"]
            # The objects are in the bucket
            assert s3.get_object(Bucket=bucket, Key=image["key"])["Body"].read() == PNG
            assert s3.get_object(Bucket=bucket, Key=image["key"])["ContentType"] == "image/png"
            # The public image is served by us; the protected file's link is the bucket's own
            assert (await http.get(path_of(image["url"]))).content == PNG
            assert csv["url"].startswith(f"{s3_endpoint}/{bucket}/{csv['key']}?") and "Signature=" in csv["url"]
            download = (await http.post("/admin/uploads/download-url", headers=admin_headers,
                                        json={"file_key": csv["key"]})).json()["download_url"]
            assert download.startswith(s3_endpoint)
            r = await http.request("DELETE", "/admin/uploads", headers=admin_headers, json={"file_key": csv["key"]})
            assert r.status_code == 200
            assert "Contents" not in s3.list_objects_v2(Bucket=bucket, Prefix="protected/")
    finally:
        setup.configure(SETTINGS, answers=ApiAnswers())  # the rest of the session stores locally again
