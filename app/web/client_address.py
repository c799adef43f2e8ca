"""The client's address, as every rate limit, the request log and the cart context see it.

A request from a peer in TRUSTED_PROXIES is answered on behalf of the address its proxy header
names: `X-Forwarded-For`, or RFC 7239 `Forwarded` when TRUSTED_PROXY_HEADER says so. The chain
is read from the right (the hop nearest to us) and trusted proxies are skipped; the first address
that is not one is the client. A hop that names no readable address (`unknown`, an obfuscated
`_name`, garbage) stops the walk: the trusted proxy that wrote it stands for its client. From any
other peer the headers are ignored, since anyone can send them. Sanic's own proxy settings are not
used: they count hops (PROXIES_COUNT) instead of checking who the peer is.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from collections.abc import Iterable

from sanic import Request

__all__ = ["client_address", "read_address", "forwarded_for", "x_forwarded_for"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

# RFC 7239: elements split at commas, pairs at semicolons, outside quoted strings.
_ELEMENT = re.compile(r'(?:[^,"]|"(?:[^"\\]|\\.)*")+')
_PAIR = re.compile(r'\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')
_ESCAPE = re.compile(r"\\(.)")


def client_address(request: Request) -> str:
    """The client's address (IPv4 dotted, IPv6 compressed without brackets), once per request."""
    found = getattr(request.ctx, "client_address", None)
    if found is None:
        found = request.ctx.client_address = _client(request)
    return found


def _client(request: Request) -> str:
    peer = request.ip  # the connection's other end
    settings = request.app.ctx.settings
    trusted = settings.trusted_proxies
    address = read_address(peer)
    if address is None:
        return peer or "unknown"
    if not trusted or not _is_trusted(address, trusted):
        return _text(address)
    values = request.headers.getall(settings.trusted_proxy_header, [])
    hops = forwarded_for(values) if settings.trusted_proxy_header == "forwarded" else x_forwarded_for(values)
    for hop in reversed(hops):
        if hop is None:
            break  # unreadable: the trusted proxy that wrote it stands for its client
        address = hop
        if not _is_trusted(hop, trusted):
            break
    return _text(address)


@lru_cache(maxsize=4096)  # the same few peers ask again and again; `str` of an address is not free
def _text(address: Address) -> str:
    return str(address)


def _is_trusted(address: Address, networks: tuple[Network, ...]) -> bool:
    return any(address in network for network in networks)


def x_forwarded_for(values: Iterable[str]) -> list[Address | None]:
    """The hops of `X-Forwarded-For` header lines, left to right; None for one that is no address."""
    return [read_address(hop) for value in values for hop in value.split(",") if hop.strip()]


def forwarded_for(values: Iterable[str]) -> list[Address | None]:
    """The `for=` of each element of `Forwarded` header lines, left to right; None for an element
    without one or whose node is `unknown`, obfuscated or malformed."""
    hops: list[Address | None] = []
    for value in values:
        for element in _ELEMENT.findall(value):
            if not element.strip():
                continue
            nodes = [given for name, given in _PAIR.findall(element) if name.lower() == "for"]
            hops.append(read_address(nodes[0]) if len(nodes) == 1 else None)
    return hops


@lru_cache(maxsize=4096)  # a pure function of the text; parsing showed on every request's log line
def read_address(node: str | None) -> Address | None:
    """The IP address of a node as proxies write it (`192.0.2.7`, `192.0.2.7:4711`, `2001:db8::1`,
    `[2001:db8::1]:4711`, quoted or not); None for anything else. IPv4-mapped IPv6 reads as IPv4."""
    if not node:
        return None
    text = node.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = _ESCAPE.sub(r"\1", text[1:-1]).strip()
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or (text[end + 1:] and not text[end + 1:].startswith(":")):
            return None
        text = text[1:end]
    elif text.count(":") == 1:
        text = text.partition(":")[0]  # IPv4 with a port
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address
