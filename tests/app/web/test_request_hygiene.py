"""Values no column can hold are the client's mistake: a JSON 400, never a 500."""

import asyncio
import contextlib
import logging
import time
from contextlib import asynccontextmanager

import orjson
import pytest

from app.server import create_app
from tests.conftest import PATIENCE, running, settings


@pytest.mark.parametrize("method,url,body", [
    ("GET", "/store/regions/reg%00x", None),
    ("GET", "/store/products?q=a%00b", None),
    ("GET", "/store/auth/a%00@b.co", None),
    ("POST", "/admin/auth", '{"email": "a\\u0000@b.co", "password": "x"}'),
    ("POST", "/store/auth", b'{"email": "a\x00@b.co", "password": "x"}'),
])
async def test_nul_characters_anywhere_are_a_400(client, method, url, body):
    r = await client.request(method, url, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data",
                        "message": "The request contains a NUL character, which no field accepts"}


async def test_an_id_longer_than_any_id_is_a_400_not_a_500(client, seeded):
    r = await client.get("/store/regions/" + "x" * 200)
    assert r.status_code == 400 and r.json()["type"] == "invalid_data"
    assert r.json()["message"] == "id is too long or not valid"
    r = await client.get("/store/products/" + "p" * 200)
    assert r.status_code == 400


async def test_a_normal_request_still_passes(client, seeded):
    assert (await client.get("/store/regions")).status_code == 200


# ---------------------------------------------------------------- methods


async def test_a_wrong_method_names_the_allowed_ones(client, admin_headers):
    r = await client.delete("/store/products")
    assert r.status_code == 405 and r.json()["type"] == "not_allowed"
    assert r.headers["allow"] == "GET"
    r = await client.put("/admin/customer-groups/cgrp_x", headers=admin_headers)
    assert r.status_code == 405
    assert sorted(m.strip() for m in r.headers["allow"].split(",")) == ["DELETE", "GET", "POST"]


# ---------------------------------------------------------------- slow and vanishing clients

HEAD = (b"POST /store/auth HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\n"
        b"Content-Length: 64\r\n\r\n")
BODY_TIMEOUT = 1.0
ROOMY = 60.0  # a deadline no busy machine reaches: for the tests of what arrives in time


@asynccontextmanager
async def timed_server(body_timeout: float = BODY_TIMEOUT):
    """A server whose request bodies must arrive within `body_timeout` seconds, and a raw socket to it."""
    async with running(create_app(settings(body_timeout_seconds=body_timeout), manage_orm=False)) as http:
        reader, writer = await asyncio.open_connection(http.base_url.host, http.base_url.port)
        try:
            yield reader, writer
        finally:
            writer.close()


async def answer_and_close(reader) -> tuple[bytes, dict, float]:
    """The status line and JSON body the server sends before it closes, and how long that took."""
    started = time.monotonic()
    raw = await asyncio.wait_for(reader.read(), PATIENCE)  # until the server closes the connection
    head, _, body = raw.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], orjson.loads(body), time.monotonic() - started


async def test_a_body_that_stalls_is_a_408_json_and_the_connection_closes(database):
    async with timed_server() as (reader, writer):
        # Given a client that sends its headers and part of its body, then nothing more
        writer.write(HEAD + b'{"email": ')
        status, body, waited = await answer_and_close(reader)
    assert status == b"HTTP/1.1 408 Request Timeout"
    assert body == {"type": "invalid_data", "message": "The request body did not arrive within 1 seconds"}
    assert BODY_TIMEOUT * 0.9 < waited  # no sooner than the deadline (later only on a busy machine)


async def test_a_body_trickled_byte_by_byte_is_cut_off_at_the_deadline(database):
    async with timed_server() as (reader, writer):
        writer.write(HEAD)

        # a byte every 0.2 s, for ever: no gap is long, the whole is
        sent = await trickled_until_closed(reader, writer, b" ", every=0.2)
    assert sent == b"" or sent.startswith(b"HTTP/1.1 408 Request Timeout")


