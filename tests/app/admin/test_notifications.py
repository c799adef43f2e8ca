"""Admin notifications: the list an order's timeline reads, and resending."""

from __future__ import annotations

import pytest

from models import Invite, Job, Notification, User
from services.notifications.messages import INVITE_CREATED, MASK, PASSWORD_RESET
from services.users.users import create_user
from tests.account_factories import deliver_pending, sent_to, token_sent_to
from tests.cart_factories import shopper
from tests.conftest import count_queries
from tests.order_factories import place_order

MEDUSA_DEFAULT = {
    "id", "resource_type", "resource_id", "event_name", "to", "provider_id", "created_at", "updated_at", "resends",
}
NOT_ADMIN = {"type": "not_allowed", "message": "Only an admin can resend invitations"}


pytestmark = pytest.mark.usefixtures("fresh_limits")


async def reset_message(client, mailbox) -> tuple[object, Notification, str]:
    """A customer who asked for a password reset, the message sent, and its token."""
    customer, _ = await shopper(client)
    r = await client.post("/store/customers/password-token", json={"email": customer.email})
    assert r.status_code == 204
    token = await token_sent_to(mailbox, customer.email)
    return customer, await Notification.get(event_name=PASSWORD_RESET), token


async def member_headers(client) -> dict:
    """A signed-in user with the `member` role."""
    await create_user("member@test.com", "member-secret")
    r = await client.post("/admin/auth/token", json={"email": "member@test.com", "password": "member-secret"})
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


async def admin_invitation(client, admin_headers) -> Notification:
    """An admin invitation waiting for its invitee, its message sent."""
    r = await client.post("/admin/invites", headers=admin_headers, json={"user": "boss@test.com", "role": "admin"})
    assert r.status_code == 200, r.text
    await deliver_pending()
    return await Notification.get(event_name=INVITE_CREATED)


async def order_message(order_id: str, event_name: str = "order.placed", **columns) -> Notification:
    return await Notification.create(
        event_name=event_name, resource_type=event_name.split(".")[0], resource_id=order_id,
        to="shopper@example.com", data={"id": order_id}, status="sent", **columns,
    )


async def test_notification_routes_need_a_signed_in_user(client, seeded):
    note = await order_message("order_1")
    assert (await client.get("/admin/notifications")).status_code == 401
    assert (await client.post(f"/admin/notifications/{note.id}/resend", json={})).status_code == 401


async def test_the_timeline_query_lists_an_orders_messages_newest_first_in_medusas_shape(
    client, admin_headers, seeded,
):
    # Given two messages about an order and one about another
    order, other = await place_order(client), await place_order(client)
    first, second = await order_message(order.id), await order_message(order.id, "order.shipment_created")
    await order_message(other.id)
    # When the order page asks for its timeline
    r = await client.get("/admin/notifications", headers=admin_headers,
                         params={"resource_type": "order", "resource_id": order.id})
    # I expect its two messages, newest first, with Medusa's default keys
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["count"], body["limit"], body["offset"]) == (2, 50, 0)
    assert [n["id"] for n in body["notifications"]] == [second.id, first.id]
    assert set(body["notifications"][0]) == MEDUSA_DEFAULT and body["notifications"][0]["resends"] == []


async def test_filters_fields_and_limits(client, admin_headers, seeded):
    a = await order_message("order_a")
    await order_message("order_b", "order.canceled")
    r = await client.get("/admin/notifications", headers=admin_headers, params={
        "event_name": "order.placed,order.refund_created", "fields": "id,to,data,status", "expand": "", "limit": 500,
    })
    body = r.json()
    assert body["limit"] == 100 and [n["id"] for n in body["notifications"]] == [a.id]
    assert body["notifications"][0] == {
        "id": a.id, "to": "shopper@example.com", "data": {"id": "order_a"}, "status": "sent",
        "created_at": body["notifications"][0]["created_at"],
    }
    for params, message in (
        ({"include_resends": "maybe"}, "include_resends must be a boolean value"),
        ({"customer_id": "x"}, "property customer_id should not exist"),
        ({"fields": "body"}, "Requested fields [body] are not valid"),
    ):
        r = await client.get("/admin/notifications", headers=admin_headers, params=params)
        assert (r.status_code, r.json()["message"]) == (400, message), params


