"""File storage: the local directory (for real) and an S3-compatible bucket (boto3 against moto's
S3 server over HTTP) keep the same promises; configuration picks one."""

import hashlib
import os
import uuid

import boto3
import httpx
import pytest

from app.config import ConfigError, Settings
from services.core.errors import InvalidData, NotFound
from services import files
from services.files.local import LocalFileStorage
from services.files.s3 import SPOOL_BYTES, S3FileStorage
from tests.conftest import configured, settings

S3_KEYS = {"s3_access_key_id": "test", "s3_secret_access_key": "test", "s3_region": "us-east-1"}


def s3_settings(endpoint: str, bucket: str, **more) -> Settings:
    return settings(s3_bucket=bucket, s3_endpoint_url=endpoint, **S3_KEYS, **more)


def new_bucket(endpoint: str) -> str:
    bucket = f"test-{uuid.uuid4().hex[:12]}"
    boto3.client("s3", endpoint_url=endpoint, aws_access_key_id="test", aws_secret_access_key="test",
                 region_name="us-east-1").create_bucket(Bucket=bucket)
    return bucket


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path):
    if request.param == "local":
        return LocalFileStorage(tmp_path / "files")
    endpoint = request.getfixturevalue("s3_endpoint")
    return S3FileStorage.from_settings(s3_settings(endpoint, new_bucket(endpoint)))


def read(store, key: str) -> bytes:
    with store.open_read(key) as f:
        return f.read()


async def chunks(*parts: bytes):
    for part in parts:
        yield part


# ---------------------------------------------------------------- the promises of every storage


async def test_put_stores_bytes_that_read_back_the_same(store):
    assert await store.put("exports/a.csv", b"id,title\n1,Shirt\n") == 17
    assert read(store, "exports/a.csv") == b"id,title\n1,Shirt\n"
    assert await store.exists("exports/a.csv")


async def test_put_takes_a_stream_of_chunks_and_replaces_what_was_there(store):
    await store.put("uploads/x.bin", b"old content")
    assert await store.put("uploads/x.bin", chunks(b"ab", b"", b"cde")) == 5
    assert read(store, "uploads/x.bin") == b"abcde"


async def test_open_write_stores_the_file_when_the_block_ends(store):
    with store.open_write("imports/ops.json") as f:
        f.write(b'{"op": ')
        f.write(b'"create"}')
        assert not await store.exists("imports/ops.json")  # nothing half-written is visible
    assert read(store, "imports/ops.json") == b'{"op": "create"}'


async def test_open_write_stores_nothing_when_the_block_fails(store):
    with pytest.raises(RuntimeError):
        with store.open_write("exports/broken.csv") as f:
            f.write(b"id\n1\n")
            raise RuntimeError("the export failed half way")
    assert not await store.exists("exports/broken.csv")
    if isinstance(store, LocalFileStorage):
        assert not any(name.startswith(".part-") for _, _, names in os.walk(store.root) for name in names)


async def test_reading_a_missing_file_is_not_found_and_deleting_it_is_fine(store):
    with pytest.raises(NotFound):
        read(store, "exports/none.csv")
    assert not await store.exists("exports/none.csv")
    await store.delete("exports/none.csv")
    await store.put("exports/some.csv", b"x")
    await store.delete("exports/some.csv")
    assert not await store.exists("exports/some.csv")


async def test_a_file_larger_than_memory_spooling_streams_through(store):
    # Given nine chunks of 1 MiB (past the S3 spool and its multipart threshold)
    block = os.urandom(1024 * 1024)
    size = 9 * len(block)
    assert size > SPOOL_BYTES
    assert await store.put("exports/big.bin", chunks(*[block] * 9)) == size
    # When it is read back in pieces, I expect every byte in order
    digest = hashlib.sha256()
    with store.open_read("exports/big.bin") as f:
        while piece := f.read(256 * 1024):
            digest.update(piece)
    assert digest.hexdigest() == hashlib.sha256(block * 9).hexdigest()


# ---------------------------------------------------------------- local: the directory is a fence


@pytest.mark.parametrize("key", ["../outside.txt", "a/../../outside.txt", "/etc/passwd", "", ".", "a/.."])
async def test_local_storage_refuses_keys_that_leave_its_directory(tmp_path, key):
    store = LocalFileStorage(tmp_path / "files")
    with pytest.raises(InvalidData):
        await store.put(key, b"x")
    with pytest.raises(InvalidData):
        read(store, key)
    assert not (tmp_path / "outside.txt").exists()


