"""Messages rendered from templates (services/notifications/rendering.py): the built-in texts, a
shop's folder (NOTIFICATION_TEMPLATES) replacing a kind's subject, text and HTML or only the
layout, a plugin's folder searched after the shop's, a broken template refused at start-up with
its file named, a template failing at send time failing the job, HTML escaping and secrets kept
masked on the row."""

from __future__ import annotations

import pytest

from models import Customer, GiftCard, Notification
from services import notifications
from services.notifications.delivery import deliver, queue_message
from services.notifications.messages import compose
from tests.account_factories import region
from tests.conftest import SETTINGS, settings

PLACED = {
    "order_id": "order_1", "display_id": 7, "email": "ann@example.com", "currency_code": "usd", "customer_id": None,
    "items": [{"title": "Mug", "variant": "Blue", "quantity": 2, "total": "20.00 USD"}],
    "total": "22.00 USD", "shipping_total": "2.00 USD", "tax_total": "0.00 USD",
}


@pytest.fixture
def shop_templates(tmp_path):
    """A folder of the shop's templates; the process is configured back to the built-ins after."""
    yield tmp_path
    notifications.configure(SETTINGS)


def write(folder, name: str, text: str) -> None:
    (folder / name).write_text(text, encoding="utf-8")


async def send(kind: str, data: dict, **columns) -> tuple:
    """Queue a message, deliver it once through the recording provider: what left, and its row."""
    note = await queue_message(kind, to=data.get("email", "ann@example.com"), data=data, resource_id="order_1",
                               **columns)
    await deliver(note.id, max_attempts=3)
    return notifications.provider().delivered[-1], await Notification.get(id=note.id)


async def test_the_built_in_order_placed_message_reads_as_before():
    notifications.configure(SETTINGS)
    message, _ = await send("order.placed", PLACED)
    shop, _, rest = message.subject.partition(": ")
    assert rest == "Order #7 confirmed" and shop
    assert message.body == (
        "Hello,\n\nThank you for your order #7. Here is what you ordered:\n\n2 × Mug (Blue): 20.00 USD\n\n"
        "Shipping: 2.00 USD\nTax: 0.00 USD\nTotal: 22.00 USD\n\n"
        f"Your orders: {SETTINGS.storefront_url}/account/orders\n\n— {shop}\n"
    )
    assert "<td" in message.html and "2 × Mug (Blue)" in message.html and f"— {shop}" in message.html


def test_the_built_in_password_reset_reads_as_before_and_now_has_html():
    composed = compose("customer.password_reset", {"id": "cus_1", "email": "a@b.c", "first_name": "Ann"},
                       "tok-1", "https://shop.example/")
    assert composed.subject == "Reset your password"
    assert composed.body == (
        "Hello Ann,\n\nSomeone asked to reset the password of the account a@b.c. To choose a new password, open "
        "this link within 15 minutes (it works once):\n\nhttps://shop.example/reset-password?email=a%40b.c&token=tok-1"
        "\n\nIf it was not you, ignore this message: your password stays as it is.\n"
    )
    # the link's & written as HTML writes it
    assert 'href="https://shop.example/reset-password?email=a%40b.c&amp;token=tok-1"' in composed.html


async def test_a_shops_override_changes_the_order_placed_subject_text_and_html(shop_templates):
    # Given a shop's folder replacing the three templates of order.placed
    write(shop_templates, "order.placed.subject.txt", "Thanks from {{ store.name }} — #{{ order.display_id }}\n")
    write(shop_templates, "order.placed.txt", "{% for i in order.items %}{{ i.title }}{% endfor %} for {{ order.total }}\n")
    write(shop_templates, "order.placed.html", "<h1>{{ order.email }}</h1><a href='{{ links.message }}'>orders</a>")
    notifications.configure(settings(notification_templates=str(shop_templates)))
    # When an order-placed message is sent
    message, note = await send("order.placed", PLACED)
    # I expect the shop's words, and the row keeping them
    assert message.subject.startswith("Thanks from ") and message.subject.endswith(" — #7")
    assert message.body == "Mug for 22.00 USD\n"
    assert message.html == f"<h1>ann@example.com</h1><a href='{SETTINGS.storefront_url}/account/orders'>orders</a>"
    assert (note.status, note.subject, note.body) == ("sent", message.subject, message.body)


async def test_an_override_of_the_layout_brands_every_message_and_may_extend_the_built_in_one(shop_templates):
    # Given a shop's base.html that keeps the built-in layout and changes its header only
    write(shop_templates, "base.html",
          '{% extends "builtin/base.html" %}{% block header %}<img alt="Brand {{ store.name }}">{% endblock %}')
    notifications.configure(settings(notification_templates=str(shop_templates)))
    # When an order message and a password reset are composed
    message, _ = await send("order.placed", PLACED)
    reset = compose("customer.password_reset", {"id": "cus_1", "email": "a@b.c"}, "tok-1", "https://shop.example/")
    # I expect both in the shop's header, with the built-in layout's body and signature
    for html in (message.html, reset.html):
        assert '<img alt="Brand ' in html and "<h1" not in html and "</body>" in html
    assert "2 × Mug (Blue)" in message.html and "reset-password?" in reset.html


