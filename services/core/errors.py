"""Domain errors: a closed set of kinds that the web tier maps to HTTP in one place."""

__all__ = [
    "DomainError", "InvalidData", "NotAllowed", "NotFound", "Duplicate", "Conflict",
    "Unauthorized", "PaymentError", "GatewayUnavailable", "UnexpectedState", "TooManyAttempts",
]


class DomainError(Exception):
    """Base of every error a service raises on purpose. `kind` is Medusa's error type."""

    kind = "unexpected_state"
    # What the web tier echoes when set: the request's Idempotency-Key, and the seconds after
    # which a retry may succeed (Retry-After).
    idempotency_key: str | None = None
    retry_after: int | None = None

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.code = code


class InvalidData(DomainError):
    kind = "invalid_data"


class NotAllowed(DomainError):
    kind = "not_allowed"


class NotFound(DomainError):
    kind = "not_found"


class Duplicate(DomainError):
    kind = "duplicate_error"


class Conflict(DomainError):
    kind = "conflict"


class Unauthorized(DomainError):
    kind = "unauthorized"


class PaymentError(DomainError):
    kind = "payment_authorization_error"


class GatewayUnavailable(DomainError):
    """A payment gateway did not answer, or failed on its side: nothing of ours changed."""

    kind = "payment_gateway_error"


class UnexpectedState(DomainError):
    kind = "unexpected_state"


class TooManyAttempts(DomainError):
    """Refused for a while (sign-in failures, order look-ups, messages asked for): `retry_after`
    is the number of seconds until the caller may try again."""

    kind = "too_many_requests"

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after
