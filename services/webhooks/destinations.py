"""Where a webhook may go: an http(s) URL whose host resolves only to public addresses. Loopback,
private, link-local, multicast and reserved addresses (the shop's own network, a cloud's metadata
service) are refused unless WEBHOOKS_ALLOW_PRIVATE is set. Checked when an endpoint is saved and
again before every attempt (a name may resolve elsewhere later)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

from services.core.errors import InvalidData

__all__ = ["check_url", "check_destination", "Refused"]


class Refused(Exception):
    """The URL may not be called (its reason is the message)."""


def check_url(url: str) -> str:
    """The URL's shape: InvalidData when it is not an absolute http(s) URL with a host."""
    try:
        parts = urlsplit(url)
    except ValueError:
        raise InvalidData("url must be an http or https URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise InvalidData("url must be an http or https URL with a host and without credentials")
    return url


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


async def check_destination(url: str, allow_private: bool) -> None:
    """Refused when the URL's host is, or resolves to, an address it may not reach."""
    host = urlsplit(url).hostname or ""
    if allow_private:
        return
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise Refused(f"the host {host} does not resolve: {e}") from None
    addresses = {info[4][0] for info in infos}
    blocked = sorted(a for a in addresses if not _public(a))
    if blocked:
        raise Refused(f"the host {host} resolves to a non-public address ({', '.join(blocked)})")
