"""Notification providers: SMTP against a real local SMTP server (aiosmtpd), the recording default,
and the delivery that records each outcome on the notification row without the token."""

import logging
from email import message_from_string
from urllib.parse import parse_qs, urlparse

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from models import Customer, Notification, OneTimeToken
from services import notifications
from services.notifications import OutgoingMessage
from services.notifications.delivery import deliver, queue_message
from services.notifications.record import RecordProvider
from services.notifications.smtp import SmtpProvider
from services.customers.password_reset import request_password_reset, reset_password
from services.core.passwords import hash_password
from tests.account_factories import hear_events
from tests.conftest import SETTINGS, _free_port, configured, settings


class Inbox:
    """An aiosmtpd handler that keeps what it receives, and who signed in to send it."""

    def __init__(self):
        self.received: list[tuple[str, list[str], str, str | None]] = []

    async def handle_DATA(self, server, session, envelope):
        login = session.auth_data.decode() if session.authenticated else None
        self.received.append((envelope.mail_from, envelope.rcpt_tos, envelope.content.decode(), login))
        return "250 Message accepted"


def _only_jane(server, session, envelope, mechanism, auth_data):
    ok = (auth_data.login, auth_data.password) == (b"jane", b"mail-secret")
    return AuthResult(success=ok, handled=False, auth_data=auth_data.login if ok else None)


@pytest.fixture
def smtp_server():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port(), authenticator=_only_jane,
                            auth_require_tls=False)
    controller.start()
    yield controller, inbox
    controller.stop()
    notifications.configure(SETTINGS)  # back to the recording default for later tests


def _part(email, content_type: str) -> str:
    """The decoded text of the message's part of that type (every message has text and HTML)."""
    [part] = [p for p in email.walk() if p.get_content_type() == content_type]
    return part.get_payload(decode=True).decode()


MESSAGE = OutgoingMessage("customer.password_reset", "jane@example.com", "Reset your password",
                          "Open https://shop.example/reset-password?token=s3cret", {"token": "s3cret"}, ("s3cret",))


async def test_smtp_provider_delivers_to_a_real_smtp_server_with_credentials(smtp_server):
    controller, inbox = smtp_server
    provider = SmtpProvider("127.0.0.1", controller.port, username="jane", password="mail-secret", tls="none",
                            sender="shop@example.com")
    await provider.send(MESSAGE)
    [(sender, recipients, content, login)] = inbox.received
    assert (sender, recipients, login) == ("shop@example.com", ["jane@example.com"], "jane")
    email = message_from_string(content)
    assert email["Subject"] == "Reset your password" and email["From"] == "shop@example.com"
    assert "reset-password?token=s3cret" in email.get_payload(decode=True).decode()


async def test_smtp_provider_raises_when_the_server_refuses_or_is_gone(smtp_server):
    controller, _ = smtp_server
    wrong = SmtpProvider("127.0.0.1", controller.port, username="jane", password="nope", tls="none")
    with pytest.raises(Exception, match="535|uthentication"):
        await wrong.send(MESSAGE)
    gone = SmtpProvider("127.0.0.1", _free_port(), tls="none", timeout=2)
    with pytest.raises(OSError):
        await gone.send(MESSAGE)


async def test_a_reset_sent_by_smtp_carries_a_link_whose_token_resets_the_password(smtp_server):
    controller, inbox = smtp_server
    # As a process started with SMTP_HOST: the built-in smtp plugin's provider sends
    with configured(smtp_host="127.0.0.1", smtp_port=controller.port, smtp_tls="none", smtp_username="jane",
                    smtp_password="mail-secret", storefront_url="https://shop.example/"):
        customer = await Customer.create(email="jane@example.com", has_account=True, password_hash=hash_password("old"))
        await request_password_reset("Jane@Example.com")
        await hear_events()  # the worker dispatches the request's event: the notifications write the message
        [note] = await Notification.all()
        assert (await deliver(note.id, max_attempts=1))["provider_id"] == "smtp"

        [(_, _, content, _)] = inbox.received
        body = _part(message_from_string(content), "text/plain")
        link = next(word for word in body.split() if word.startswith("https://shop.example/reset-password?"))
        query = parse_qs(urlparse(link).query)
        assert query["email"] == ["jane@example.com"]
        await reset_password("jane@example.com", query["token"][0], "new-password")
        note = await Notification.get(id=note.id)
        assert note.status == "sent" and note.provider_id == "smtp" and query["token"][0] not in note.body
        assert (await Customer.get(id=customer.id)).password_hash != customer.password_hash


async def test_a_shops_templates_shape_the_email_sent_by_smtp(smtp_server, tmp_path):
    # Given a shop's order confirmation templates, and SMTP
    controller, inbox = smtp_server
    (tmp_path / "order.placed.subject.txt").write_text("Order {{ order.display_id }} is ours")
    (tmp_path / "order.placed.txt").write_text("Total {{ order.total }}\n")
    (tmp_path / "order.placed.html").write_text("<p>{{ order.items[0].title }}</p>")
    with configured(smtp_host="127.0.0.1", smtp_port=controller.port, smtp_tls="none", smtp_username="jane",
                    smtp_password="mail-secret", notification_templates=str(tmp_path)):
        await _send_an_order_placed(inbox)