async def test_a_body_that_arrives_in_time_in_pieces_is_read(database):
    async with timed_server(ROOMY) as (reader, writer):
        body = b'{"email": "nobody@example.com", "password": "x"}'
        writer.write(HEAD.replace(b"64", str(len(body)).encode()) + body[:10])
        await asyncio.sleep(0.3)
        writer.write(body[10:])
        raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), PATIENCE)
    assert raw.startswith(b"HTTP/1.1 401")


HEADER_TIMEOUT = 1.0


@asynccontextmanager
async def head_timed_server(header_timeout: float = HEADER_TIMEOUT):
    """A server whose request heads must arrive within `header_timeout` seconds (pauses of up to a
    minute allowed), and a raw socket to it."""
    app = create_app(settings(header_timeout_seconds=header_timeout, body_timeout_seconds=60), manage_orm=False)
    async with running(app) as http:
        reader, writer = await asyncio.open_connection(http.base_url.host, http.base_url.port)
        try:
            yield reader, writer
        finally:
            writer.close()


async def closed(reader) -> bytes:
    """What the server sent before it closed the connection (a reset also counts as closed)."""
    try:
        return await asyncio.wait_for(reader.read(), PATIENCE)
    except ConnectionError:
        return b""


async def trickled_until_closed(reader, writer, byte: bytes, every: float) -> bytes:
    """Write `byte` every `every` seconds until the server closes the connection; what it sent
    before closing (the wait is bounded generously). A byte written after it closed may make it
    answer with a reset, which can discard its 408 before it is read: that too counts as closed."""
    async def trickle():
        with contextlib.suppress(ConnectionError):
            while True:
                await asyncio.sleep(every)
                writer.write(byte)
                await writer.drain()

    trickling = asyncio.create_task(trickle())
    try:
        return await closed(reader)
    finally:
        trickling.cancel()


async def test_headers_trickled_byte_by_byte_are_cut_off_at_the_deadline(database):
    async with head_timed_server() as (reader, writer):
        # Given a client that sends a header byte every 0.3 s, never finishing its head
        writer.write(b"GET /health HTTP/1.1\r\nHost: shop\r\n")
        sent = await trickled_until_closed(reader, writer, b"X", every=HEADER_TIMEOUT * 0.3)
    assert sent == b"" or sent.startswith(b"HTTP/1.1 408 ")


async def test_a_head_that_stops_short_is_a_408_json_naming_the_deadline(database):
    async with head_timed_server() as (reader, writer):
        writer.write(b"GET /health HTTP/1.1\r\nHost: sh")
        head, _, body = (await closed(reader)).partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 408 Request Timeout"
    assert orjson.loads(body) == {"type": "invalid_data",
                                  "message": "The request head did not arrive within 1 seconds"}


async def test_heads_in_time_are_answered_on_one_connection(database):
    async with head_timed_server(ROOMY) as (reader, writer):
        for _ in range(2):
            writer.write(b"GET /health HTTP/1.1\r\nHost: sh")
            await asyncio.sleep(HEADER_TIMEOUT * 0.3)
            writer.write(b"op\r\n\r\n")
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\nOK"), PATIENCE)
            assert raw.startswith(b"HTTP/1.1 200")


async def test_a_client_that_goes_away_is_not_logged_as_an_error(database, caplog):
    caplog.set_level(logging.DEBUG)
    async with timed_server() as (reader, writer):
        # one leaves in the middle of its body, one before its answer is written
        writer.write(HEAD + b'{"email": ')
        await writer.drain()
        await asyncio.sleep(0.1)
        writer.close()
        _, other = await asyncio.open_connection(*writer.get_extra_info("peername")[:2])
        other.write(b"GET /store/products HTTP/1.1\r\nHost: shop\r\n\r\n")
        other.close()
        await asyncio.sleep(0.5)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
