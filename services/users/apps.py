"""Third-party applications that authorize against the store through OAuth.

An application plugs in with two parts: a row in `oauth` (written by `install_app` when its
plug-in is installed, holding the `state` the authorization must echo) and an `OAuthHandler`
registered in code under the same `application_name`. When the third party sends the admin back
with a code, `authorize_app` checks the state, asks the handler to trade the code for credentials,
and stores them as the application's `data`.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any, Protocol

from models import OAuthApp
from services.core.errors import InvalidData, NotAllowed, NotFound, UnexpectedState
from services.core.ids import fits

__all__ = [
    "OAuthHandler", "OAuthRegistry", "InMemoryOAuthHandler", "oauth_handlers", "list_apps", "install_app",
    "authorize_app",
]


class OAuthHandler(Protocol):
    async def generate_token(self, code: str) -> dict[str, Any]:
        """Trade an authorization code for credentials (stored as the application's `data`).
        A code the provider refuses is a domain error (`NotAllowed`, `InvalidData`)."""
        ...


class OAuthRegistry:
    """The handlers, by `application_name`. Plug-ins register theirs when they are loaded."""

    def __init__(self) -> None:
        self._handlers: dict[str, OAuthHandler] = {}

    def register(self, application_name: str, handler: OAuthHandler) -> None:
        self._handlers[application_name] = handler

    def unregister(self, application_name: str) -> None:
        self._handlers.pop(application_name, None)

    def get(self, application_name: str) -> OAuthHandler | None:
        return self._handlers.get(application_name)


oauth_handlers = OAuthRegistry()


class InMemoryOAuthHandler:
    """A real provider kept in memory: it grants codes, and trades each one once for a token."""

    def __init__(self) -> None:
        self._codes: set[str] = set()
        self.issued: list[dict[str, Any]] = []

    def grant(self) -> str:
        """A new authorization code, as the provider would send back to the admin."""
        code = secrets.token_urlsafe(16)
        self._codes.add(code)
        return code

    async def generate_token(self, code: str) -> dict[str, Any]:
        if code not in self._codes:
            raise NotAllowed("The authorization code is not valid or was already used")
        self._codes.discard(code)
        credentials = {"access_token": secrets.token_urlsafe(24), "token_type": "bearer"}
        self.issued.append(credentials)
        return credentials


async def list_apps() -> list[OAuthApp]:
    return await OAuthApp.all().order_by("id")  # ids are ULIDs: the order of installation


async def install_app(
    application_name: str, display_name: str, *, install_url: str | None = None,
    uninstall_url: str | None = None, data: dict[str, Any] | None = None,
) -> OAuthApp:
    """Record an application (again): a plug-in calls this when it is installed."""
    app, _ = await OAuthApp.update_or_create(
        application_name=application_name,
        defaults={"display_name": display_name, "install_url": install_url, "uninstall_url": uninstall_url,
                  "data": data},
    )
    return app


async def authorize_app(
    application_name: str, state: str, code: str, registry: OAuthRegistry = oauth_handlers
) -> OAuthApp:
    app = None
    if fits(OAuthApp, application_name, "application_name"):
        app = await OAuthApp.get_or_none(application_name=application_name)
    if app is None:
        raise NotFound(f"Oauth application {application_name} not found")
    handler = registry.get(application_name)
    if handler is None:
        raise InvalidData(
            f"An OAuth handler for {app.display_name} could not be found make sure the plugin is installed"
        )
    expected = app.data.get("state") if isinstance(app.data, dict) else None
    if not isinstance(expected, str) or not hmac.compare_digest(expected.encode(), state.encode()):
        raise NotAllowed(f"{app.display_name} could not match state")
    # The handler talks to the third party: no transaction is held open meanwhile.
    credentials = await handler.generate_token(code)
    if not isinstance(credentials, dict):
        raise UnexpectedState(f"The OAuth handler for {app.display_name} returned no credentials")
    app.data = credentials
    await app.save(update_fields=["data"])
    return app
