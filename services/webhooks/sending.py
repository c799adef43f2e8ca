"""One POST to a webhook URL, made only to an address vetted by destinations.addresses: the name
is resolved once, each address checked, and the connection made to that very address (no second
lookup the receiver's DNS could answer differently), while the request still names the host: the
Host header, and for https the TLS server name and the certificate checked against it. No
redirects are followed and no proxy from the environment is used (either would connect elsewhere).
The whole attempt, answer included, has one deadline, and only the answer's first bytes are read:
a receiver that drips or floods its answer holds a worker no longer than the timeout."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

from services.webhooks.destinations import Refused, addresses

__all__ = ["post", "Answer", "ANSWER_BYTES"]

ANSWER_BYTES = 65536  # of a receiver's answer read (its first 300 characters are logged)


@dataclass(frozen=True)
class Answer:
    status_code: int
    headers: httpx.Headers
    text: str  # the start of the body, at most ANSWER_BYTES of it


async def post(url: str, content: bytes, headers: dict[str, str], allow_private: bool,
               timeout: float) -> Answer:
    """The receiver's answer within `timeout` seconds in all; Refused for an address it may not
    reach, httpx.HTTPError when no vetted address answers, TimeoutError past the deadline."""
    async with asyncio.timeout(timeout):
        return await _post(url, content, headers, allow_private, timeout)


async def _post(url: str, content: bytes, headers: dict[str, str], allow_private: bool, timeout: float) -> Answer:
    try:
        target = httpx.URL(url)
    except httpx.InvalidURL as e:  # saved before check_url refused such URLs
        raise Refused(f"the url is not valid: {e}") from None
    host = target.raw_host.decode("ascii")
    vetted = await addresses(host, target.port or (443 if target.scheme == "https" else 80), allow_private)
    # Uncompressed: a small compressed answer could inflate to any size.
    named = {**headers, "host": target.netloc.decode("ascii"), "accept-encoding": "identity"}
    # One client per call: its pool is keyed by address, which must never serve another name.
    # The environment may name trusted certificates (SSL_CERT_FILE) but no proxy.
    tls = httpx.create_ssl_context(trust_env=True)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False, verify=tls) as client:
        for address in vetted:
            request = client.build_request("POST", target.copy_with(host=address.split("%", 1)[0]),
                                           content=content, headers=named, extensions={"sni_hostname": host})
            try:
                response = await client.send(request, stream=True)
            except httpx.ConnectError as e:
                failure = e  # the next address, as a browser would
                continue
            try:
                return Answer(response.status_code, response.headers, await _start_of(response))
            finally:
                await response.aclose()
    raise failure


async def _start_of(response: httpx.Response) -> str:
    body = bytearray()
    async for chunk in response.aiter_raw():
        body += chunk
        if len(body) >= ANSWER_BYTES:
            break
    return bytes(body[:ANSWER_BYTES]).decode("utf-8", "replace")
