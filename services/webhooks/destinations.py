"""Where a webhook may go: an http(s) URL whose host resolves only to public addresses. Loopback,
private, link-local, site-local, multicast and reserved addresses (the shop's own network, a
cloud's metadata service) are refused unless WEBHOOKS_ALLOW_PRIVATE is set, and so is every IPv6
form that carries such an IPv4 address inside it (mapped, compatible, NAT64, 6to4, Teredo).
Checked when an endpoint is saved, and on the very addresses a delivery then connects to
(`addresses`; see sending.py), so a name cannot resolve elsewhere in between."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

import httpx

from services.core.errors import InvalidData

__all__ = ["check_url", "check_destination", "addresses", "is_public", "Refused"]


class Refused(Exception):
    """The URL may not be called (its reason is the message)."""


def check_url(url: str) -> str:
    """The URL's shape: InvalidData when it is not an absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port out of range
        httpx.URL(url)  # what sending.py will call: a URL it cannot parse is refused now
    except (ValueError, httpx.InvalidURL):
        raise InvalidData("url must be an http or https URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise InvalidData("url must be an http or https URL with a host and without credentials")
    return url


_NETS = ipaddress.ip_network
# Older Pythons call these global: IETF protocol assignments (192.0.0.8 ...), the retired 6to4
# relay anycast, multicast; site-local, Teredo (its client address is obscured) and local-use NAT64.
_REFUSED_V4 = (_NETS("192.0.0.0/24"), _NETS("192.88.99.0/24"), _NETS("224.0.0.0/4"))
_REFUSED_V6 = (_NETS("fec0::/10"), _NETS("ff00::/8"), _NETS("2001::/32"), _NETS("64:ff9b:1::/48"))
# Prefixes whose last 32 bits are an IPv4 address: compatible, translated (SIIT), NAT64.
_LOW_V4 = (_NETS("::/96"), _NETS("::ffff:0:0:0/96"), _NETS("64:ff9b::/96"))


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if any(ip in net for net in _LOW_V4):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _public_v4(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not any(ip in net for net in _REFUSED_V4)


def is_public(address: str) -> bool:
    """Whether a webhook may connect to this IP address: it is global, and so is any IPv4
    address it carries."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return _public_v4(ip)
    if any(ip in net for net in _REFUSED_V6):
        return False
    embedded = _embedded_v4(ip)
    return _public_v4(embedded) if embedded is not None else ip.is_global


async def addresses(host: str, port: int, allow_private: bool) -> list[str]:
    """The addresses `host` resolves to now, in the resolver's order; Refused when it does not
    resolve or when any of them is not public (unless private ones are allowed)."""
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as e:
        raise Refused(f"the host {host} does not resolve: {e}") from None
    found = list(dict.fromkeys(info[4][0] for info in infos))
    if not found:
        raise Refused(f"the host {host} does not resolve")
    blocked = [] if allow_private else sorted(a for a in found if not is_public(a))
    if blocked:
        raise Refused(f"the host {host} resolves to a non-public address ({', '.join(blocked)})")
    return found


async def check_destination(url: str, allow_private: bool) -> None:
    """Refused when the URL's host is, or resolves to, an address it may not reach."""
    if allow_private:
        return
    parts = urlsplit(url)
    await addresses(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80), False)
