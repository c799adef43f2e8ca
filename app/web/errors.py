"""The one place where errors become HTTP responses. Every error body is JSON:
`{"type", "message"}` plus `code` where Medusa v1 has one (reference admin §1.5)."""

from __future__ import annotations

import logging
from asyncio import CancelledError

from sanic import Request
from sanic.constants import HTTP_METHODS
from sanic.exceptions import (
    BadRequest, Forbidden, MethodNotAllowed, NotFound as RouteNotFound, PayloadTooLarge, SanicException,
    ServiceUnavailable,
)
from sanic.handlers import ErrorHandler
from tortoise.exceptions import IntegrityError, TransactionManagementError, ValidationError

from app.web.auth import has_admin_credentials
from app.web.cors import cors_headers, preflight
from app.web.responses import json
from services.core.errors import DomainError

__all__ = ["JsonErrorHandler", "error_body", "STATUS_BY_KIND"]

log = logging.getLogger("commerce.errors")

STATUS_BY_KIND = {
    "invalid_data": 400,
    "not_allowed": 400,
    "unauthorized": 401,
    "not_found": 404,
    "conflict": 409,
    "duplicate_error": 422,
    "payment_authorization_error": 422,
    "too_many_requests": 429,
    "unexpected_state": 500,
    "database_error": 500,
}
CODE_BY_KIND = {"duplicate_error": "invalid_request_error", "conflict": "invalid_state_error"}
CONFLICT_MESSAGE = (
    "The request conflicted with another request. You may retry the request with the provided "
    "Idempotency-Key."
)


def error_body(kind: str, message: str, code: str | None = None) -> dict:
    body = {"type": kind, "message": message}
    code = code or CODE_BY_KIND.get(kind)
    if code:
        body["code"] = code
    return body


class JsonErrorHandler(ErrorHandler):
    def default(self, request: Request, exception: Exception):
        response = self._respond(request, exception)
        response.headers.update(cors_headers(request))
        return response

    def _respond(self, request: Request, exception: Exception):
        if isinstance(exception, DomainError):
            status = STATUS_BY_KIND.get(exception.kind, 500)
            if status >= 500:
                log.error("%s %s: %s", request.method, request.path, exception.message)
            retry_after = getattr(exception, "retry_after", None)
            headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
            return json(error_body(exception.kind, exception.message, exception.code), status, headers)
        if isinstance(exception, (RouteNotFound, MethodNotAllowed)):
            if request.method == "OPTIONS":
                return preflight(request)
            if request.path.startswith("/admin") and not has_admin_credentials(request):
                return json(error_body("unauthorized", "Unauthorized"), 401)
            if isinstance(exception, MethodNotAllowed):
                allow = {"Allow": ", ".join(_allowed_methods(request, exception))}
                message = f"Method {request.method} is not allowed on {request.path}"
                return json(error_body("not_allowed", message), 405, allow)
            return json(error_body("not_found", f"Route {request.method} {request.path} was not found"), 404)
        if isinstance(exception, PayloadTooLarge):
            if "header" in str(exception).lower():  # Sanic raises the same error for oversized headers
                return json(error_body("invalid_data", "The request headers are too large"), 431)
            return json(error_body("invalid_data", "The request body is too large"), 413)
        if isinstance(exception, Forbidden):
            return json(error_body("not_allowed", str(exception)), 403)
        if isinstance(exception, CancelledError):
            # The client went away (Sanic's RequestCancelled): nothing to answer, nothing broken.
            log.info("client left before the answer to %s %s", request.method, request.path)
            return json(error_body("invalid_data", "The client closed the connection"), 499)
        if isinstance(exception, ServiceUnavailable):  # Sanic's RESPONSE_TIMEOUT
            log.warning("%s %s: %s", request.method, request.path, exception)
            return json(error_body("unexpected_state", "The server took too long to answer"), 503)
        if isinstance(exception, BadRequest):
            return json(error_body("invalid_data", str(exception) or "Bad request"), 400)
        if isinstance(exception, ValidationError):
            # A value the column cannot hold (too long for an id, say): the client's mistake.
            field = str(exception).split(":", 1)[0][:100]
            return json(error_body("invalid_data", f"{field} is too long or not valid"), 400)
        if isinstance(exception, IntegrityError):
            # A constraint the service did not check first: a race with another request.
            log.warning("integrity error on %s %s: %s", request.method, request.path, exception)
            if "foreign key" in str(exception).lower():
                return json(error_body("not_found", "A record the request refers to does not exist."), 404)
            return json(error_body("duplicate_error", "The request conflicts with existing data."), 422)
        if isinstance(exception, TransactionManagementError):
            return json(error_body("conflict", CONFLICT_MESSAGE), 409)
        if isinstance(exception, SanicException) and 400 <= exception.status_code < 500:
            return json(error_body("invalid_data", str(exception)), exception.status_code)
        log.exception("unhandled error on %s %s", request.method, request.path, exc_info=exception)
        return json(error_body("unknown_error", "An unknown error occurred.", "unknown_error"), 500)


def _allowed_methods(request: Request, exception: MethodNotAllowed) -> list[str]:
    """The methods the path answers. The router names them for static paths only; for a path with
    parameters each method is tried (a 405 is rare, and routing is cached)."""
    if exception.allowed_methods:
        return sorted(exception.allowed_methods)
    host = request.headers.getone("host", None)
    allowed = []
    for method in HTTP_METHODS:
        try:
            request.app.router.get(request.path, method, host)
        except SanicException:  # not found, or not allowed
            continue
        allowed.append(method)
    return sorted(allowed)
