"""The one place where errors become HTTP responses. Every error body is JSON:
`{"type", "message"}` plus `code` where Medusa v1 has one."""

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
from app.web.cors import EXPOSED_HEADERS, cors_headers, preflight
from app.web.redis_outages import RedisUnavailable, redis_unreachable
from app.web.request_log import request_id
from app.web.responses import json
from services.orders.placement import InsufficientInventory
from services.core.db_outages import DatabaseUnavailable, transient
from services.core.errors import DomainError

__all__ = ["JsonErrorHandler", "error_body", "domain_answer", "stored_answer", "key_headers", "STATUS_BY_KIND"]

log = logging.getLogger("commerce.errors")

STATUS_BY_KIND = {
    "invalid_data": 400,
    "not_allowed": 400,
    "unauthorized": 401,
    "not_found": 404,
    "conflict": 409,
    "duplicate_error": 422,
    "payment_authorization_error": 422,
    "payment_gateway_error": 502,
    "too_many_requests": 429,
    "unexpected_state": 500,
    "database_error": 500,
}
# Codes answered with another status than their kind's: Stripe's 422 for a key reused for another
# request, and a completion (or an order operation) still to be retried is unavailable for now
# rather than broken.
STATUS_BY_CODE = {
    "idempotency_key_reused": 422, "completion_retrying": 503, "provider_unavailable": 503, "database_unavailable": 503,
    "redis_unavailable": 503,
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


def key_headers(key: str) -> dict[str, str]:
    """What every answer to a request under an Idempotency-Key carries (Medusa exposes the two
    headers to browsers always, not only for an allowed origin)."""
    return {"Idempotency-Key": key, "Access-Control-Expose-Headers": EXPOSED_HEADERS}


def domain_answer(error: DomainError) -> tuple[int, dict, dict[str, str]]:
    """The status, JSON body and headers a domain outcome is answered with: the one mapping."""
    status = STATUS_BY_CODE.get(error.code or "") or STATUS_BY_KIND.get(error.kind, 500)
    headers = key_headers(error.idempotency_key) if error.idempotency_key is not None else {}
    if error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    return status, error_body(error.kind, error.message, error.code), headers


def stored_answer(error: DomainError) -> tuple[int, dict]:
    """The status and body a keyed request that ends in `error` stores as its finished answer
    (every replay of the key answers them). Medusa's cart completion answers a stock shortfall
    409 with one error per short variant; anything else as the handler answers it."""
    if isinstance(error, InsufficientInventory):
        message = "Variant with id: {} does not have the required inventory"
        return 409, {"errors": [error_body(error.kind, message.format(v), error.code) for v in error.variant_ids]}
    status, body, _ = domain_answer(error)
    return status, body


class JsonErrorHandler(ErrorHandler):
    def default(self, request: Request, exception: Exception):
        response = self._respond(request, exception)
        response.headers.update(cors_headers(request))
        return response

    def _respond(self, request: Request, exception: Exception):
        if not isinstance(exception, DomainError) and redis_unreachable(exception):
            log.warning("%s %s: Redis is unavailable: %s: %s", request.method, request.path,
                        type(exception).__name__, exception)
            exception = RedisUnavailable()
        elif not isinstance(exception, DomainError) and transient(exception):
            # The database's passing trouble (a lost connection, a deadlock): the client retries.
            log.warning("%s %s: the database is unavailable: %s: %s", request.method, request.path,
                        type(exception).__name__, exception)
            exception = DatabaseUnavailable()
        if isinstance(exception, DomainError):
            status, body, headers = domain_answer(exception)
            if status == 500:  # a 503 is a retry under way, logged where it stopped
                log.error("%s %s: %s", request.method, request.path, exception.message)
            return json(body, status, headers or None)
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
        # The request id is the answer's X-Request-Id: an operator finds this line from a report.
        # A plugin's route (app/plugin_routes.py) names the plugin, whose code raised.
        plugin = getattr(getattr(request.route, "ctx", None), "plugin", None)
        log.exception("unhandled error on %s %s%s (request %s)", request.method, request.path,
                      f" in plugin {plugin}" if plugin else "", request_id(request), exc_info=exception)
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