async def test_a_resend_mints_a_fresh_token_and_shows_under_its_original(client, admin_headers, seeded, mailbox):
    # Given a password-reset message that was sent, its token masked on the row
    customer, note, first_token = await reset_message(client, mailbox)
    assert first_token not in (note.body or "") and MASK in note.body
    # When the back office resends it
    r = await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers, json={})
    # I expect the original with its resend, the resend queued through the outbox
    assert r.status_code == 200, r.text
    body = r.json()["notification"]
    [again] = body["resends"]
    assert body["id"] == note.id and again["to"] == customer.email and again["event_name"] == PASSWORD_RESET
    assert await Job.filter(actor_name="send_notification", args=[again["id"]]).exists()
    # and once sent, a new working token, never the masked body
    await deliver_pending()
    [_, resent] = sent_to(mailbox, customer.email)
    token = resent.data["token"]
    assert token != first_token and token in resent.body and MASK not in resent.body
    r = await client.post("/store/customers/password-reset",
                          json={"email": customer.email, "token": token, "password": "brand-new-secret"})
    assert r.status_code == 200, r.text
    # Only originals are listed unless resends are asked for
    listed = await client.get("/admin/notifications", headers=admin_headers, params={"resource_id": customer.id})
    assert [n["id"] for n in listed.json()["notifications"]] == [note.id]
    listed = await client.get("/admin/notifications", headers=admin_headers,
                              params={"resource_id": customer.id, "include_resends": "true"})
    assert {n["id"] for n in listed.json()["notifications"]} == {note.id, again["id"]}


async def test_a_message_with_a_token_is_resent_only_to_its_address(client, admin_headers, seeded, mailbox):
    _, note, _ = await reset_message(client, mailbox)
    r = await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers,
                          json={"to": "attacker@example.com"})
    assert (r.status_code, r.json()["type"]) == (400, "invalid_data")
    assert await Notification.all().count() == 1


async def test_a_member_cannot_resend_an_invitation_to_become_admin(client, admin_headers, seeded, mailbox):
    # Given an admin invitation waiting for its invitee, and a member of the team
    note = await admin_invitation(client, admin_headers)
    member = await member_headers(client)
    # When the member resends it to their own address, or to the invitee
    for body in ({"to": "member@test.com"}, {}):
        r = await client.post(f"/admin/notifications/{note.id}/resend", headers=member, json=body)
        # I expect a refusal, no message queued, and no invite token in the member's mailbox
        assert (r.status_code, r.json()) == (400, NOT_ADMIN)
    assert await Notification.all().count() == 1
    await deliver_pending()
    assert sent_to(mailbox, "member@test.com") == []
    assert not await User.filter(role="admin", email="member@test.com").exists()


async def test_an_invitation_is_resent_only_to_its_invitee(client, admin_headers, seeded, mailbox):
    note = await admin_invitation(client, admin_headers)
    r = await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers,
                          json={"to": "someone-else@test.com"})
    assert (r.status_code, r.json()["type"]) == (400, "invalid_data")
    assert await Notification.all().count() == 1
    # The invitee may have it again, with a link that still works
    r = await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers, json={})
    assert r.status_code == 200 and r.json()["notification"]["resends"][0]["to"] == "boss@test.com"
    token = await token_sent_to(mailbox, "boss@test.com")
    r = await client.post("/admin/invites/accept", json={"token": token, "user": {"password": "boss-secret"}})
    assert r.status_code == 200 and await Invite.filter(accepted=True).exists()


async def test_a_resend_of_a_resend_goes_only_to_the_original_address(client, admin_headers, seeded, mailbox):
    # Given a reset message with a resend recorded to another address (as an older version allowed)
    _, note, _ = await reset_message(client, mailbox)
    stray = await Notification.create(
        event_name=note.event_name, resource_type=note.resource_type, resource_id=note.resource_id,
        customer_id=note.customer_id, to="attacker@example.com", data=note.data, status="sent", parent_id=note.id,
    )
    # When someone resends that resend to the address it carries
    r = await client.post(f"/admin/notifications/{stray.id}/resend", headers=admin_headers, json={})
    # I expect a refusal: the original's address is the only one
    assert (r.status_code, r.json()["type"]) == (400, "invalid_data")
    assert await Notification.all().count() == 2


async def test_a_message_without_a_token_may_go_to_another_address(client, admin_headers, seeded):
    note = await order_message("order_1", "order-edit.requested")
    r = await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers,
                          json={"to": "other@example.com"})
    assert r.status_code == 200 and r.json()["notification"]["resends"][0]["to"] == "other@example.com"


async def test_resend_of_an_unknown_notification_is_not_found(client, admin_headers, seeded):
    r = await client.post("/admin/notifications/noti_missing/resend", headers=admin_headers, json={})
    assert (r.status_code, r.json()) == (
        404, {"type": "not_found", "message": "Notification with id: noti_missing was not found."},
    )


async def test_a_page_with_resends_takes_the_same_statements_for_one_or_many(client, admin_headers, seeded):
    note = await order_message("order_1", "order-edit.requested")
    await client.post(f"/admin/notifications/{note.id}/resend", headers=admin_headers, json={})
    async with count_queries() as one:
        r = await client.get("/admin/notifications", headers=admin_headers)
    assert len(r.json()["notifications"]) == 1
    for n in range(4):
        other = await order_message(f"order_{n + 2}", "order-edit.requested")
        await client.post(f"/admin/notifications/{other.id}/resend", headers=admin_headers, json={})
    async with count_queries() as many:
        r = await client.get("/admin/notifications", headers=admin_headers)
    assert len(r.json()["notifications"]) == 5 and all(len(n["resends"]) == 1 for n in r.json()["notifications"])
    assert len(one) == len(many), (len(one), len(many))