# ---------------------------------------------------------------- S3: links straight to the bucket


async def test_s3_signed_url_fetches_the_object_without_credentials(s3_endpoint):
    store = S3FileStorage.from_settings(s3_settings(s3_endpoint, new_bucket(s3_endpoint)))
    await store.put("exports/products.csv", b"id\nprod_1\n")
    url = store.signed_url("exports/products.csv", 60, "products.csv")
    assert "Signature=" in url and "Expires=" in url
    r = httpx.get(url)
    assert r.status_code == 200 and r.content == b"id\nprod_1\n"
    assert r.headers["content-type"] == "text/csv"
    assert r.headers["content-disposition"] == 'attachment; filename="products.csv"'


async def test_s3_public_url_only_where_a_public_address_is_configured(s3_endpoint):
    bucket = new_bucket(s3_endpoint)
    assert S3FileStorage.from_settings(s3_settings(s3_endpoint, bucket)).public_url("uploads/a.png") is None
    cdn = S3FileStorage.from_settings(s3_settings(s3_endpoint, bucket, s3_public_url="https://cdn.example"))
    assert cdn.public_url("uploads/01H-a b.png") == "https://cdn.example/uploads/01H-a%20b.png"


# ---------------------------------------------------------------- choosing a storage


def test_s3_bucket_setting_chooses_s3_and_its_absence_the_local_directory(s3_endpoint):
    """The built-in s3 plugin offers its storage only with S3_BUCKET (services/builtin_plugins.py)."""
    assert isinstance(files.storage(), LocalFileStorage)
    with configured(s3_bucket="shop-files", s3_endpoint_url=s3_endpoint, **S3_KEYS):
        chosen = files.storage()
        assert isinstance(chosen, S3FileStorage) and chosen.bucket == "shop-files"
    assert isinstance(files.storage(), LocalFileStorage)


def test_s3_settings_are_read_from_the_environment():
    s = Settings.from_env({
        "S3_BUCKET": "shop", "S3_ENDPOINT_URL": "https://s3.example", "S3_REGION": "eu-west-1",
        "S3_ACCESS_KEY_ID": "AKIA", "S3_SECRET_ACCESS_KEY": "secret", "S3_PUBLIC_URL": "https://cdn.example/",
        "MAX_UPLOAD_BYTES": "5000", "BACKEND_URL": "https://api.example/", "DOWNLOAD_URL_SECONDS": "60",
    })
    assert (s.s3_bucket, s.s3_endpoint_url, s.s3_region) == ("shop", "https://s3.example", "eu-west-1")
    assert (s.s3_access_key_id, s.s3_secret_access_key, s.s3_public_url) == ("AKIA", "secret", "https://cdn.example")
    assert (s.max_upload_bytes, s.backend_url, s.download_url_seconds) == (5000, "https://api.example", 60)
    defaults = Settings.from_env({})
    assert defaults.s3_bucket is None and defaults.max_upload_bytes == 100_000_000


@pytest.mark.parametrize("environ,message", [
    ({"S3_ENDPOINT_URL": "https://s3.example"}, "S3_ENDPOINT_URL given without S3_BUCKET"),
    ({"S3_BUCKET": "shop", "S3_ACCESS_KEY_ID": "AKIA"}, "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together"),
    ({"MAX_UPLOAD_BYTES": "0"}, "MAX_UPLOAD_BYTES and DOWNLOAD_URL_SECONDS must be positive"),
])
def test_incomplete_s3_or_upload_settings_are_refused(environ, message):
    with pytest.raises(ConfigError) as e:
        Settings.from_env(environ)
    assert message in str(e.value)


def test_production_refuses_a_plain_http_s3_endpoint():
    secret = "k3J9-vQz8_Lp2wXr7TnB5mYc-Hd4sW1aZ6"
    production = {"COMMERCE_ENV": "production", "COOKIE_SECRET": secret, "JWT_SECRET": secret[::-1], "S3_BUCKET": "b"}
    with pytest.raises(ConfigError) as e:
        Settings.from_env({**production, "S3_ENDPOINT_URL": "http://minio.internal:9000"})
    assert "plain http:// S3_ENDPOINT_URL" in str(e.value)
    assert Settings.from_env({**production, "S3_ENDPOINT_URL": "https://minio.internal"}).s3_bucket == "b"
    assert Settings.from_env(production).s3_endpoint_url is None  # AWS itself
