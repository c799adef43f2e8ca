"""A delivery connects to the address that was vetted, never to one a second DNS lookup gives (DNS
rebinding), and still speaks to the receiver by its name (Host header; TLS SNI and certificate)."""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

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


def _certificate(subject: str, key, issuer: x509.Name, signer, ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    built = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
             .issuer_name(issuer).public_key(key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(hours=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if not ca:
        built = built.add_extension(x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False)
    return built.sign(signer, hashes.SHA256())


@pytest.fixture
async def tls_receiver(tmp_path, monkeypatch):
    """An https receiver on loopback whose certificate names `hooks.test`, issued by a CA that
    SSL_CERT_FILE makes the only one trusted (as an operator with a private CA would)."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test CA")])
    ca = _certificate("test CA", ca_key, ca_name, ca_key, ca=True)
    leaf = _certificate("hooks.test", key, ca_name, ca_key, ca=False)
    pem = serialization.Encoding.PEM
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(pem))
    (tmp_path / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(tmp_path / "leaf.pem", tmp_path / "key.pem")
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    r = await Receiver(tls=tls).start()
    yield r
    await r.stop()


async def test_https_to_a_pinned_address_checks_the_certificate_of_the_name(tls_receiver, dns):
    # Given two names for the loopback https receiver, its certificate naming only one
    dns["hooks.test"] = dns["other.test"] = lambda port: "127.0.0.1"
    good = await queued_delivery(f"https://hooks.test:{tls_receiver.port}/hooks")
    wrong = await queued_delivery(f"https://other.test:{tls_receiver.port}/hooks")
    # When both are attempted
    await attempt(good.id)
    await attempt(wrong.id)
    # I expect the name the certificate holds delivered (TLS spoke to it by name, not address),
    # and the other refused by certificate verification
    assert (await WebhookDelivery.get(id=good.id)).status == "succeeded"
    wrong = await WebhookDelivery.get(id=wrong.id)
    assert wrong.status == "retrying" and "CERTIFICATE_VERIFY_FAILED" in wrong.last_error, wrong.last_error
    assert [r.headers["host"] for r in tls_receiver.received] == [f"hooks.test:{tls_receiver.port}"]


async def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_attempts_deadline(monkeypatch):
    # Given a receiver that answers its headers at once, then a byte of its body every 0.2 s (each
    # read is quick, so a per-read timeout never fires), and a one-second attempt
    monkeypatch.setattr(webhooks, "_settings", webhooks.WebhookSettings(webhooks_allow_private=True,
                                                                       webhook_timeout_seconds=1.0))
    dripping = asyncio.Event()

    async def drip(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            dripping.set()
            while True:
                writer.write(b"x")
                await writer.drain()
                await asyncio.sleep(0.2)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(drip, "127.0.0.1", 0)
    try:
        port = server.sockets[0].getsockname()[1]
        delivery = await queued_delivery(f"http://127.0.0.1:{port}/hooks")
        # When the delivery is attempted (bounded only so a regression fails instead of hanging)
        await asyncio.wait_for(attempt(delivery.id), 60)
    finally:
        server.close()
    # I expect the attempt to have ended at its deadline, recorded as a failure to retry
    delivery = await WebhookDelivery.get(id=delivery.id)
    assert dripping.is_set()
    assert delivery.status == "retrying" and delivery.last_error == "no answer within 1 seconds", delivery.last_error
