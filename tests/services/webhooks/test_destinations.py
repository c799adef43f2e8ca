"""Where a webhook may go: every address form that reaches a non-global address (the shop's own
network, a cloud's metadata service) is refused, however it is spelled; public addresses pass."""

from __future__ import annotations

import pytest

from services.core.errors import InvalidData
from services.webhooks.destinations import Refused, check_destination, check_url

REFUSED = [
    "http://127.0.0.1/", "http://10.0.0.1/", "http://169.254.169.254/latest", "http://100.64.0.1/",
    "http://192.0.0.8/", "http://192.0.0.170/", "http://224.0.0.1/", "http://0.0.0.0/", "http://127.1/",
    "http://2130706433/",  # 127.0.0.1 as one decimal number
    "http://[::1]/", "http://[::]/", "http://[fe80::1]/", "http://[fc00::1]/", "http://[fec0::1]/",
    "http://[ff02::1]/", "http://[ff0e::1]/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[::ffff:0:a9fe:a9fe]/",  # IPv4-translated (SIIT)
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of the metadata service
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64
    "http://[2002:7f00:1::]/",  # 6to4 of loopback
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",  # Teredo
    "http://[2001:db8::1]/",
]

PUBLIC = [
    "http://93.184.215.14/", "https://1.1.1.1:8443/x", "http://[2606:4700:4700::1111]/",
    "http://[::ffff:93.184.215.14]/", "http://[64:ff9b::5db8:d70e]/", "http://[2002:5db8:d70e::1]/",
]


@pytest.mark.parametrize("url", REFUSED)
async def test_every_form_of_a_non_global_address_is_refused(url):
    with pytest.raises(Refused):
        await check_destination(url, allow_private=False)


@pytest.mark.parametrize("url", PUBLIC)
async def test_public_addresses_and_their_embeddings_pass(url):
    await check_destination(url, allow_private=False)


@pytest.mark.parametrize("url", [
    "http://exa\x00mple.com/", "http://☃.com/", "http://[v1.x]/", "http://example.com:99999/",
])
def test_a_url_no_client_could_call_is_invalid(url):
    with pytest.raises(InvalidData):
        check_url(url)
