"""Typed values from the environment's strings, for app/config.py: lists, numbers, booleans and
networks, each refused in one line (ConfigError) naming the variable when it does not parse."""

from __future__ import annotations

import ipaddress

__all__ = ["ConfigError", "as_bool", "as_list", "as_networks", "as_number"]


class ConfigError(Exception):
    """The environment describes a configuration the service refuses to run with."""


def as_list(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    return tuple(v.strip() for v in value.split(",") if v.strip())


def as_number(e, name: str, default, cast=int):
    value = e.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return cast(value)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {value!r}") from None


def as_networks(name: str, value: str | None) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Comma-separated addresses or networks (`10.0.0.2`, `10.0.0.0/8`, `fd00::/8`)."""
    networks = []
    for item in as_list(value):
        try:
            network = ipaddress.ip_network(item)
        except ValueError as e:
            raise ConfigError(
                f"{name}: {item!r} is not an IP address or network such as 10.0.0.2 or 10.0.0.0/8 ({e})"
            ) from None
        if network.prefixlen == 0:
            # Every peer a proxy: any client could name any address in the header.
            raise ConfigError(f"{name}: {item!r} would trust every address; name your proxies' addresses or networks")
        networks.append(network)
    return tuple(networks)


def as_bool(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")
