"""One POST to a webhook URL, made only to an address vetted by destinations.addresses: the name
is resolved once, each address checked, and the connection made to that very address (no second
lookup the receiver's DNS could answer differently), while the request still names the host: the
Host header, and for https the TLS server name and the certificate checked against it. No
redirects are followed and no proxy from the environment is used (either would connect elsewhere)."""

from __future__ import annotations

import httpx

from services.webhooks.destinations import Refused, addresses

__all__ = ["post"]


async def post(url: str, content: bytes, headers: dict[str, str], allow_private: bool,
               timeout: float) -> httpx.Response:
    """The receiver's response (seconds for `timeout`, per phase); Refused for an address it may
    not reach, httpx.HTTPError when no vetted address answers."""
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as e:  # saved before check_url refused such URLs
        raise Refused(f"the url is not valid: {e}") from None
    host = target.raw_host.decode("ascii")
    vetted = await addresses(host, target.port or (443 if target.scheme == "https" else 80), allow_private)
    named = {**headers, "host": target.netloc.decode("ascii")}
    # One client per call: its pool is keyed by address, which must never serve another name.
    # The environment may name trusted certificates (SSL_CERT_FILE) but no proxy.
    tls = httpx.create_ssl_context(trust_env=True)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False, verify=tls) as client:
        for address in vetted:
            try:
                return await client.post(target.copy_with(host=address.split("%", 1)[0]), content=content,
                                         headers=named, extensions={"sni_hostname": host})
            except httpx.ConnectError as e:
                failure = e  # the next address, as a browser would
    raise failure
