"""The client's address behind proxies: a peer in TRUSTED_PROXIES names the client in
`X-Forwarded-For` (or `Forwarded`), read from the right past the trusted hops; any other peer's
headers are ignored. Every limit, the request log and the cart context use that one address.
The test client connects from 127.0.0.1, a trusted proxy or not depending on the settings."""

from __future__ import annotations

import ipaddress
import itertools
import logging
from contextlib import asynccontextmanager

import httpx
import pytest

from app.config import ConfigError, Settings
from app.server import create_app
from app.web.client_address import forwarded_for, read_address, x_forwarded_for
from tests.conftest import running, settings

_apps = itertools.count()
_ids = itertools.count()


def _nets(*names: str):
    return tuple(ipaddress.ip_network(n) for n in names)


@asynccontextmanager
async def shop(*trusted: str, header: str = "x-forwarded-for"):
    app = create_app(settings(trusted_proxies=_nets(*trusted), trusted_proxy_header=header), manage_orm=False,
                     name=f"proxied{next(_apps)}")
    async with running(app) as client:
        yield client


async def _client_seen(client, caplog, headers) -> str:
    """The client address of a request's log line."""
    rid = f"addr-{next(_ids)}"
    sent = httpx.Headers(headers)
    sent["x-request-id"] = rid
    with caplog.at_level(logging.INFO, logger="commerce.access"):
        r = await client.get("/health", headers=sent)
    assert r.status_code == 200
    [line] = [rec for rec in caplog.records if rec.name == "commerce.access" and f"id={rid}" in rec.getMessage()]
    assert f" client={line.http['client']}" in line.getMessage()
    return line.http["client"]


# ---------------------------------------------------------------- whom to believe


@pytest.mark.parametrize("headers,client_ip", [
    ({}, "127.0.0.1"),  # the proxy's own request
    ({"x-forwarded-for": "203.0.113.9"}, "203.0.113.9"),
    ({"x-forwarded-for": "198.51.100.1, 203.0.113.9"}, "203.0.113.9"),  # the client's own claim is not believed
    ({"x-forwarded-for": "198.51.100.1, 203.0.113.9, 10.1.2.3"}, "203.0.113.9"),  # a trusted inner proxy skipped
    ({"x-forwarded-for": "10.9.9.9, 10.1.2.3"}, "10.9.9.9"),  # every hop trusted: the furthest
    ([("x-forwarded-for", "198.51.100.1"), ("x-forwarded-for", "203.0.113.9")], "203.0.113.9"),  # two lines
    ({"x-forwarded-for": "198.51.100.1 ,  2001:db8::7"}, "2001:db8::7"),
    ({"x-forwarded-for": "[2001:db8::7]:4711"}, "2001:db8::7"),
    ({"x-forwarded-for": "203.0.113.9:4711"}, "203.0.113.9"),
    ({"x-forwarded-for": "::ffff:203.0.113.9"}, "203.0.113.9"),
    ({"x-forwarded-for": "unknown"}, "127.0.0.1"),  # unreadable: the proxy that wrote it stands for it
    ({"x-forwarded-for": "203.0.113.9, not-an-address"}, "127.0.0.1"),
    ({"x-forwarded-for": "203.0.113.9, 10.1.2.3, 999.1.1.1"}, "127.0.0.1"),
    ({"x-forwarded-for": "not-an-address, 203.0.113.9"}, "203.0.113.9"),  # garbage beyond the client is not read
    ({"x-forwarded-for": ", ,,"}, "127.0.0.1"),
    ({"x-forwarded-for": "[2001:db8::7"}, "127.0.0.1"),
    ({"forwarded": "for=198.51.100.1"}, "127.0.0.1"),  # not the header this shop's proxy writes
])
async def test_behind_a_trusted_proxy_the_forwarded_client_is_the_last_untrusted_hop(caplog, headers, client_ip):
    async with shop("127.0.0.1", "10.0.0.0/8") as client:
        assert await _client_seen(client, caplog, headers) == client_ip


@pytest.mark.parametrize("value,client_ip", [
    ("for=203.0.113.9", "203.0.113.9"),
    ('for=198.51.100.1, for="[2001:db8:cafe::17]:4711";proto=https', "2001:db8:cafe::17"),
    ("for=203.0.113.9;proto=https;by=10.0.0.1, for=10.1.2.3", "203.0.113.9"),
    ('For="203.0.113.9:80"', "203.0.113.9"),
    ('for="_hidden", for=10.1.2.3', "10.1.2.3"),  # obfuscated: the trusted proxy that wrote it
    ("for=unknown", "127.0.0.1"),
    ("proto=https", "127.0.0.1"),  # an element without `for`
    ('for="[2001:db8::1', "127.0.0.1"),
    ('garbage;;"=, for=203.0.113.9', "203.0.113.9"),
])
async def test_a_proxy_writing_rfc_7239_forwarded_is_read_the_same_way(caplog, value, client_ip):
    async with shop("127.0.0.1", "10.0.0.0/8", header="forwarded") as client:
        assert await _client_seen(client, caplog, {"forwarded": value, "x-forwarded-for": "198.51.100.1"}) == client_ip


