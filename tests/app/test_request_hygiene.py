"""Values no column can hold are the client's mistake: a JSON 400, never a 500."""

import pytest


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