async def _send_an_order_placed(inbox) -> None:
    data = {"order_id": "order_1", "display_id": 7, "email": "ann@example.com", "currency_code": "usd",
            "customer_id": None, "items": [{"title": "Tea & <Mugs>", "variant": None, "quantity": 1,
                                            "total": "1.00 USD"}],
            "total": "1.00 USD", "shipping_total": "0.00 USD", "tax_total": "0.00 USD"}
    note = await queue_message("order.placed", to="ann@example.com", data=data, resource_id="order_1")
    # When the worker sends it
    assert (await deliver(note.id, max_attempts=1))["provider_id"] == "smtp"
    # I expect the shop's subject, text and (escaped) HTML in the email
    [(_, recipients, content, _)] = inbox.received
    email = message_from_string(content)
    assert recipients == ["ann@example.com"] and email["Subject"] == "Order 7 is ours"
    assert _part(email, "text/plain").strip() == "Total 1.00 USD"  # SMTP ends lines with CRLF
    assert _part(email, "text/html").strip() == "<p>Tea &amp; &lt;Mugs&gt;</p>"


async def test_the_smtp_provider_is_chosen_when_smtp_host_is_set():
    """The built-in smtp plugin offers its provider only with SMTP_HOST (services/builtin_plugins.py)."""
    with configured(smtp_host="mail.example"):
        assert isinstance(notifications.provider(), SmtpProvider)
    assert isinstance(notifications.provider(), RecordProvider)


async def test_the_recording_provider_logs_the_message_without_its_token(caplog):
    provider = RecordProvider()
    with caplog.at_level(logging.INFO, logger="commerce.notifications"):
        await provider.send(MESSAGE)
    assert "Reset your password" in caplog.text and "jane@example.com" in caplog.text
    assert "s3cret" not in caplog.text and "[token]" in caplog.text
    assert provider.delivered[-1] is MESSAGE and "s3cret" not in repr(MESSAGE)


async def test_a_failed_send_is_recorded_and_leaves_no_usable_token(monkeypatch):
    class Down:
        id = "down"

        async def send(self, message):
            raise ConnectionRefusedError("mail server unreachable")

    monkeypatch.setattr(notifications, "_provider", Down())
    await Customer.create(email="jane@example.com", has_account=True, password_hash=hash_password("old"))
    await request_password_reset("jane@example.com")
    await hear_events()  # the worker dispatches the request's event: the notifications write the message
    [note] = await Notification.all()
    with pytest.raises(ConnectionRefusedError):
        await deliver(note.id, max_attempts=2)
    note = await Notification.get(id=note.id)
    assert (note.status, note.attempts, note.provider_id) == ("pending", 1, "down")
    assert note.last_error == "ConnectionRefusedError: mail server unreachable"
    with pytest.raises(ConnectionRefusedError):
        await deliver(note.id, max_attempts=2)
    note = await Notification.get(id=note.id)
    assert (note.status, note.attempts) == ("failed", 2)
    assert await OneTimeToken.all().count() == 0


def test_every_send_of_one_notification_carries_the_same_message_id():
    from dataclasses import replace

    from services.notifications.smtp import SmtpProvider

    smtp = SmtpProvider("mail.example", sender="shop@shop.example")
    again = replace(MESSAGE, message_id="noti_01ABC")
    assert smtp._email(again)["Message-ID"] == smtp._email(again)["Message-ID"] == "<noti_01ABC@shop.example>"
    assert smtp._email(MESSAGE)["Message-ID"] != smtp._email(MESSAGE)["Message-ID"]  # no id: a fresh one each


async def test_an_order_message_reads_its_row_and_the_shop_in_one_statement():
    from models import Store
    from services.notifications.delivery import queue_message
    from tests.conftest import count_queries

    store = await Store.first() or await Store.create()
    await Store.filter(id=store.id).update(name="Corner Shop", swap_link_template="https://s.example/{cart_id}")
    data = {"order_id": "order_1", "display_id": 7, "email": "ann@example.com", "currency_code": "usd",
            "customer_id": None, "items": [], "total": "1.00 USD", "shipping_total": "0.00 USD",
            "tax_total": "0.00 USD", "swap_id": "swap_1", "cart_id": "cart_9"}
    note = await queue_message("swap.created", to="ann@example.com", data=data, resource_id="order_1")
    notifications.configure(SETTINGS)  # the recording provider, nothing kept yet
    # When the worker sends it
    async with count_queries() as statements:
        outcome = await deliver(note.id, max_attempts=1)
    # I expect the row and the shop's name and swap link read by one statement (two before),
    # then the outcome written: two statements, and the message carrying both
    assert outcome["sent"] == note.id
    assert len(statements) == 2, statements
    [message] = notifications.provider().delivered
    assert message.subject.startswith("Corner Shop: ") and "https://s.example/cart_9" in message.body
    assert (await Notification.get(id=note.id)).status == "sent"