async def test_the_shops_folder_is_searched_before_a_plugins_and_the_built_in_ones(shop_templates, tmp_path_factory):
    plugin = tmp_path_factory.mktemp("plugin")
    write(plugin, "order.placed.subject.txt", "plugin's")
    write(plugin, "order.refund_created.subject.txt", "plugin's")
    write(shop_templates, "order.placed.subject.txt", "shop's")
    notifications.configure(settings(notification_templates=str(shop_templates)), template_dirs=[plugin])
    assert (await send("order.placed", PLACED))[0].subject == "shop's"
    assert (await send("order.refund_created", {**PLACED, "refund": "1.00 USD"}))[0].subject == "plugin's"
    assert (await send("order.items_returned", PLACED))[0].subject.endswith(": We received your return for order #7")


@pytest.mark.parametrize("name, text, says", [
    ("order.placed.html", "<p>{% if order.total %}unclosed</p>", "order.placed.html, line 1"),
    ("nested/base.txt", "{{ store.name | no_such_filter }}", "base.txt"),
    ("gift_card.created.txt", '{% extends "no_such_layout.txt" %}', "gift_card.created.txt"),
])
def test_a_broken_override_is_refused_at_start_up_with_its_file_named(shop_templates, name, text, says):
    (shop_templates / name).parent.mkdir(exist_ok=True)
    write(shop_templates, name, text)
    with pytest.raises(ValueError, match="notification template") as refused:
        notifications.configure(settings(notification_templates=str(shop_templates)))
    assert says in str(refused.value) and str(shop_templates) in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_templates_folder_that_does_not_exist_is_refused(shop_templates):
    with pytest.raises(ValueError, match="is not a folder"):
        notifications.configure(settings(notification_templates=str(shop_templates / "missing")))


async def test_a_template_failing_at_send_time_fails_the_job_and_the_row_keeps_the_error(shop_templates):
    write(shop_templates, "order.placed.txt", "{{ data.no_such_thing.deeper }}")
    notifications.configure(settings(notification_templates=str(shop_templates)))
    note = await queue_message("order.placed", to="ann@example.com", data=PLACED, resource_id="order_1")
    with pytest.raises(Exception, match="no_such_thing"):
        await deliver(note.id, max_attempts=3)
    note = await Notification.get(id=note.id)
    assert (note.status, note.attempts) == ("pending", 1) and "no_such_thing" in note.last_error


async def test_html_escapes_the_data_and_text_does_not():
    notifications.configure(SETTINGS)
    title = "<script>alert(1)</script> & Co"
    message, _ = await send("order.placed", {**PLACED, "items": [{**PLACED["items"][0], "title": title}]})
    assert "<script>" not in message.html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co" in message.html
    assert title in message.body


async def test_a_secret_a_template_puts_anywhere_is_masked_on_the_row(shop_templates):
    # Given a shop whose gift card subject and HTML show the code, one with a character HTML escapes
    write(shop_templates, "gift_card.created.subject.txt", "Your code {{ data.code }}")
    write(shop_templates, "gift_card.created.html", "<b>{{ data.code }}</b>")
    notifications.configure(settings(notification_templates=str(shop_templates)))
    card = await GiftCard.create(code="GIFT<&>CODE", value=5000, balance=5000, region=await region(),
                                 order_id="order_1")
    data = {**PLACED, "gift_card_id": card.id, "value": "50.00 USD"}
    # When it is sent
    message, note = await send("gift_card.created", data)
    # I expect the shopper to get the code, and no copy that is kept to show it
    assert message.subject == "Your code GIFT<&>CODE" and "GIFT&lt;&amp;&gt;CODE" in message.html
    kept = message.masked()
    assert "GIFT" not in repr([note.subject, note.body, note.data, kept.subject, kept.body, kept.html, kept.data])


async def test_a_message_about_a_customer_greets_them_by_name(shop_templates):
    write(shop_templates, "order.placed.txt", "Dear {{ customer.first_name }} {{ customer.last_name }}\n")
    notifications.configure(settings(notification_templates=str(shop_templates)))
    jane = await Customer.create(email="jane@example.com", first_name="Jane", last_name="Doe")
    message, _ = await send("order.placed", {**PLACED, "customer_id": jane.id}, customer_id=jane.id)
    assert message.body == "Dear Jane Doe\n"
