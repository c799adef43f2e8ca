"""The address book under `/store/customers/me/addresses`: add, update,
delete, only ever the signed-in customer's own, and never rewriting where an order went."""

import pytest

from models import Address, Customer, Order
from tests.account_factories import forget_rate_limits, guest_order
from tests.cart_factories import shopper

ADDRESS = {"first_name": "Jane", "last_name": "Doe", "address_1": "1 Main St", "city": "Berlin",
           "country_code": "DE", "postal_code": "10115"}


@pytest.fixture(autouse=True)
async def fresh_limits(client):
    yield
    await forget_rate_limits()


@pytest.fixture
async def jane(client):
    return await shopper(client)


@pytest.fixture
async def someone_else():
    other = await Customer.create(email="other@example.com", has_account=True)
    address = await Address.create(customer=other, first_name="Other", address_1="Secret 1", city="Paris",
                                   country_code="fr", postal_code="75001")
    return other, address


async def _add(client, headers, **changes) -> dict:
    r = await client.post("/store/customers/me/addresses", headers=headers, json={"address": {**ADDRESS, **changes}})
    assert r.status_code == 200, r.text
    return r.json()["customer"]


async def test_adding_an_address_saves_it_in_the_book(client, jane):
    customer, headers = jane
    body = await _add(client, headers, phone="+49 1", metadata={"door": "blue"})
    [address] = body["shipping_addresses"]
    assert (address["customer_id"], address["country_code"], address["phone"], address["metadata"]) == (
        customer.id, "de", "+49 1", {"door": "blue"})


async def test_adding_the_same_address_again_adds_nothing(client, jane):
    _, headers = jane
    await _add(client, headers)
    body = await _add(client, headers, country_code="de", company="Ignored Inc")
    assert len(body["shipping_addresses"]) == 1
    body = await _add(client, headers, address_2="Back house")
    assert len(body["shipping_addresses"]) == 2


async def test_adding_refuses_missing_fields_unknown_keys_and_countries(client, jane):
    _, headers = jane
    for payload, message in (
        ({k: v for k, v in ADDRESS.items() if k != "city"}, "city should not be empty"),
        ({**ADDRESS, "street": "x"}, "property street should not exist"),
        ({**ADDRESS, "country_code": "zz"}, "Country with iso_2 zz was not found"),
        ({**ADDRESS, "postal_code": 10115}, "postal_code must be a string"),
    ):
        r = await client.post("/store/customers/me/addresses", headers=headers, json={"address": payload})
        assert r.status_code == 400, payload
        assert r.json() == {"type": "invalid_data", "message": message}
    r = await client.post("/store/customers/me/addresses", headers=headers, json=ADDRESS)
    assert r.status_code == 400
    assert await Address.all().count() == 0


async def test_updating_an_own_address_merges_the_fields(client, jane):
    _, headers = jane
    [address] = (await _add(client, headers, metadata={"a": 1}))["shipping_addresses"]
    r = await client.post(f"/store/customers/me/addresses/{address['id']}", headers=headers,
                          json={"city": "Hamburg", "country_code": "AT", "metadata": {"b": 2}})
    assert r.status_code == 200, r.text
    [changed] = r.json()["customer"]["shipping_addresses"]
    assert (changed["id"], changed["city"], changed["address_1"], changed["country_code"], changed["metadata"]) == (
        address["id"], "Hamburg", "1 Main St", "at", {"a": 1, "b": 2})


async def test_another_customers_address_can_be_neither_updated_nor_deleted(client, jane, someone_else):
    _, headers = jane
    _, theirs = someone_else
    r = await client.post(f"/store/customers/me/addresses/{theirs.id}", headers=headers, json={"city": "Hacked"})
    assert r.status_code == 400
    assert r.json() == {"type": "invalid_data", "message": "Could not find address for customer"}
    r = await client.delete(f"/store/customers/me/addresses/{theirs.id}", headers=headers)
    assert r.status_code == 200
    assert r.json()["customer"]["shipping_addresses"] == []  # nothing of theirs shows
    kept = await Address.get(id=theirs.id)
    assert (kept.city, kept.deleted_at) == ("Paris", None)


async def test_deleting_an_own_address_removes_it_and_unsets_it_as_billing(client, jane):
    customer, headers = jane
    [address] = (await _add(client, headers))["shipping_addresses"]
    await client.post("/store/customers/me", headers=headers, json={"billing_address": address["id"]})
    r = await client.delete(f"/store/customers/me/addresses/{address['id']}", headers=headers)
    assert r.status_code == 200
    body = r.json()["customer"]
    assert body["shipping_addresses"] == [] and body["billing_address_id"] is None
    assert (await Address.get(id=address["id"])).deleted_at is not None
    # a missing address is a silent no-op, as in Medusa v1
    again = await client.delete(f"/store/customers/me/addresses/{address['id']}", headers=headers)
    assert again.status_code == 200


async def test_an_order_keeps_the_address_it_was_shipped_to_when_the_book_changes(client, jane):
    customer, headers = jane
    [address] = (await _add(client, headers))["shipping_addresses"]
    order = await guest_order(customer.email, customer)
    await Order.filter(id=order.id).update(shipping_address_id=address["id"], billing_address_id=address["id"])
    r = await client.post(f"/store/customers/me/addresses/{address['id']}", headers=headers, json={"city": "Munich"})
    assert r.json()["customer"]["shipping_addresses"][0]["city"] == "Munich"
    order = await Order.get(id=order.id)
    assert order.shipping_address_id != address["id"] and order.billing_address_id == order.shipping_address_id
    shipped_to = await Address.get(id=order.shipping_address_id)
    assert (shipped_to.city, shipped_to.address_1, shipped_to.customer_id) == ("Berlin", "1 Main St", None)
    # and deleting the book entry leaves the order's copy alone
    await client.delete(f"/store/customers/me/addresses/{address['id']}", headers=headers)
    assert (await Address.get(id=order.shipping_address_id)).deleted_at is None


async def test_address_routes_answer_for_the_token_holder_only(client, jane, someone_else):
    _, headers = jane
    other, theirs = someone_else
    # a body cannot name another customer
    r = await client.post("/store/customers/me/addresses", headers=headers,
                          json={"address": ADDRESS, "customer_id": other.id})
    assert r.status_code == 400
    assert await Address.filter(customer_id=other.id).count() == 1
