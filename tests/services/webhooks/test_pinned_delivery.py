"""A delivery connects to the address that was vetted, never to one a second DNS lookup gives (DNS
rebinding), and still speaks to the receiver by its name (Host header; TLS SNI and certificate)."""

from __future__ import annotations

import asyncio
import socket

import pytest

from models import WebhookDelivery, WebhookEndpoint
from services import webhooks
from services.events.bus import emit
from services.webhooks.delivery import attempt
from services.webhooks.signing import new_secret
from tests.webhook_receiver import Receiver


@pytest.fixture
async def receiver():
    r = await Receiver().start()
    yield r
    await r.stop()


@pytest.fixture
async def dns(monkeypatch):
    """A fake DNS for names under `.test`: `answers[name](port)` gives the address; other names
    resolve for real. It sits where every lookup of the process goes (the event loop)."""
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    answers: dict = {}

    async def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name in answers:
            address = answers[name](port)
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]
        return await real(host, port, *args, **kwargs)

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    return answers


async def queued_delivery(url: str) -> WebhookDelivery:
    endpoint = await WebhookEndpoint.create(url=url, events=["*"], secret=new_secret())
    event = await emit("product.created", id="prod_1")
    return await WebhookDelivery.create(event_id=event.id, event_name=event.name, endpoint_id=endpoint.id)


async def test_a_name_rebound_to_loopback_between_check_and_connect_gets_nothing(receiver, dns, monkeypatch):
    # Given public addresses only, and a name whose answer turns to loopback after a first look
    # (an attacker's zero-TTL record): a lookup without a port, as a pre-flight check makes, sees a
    # public address; the one a connection makes (naming the port) sees loopback
    monkeypatch.setattr(webhooks, "_settings", webhooks.WebhookSettings(webhooks_allow_private=False))
    dns["rebind.test"] = lambda port: "93.184.215.14" if port is None else "127.0.0.1"
    delivery = await queued_delivery(f"http://rebind.test:{receiver.port}/hooks")
    # When the delivery is attempted
    await attempt(delivery.id)
    # I expect nothing to reach the loopback receiver, and the refusal to be recorded
    assert receiver.received == []
    delivery = await WebhookDelivery.get(id=delivery.id)
    assert delivery.status == "retrying" and "non-public" in delivery.last_error, delivery.last_error


async def test_a_delivery_pinned_to_the_vetted_address_names_the_host(receiver, dns):
    # Given a name resolving to the receiver (private addresses allowed, as in the tests)
    dns["hooks.test"] = lambda port: "127.0.0.1"
    delivery = await queued_delivery(f"http://hooks.test:{receiver.port}/hooks?x=1")
    # When the delivery is attempted
    await attempt(delivery.id)
    # I expect it delivered, the request naming the host (and port) of the URL, not the address
    assert (await WebhookDelivery.get(id=delivery.id)).status == "succeeded"
    (got,) = receiver.received
    assert (got.path, got.headers["host"]) == ("/hooks?x=1", f"hooks.test:{receiver.port}")