@pytest.mark.parametrize("trusted", [(), ("10.0.0.0/8", "::1")])
async def test_the_headers_of_a_peer_that_is_no_trusted_proxy_are_ignored(caplog, trusted):
    async with shop(*trusted) as client:
        seen = await _client_seen(client, caplog, {"x-forwarded-for": "203.0.113.9", "forwarded": "for=203.0.113.9",
                                                    "x-real-ip": "203.0.113.9"})
    assert seen == "127.0.0.1"


async def test_a_cart_made_through_a_trusted_proxy_records_the_client_address(seeded):
    async with shop("127.0.0.1") as client:
        r = await client.post("/store/carts", json={}, headers={"x-forwarded-for": "198.51.100.1, 203.0.113.9"})
    assert r.status_code == 200, r.text
    assert r.json()["cart"]["context"]["ip"] == "203.0.113.9"


async def test_a_cart_made_directly_records_the_peer_whatever_it_claims(client, seeded):
    r = await client.post("/store/carts", json={}, headers={"x-forwarded-for": "203.0.113.9"})
    assert r.status_code == 200, r.text
    assert r.json()["cart"]["context"]["ip"] == "127.0.0.1"


# ---------------------------------------------------------------- reading the headers


def test_nodes_are_read_in_every_form_proxies_write_them():
    assert [str(read_address(n)) for n in ("192.0.2.7", "192.0.2.7:4711", "2001:DB8::1", "[2001:db8::1]:4711",
                                           '"[2001:db8::1]"', "::ffff:192.0.2.7")] == [
        "192.0.2.7", "192.0.2.7", "2001:db8::1", "2001:db8::1", "2001:db8::1", "192.0.2.7"]
    for unreadable in (None, "", "unknown", "_hidden", "_hidden:4711", "300.1.1.1", "[::1]x", "[::1", "a:b:c", "1.2.3"):
        assert read_address(unreadable) is None


def test_header_lines_are_split_into_hops_left_to_right():
    a, b = ipaddress.ip_address("192.0.2.1"), ipaddress.ip_address("192.0.2.2")
    assert x_forwarded_for(["192.0.2.1 , junk", "192.0.2.2"]) == [a, None, b]
    assert forwarded_for(['for=192.0.2.1;by="x,y", for=unknown', "proto=http, FOR=192.0.2.2"]) == [a, None, None, b]
    assert forwarded_for(["for=192.0.2.1;for=192.0.2.2"]) == [None]  # two `for` in one element: unreadable


# ---------------------------------------------------------------- the settings


def test_trusted_proxies_are_addresses_and_networks():
    s = Settings.from_env({"TRUSTED_PROXIES": " 10.0.0.2, 172.16.0.0/12,fd00::/8 ,"})
    assert s.trusted_proxies == _nets("10.0.0.2/32", "172.16.0.0/12", "fd00::/8")
    assert s.trusted_proxy_header == "x-forwarded-for"
    assert Settings.from_env({}).trusted_proxies == ()
    assert Settings.from_env({"TRUSTED_PROXY_HEADER": "Forwarded"}).trusted_proxy_header == "forwarded"


@pytest.mark.parametrize("value,message", [
    ("nginx", "TRUSTED_PROXIES: 'nginx' is not an IP address or network"),
    ("10.0.0.1/8", "TRUSTED_PROXIES: '10.0.0.1/8' is not an IP address or network .*has host bits set"),
    ("10.0.0.0/33", "TRUSTED_PROXIES: '10.0.0.0/33' is not an IP address or network"),
    ("[::1]", "TRUSTED_PROXIES: '\\[::1\\]' is not an IP address or network"),
    ("0.0.0.0/0", "TRUSTED_PROXIES: '0.0.0.0/0' would trust every address"),
    ("::/0", "TRUSTED_PROXIES: '::/0' would trust every address"),
])
def test_a_trusted_proxy_that_is_no_address_or_network_refuses_to_start(value, message):
    with pytest.raises(ConfigError, match=message):
        Settings.from_env({"TRUSTED_PROXIES": value})


def test_an_unknown_proxy_header_refuses_to_start():
    with pytest.raises(ConfigError, match="TRUSTED_PROXY_HEADER must be X-Forwarded-For or Forwarded"):
        Settings.from_env({"TRUSTED_PROXY_HEADER": "X-Real-IP"})
