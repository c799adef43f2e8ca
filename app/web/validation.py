"""Body validation: pydantic models whose errors read like Medusa v1's class-validator messages
(`email must be an email`, `property x should not exist`), joined into one invalid_data error."""

from __future__ import annotations

import re
from itertools import accumulate
from datetime import datetime, timezone
from typing import Annotated, Any, Callable, TypeVar

import orjson
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from sanic import Request

from services.carts import line_limits
from services.core.money import MAX_AMOUNT
from services.core import metadata as metadata_rules
from services.core.errors import InvalidData

__all__ = [
    "AddressFields", "Amount", "SignedAmount", "Body", "DateTime", "Email", "NonEmptyStr", "parse_body", "parse_model", "messages_of", "refuse_nul_characters",
    "max_length", "max_items", "max_lines", "MAX_FEW", "MAX_JSON_DEPTH", "read_json_body",
]

M = TypeVar("M", bound=BaseModel)

# Codes, tracking numbers, shipping methods, images or tags in one request: far more than a real one.
MAX_FEW = 100
# Far beyond any body a client sends (metadata included), and far below the recursion limits of
# orjson's encoder (254) and pydantic, which turn a deeper body into a 500.
MAX_JSON_DEPTH = 64

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def _email(value: str) -> str:
    if not _EMAIL.match(value):
        raise PydanticCustomError("email", "must be an email")
    return value


def _non_empty(value: str) -> str:
    if not value:
        raise PydanticCustomError("empty", "should not be empty")
    return value


def max_length(limit: int) -> AfterValidator:
    """A text no longer than `limit` characters (its column's length); None passes."""

    def check(value: str | None) -> str | None:
        if value is not None and len(value) > limit:
            raise PydanticCustomError("invalid", f"must be shorter than or equal to {limit} characters")
        return value

    return AfterValidator(check)


def max_items(limit: int | Callable[[], int]) -> BeforeValidator:
    """A list of at most `limit` items (or of what `limit()` says), refused before its items are
    read, so a long list of bad items costs one `len`. Every list a body carries has this bound or
    `max_lines` (tests/app/web/test_body_bounds.py checks it)."""
    bound = limit if callable(limit) else (lambda: limit)

    def check(value: Any) -> Any:
        if isinstance(value, list) and len(value) > (most := bound()):
            raise PydanticCustomError("invalid", f"must contain no more than {most} elements")
        return value

    check.bound = bound  # type: ignore[attr-defined]
    return BeforeValidator(check)


def max_lines(holder: str) -> BeforeValidator:
    """A list of lines for a `holder` ("cart", "return" ...): at most MAX_LINES_PER_ORDER, refused
    before its items are read, in the words of the services' own check (services/carts/line_limits.py)."""

    def check(value: Any) -> Any:
        if isinstance(value, list) and len(value) > line_limits.max_lines():
            raise PydanticCustomError("lines", line_limits.too_many_lines(holder))
        return value

    check.bound = line_limits.max_lines  # type: ignore[attr-defined]
    return BeforeValidator(check)


Email = Annotated[str, AfterValidator(_non_empty), AfterValidator(_email)]
NonEmptyStr = Annotated[str, AfterValidator(_non_empty)]
# Money in minor units, within what a BIGINT column and the totals arithmetic hold.
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
SignedAmount = Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]  # where Medusa reads below zero as zero


def _date_time(value: Any) -> Any:
    """An ISO 8601 date or date-time, as a JavaScript `Date` reads it; without a zone it is UTC."""
    if not isinstance(value, str):
        return value  # the strict datetime check refuses it with Medusa's message
    try:
        parsed = datetime.fromisoformat(value.strip())
        return parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError):  # OverflowError: beyond year 9999 once in UTC
        raise PydanticCustomError("date", "must be a Date instance") from None


DateTime = Annotated[datetime, BeforeValidator(_date_time)]


class Body(BaseModel):
    """Base of request bodies: unknown keys are refused, types are not coerced, and a `metadata`
    (of any body, nested ones too) is within its bound (services/core/metadata.py)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @field_validator("metadata", check_fields=False)
    @classmethod
    def _metadata_within_bound(cls, value: Any) -> Any:
        if isinstance(value, dict) and (message := metadata_rules.oversized(value)):
            raise PydanticCustomError("invalid", message)
        return value


class AddressFields(Body):
    """An address given as fields (carts, draft orders, customers), every field optional."""

    first_name: str | None = None
    last_name: str | None = None
    phone: str | None = None
    company: str | None = None
    address_1: str | None = None
    address_2: str | None = None
    city: str | None = None
    country_code: str | None = None
    province: str | None = None
    postal_code: str | None = None
    metadata: dict[str, Any] | None = None


_TYPE_MESSAGES = {
    "string_type": "must be a string",
    "int_type": "must be an integer number",
    "int_from_float": "must be an integer number",
    "int_parsing": "must be an integer number",
    "float_type": "must be a number conforming to the specified constraints",
    "float_parsing": "must be a number conforming to the specified constraints",
    "bool_type": "must be a boolean value",
    "bool_parsing": "must be a boolean value",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "list_type": "must be an array",
    "datetime_type": "must be a Date instance",
    "datetime_parsing": "must be a Date instance",
    "datetime_from_date_parsing": "must be a Date instance",
    "greater_than_equal": "must not be less than {ge}",
    "greater_than": "must be greater than {gt}",
    "less_than_equal": "must not be greater than {le}",
}


def _name(loc: tuple) -> str:
    # Medusa names a nested property by its own name; a list index names its array.
    parts = [str(p) for p in loc if not isinstance(p, int)]
    return parts[-1] if parts else "body"


def messages_of(error: ValidationError) -> list[str]:
    out: list[str] = []
    for e in error.errors():
        name, kind = _name(e["loc"]), e["type"]
        if kind == "extra_forbidden":
            msg = f"property {name} should not exist"
        elif kind == "missing":
            msg = f"{name} should not be empty"
        elif kind in ("literal_error", "enum"):
            expected = e.get("ctx", {}).get("expected", "")
            msg = f"{name} must be one of the following values: {expected.replace(' or ', ', ').replace(chr(39), '')}"
        elif kind == "lines":
            msg = e["msg"]
        elif kind in _TYPE_MESSAGES:
            msg = f"{name} {_TYPE_MESSAGES[kind].format(**e.get('ctx', {}))}"
        elif isinstance(e.get("msg"), str) and kind in ("email", "empty", "invalid", "date", "bool"):
            msg = f"{name} {e['msg']}"
        else:
            msg = f"{name} {e['msg'].lower()}"
        if msg not in out:
            out.append(msg)
    return out


def parse_model(model: type[M], data: Any) -> M:
    """`data` (decoded JSON) as `model`. Validated in pydantic's JSON mode: strict mode on Python
    input would refuse an ISO date string for a datetime and a value for an Enum."""
    try:
        return model.model_validate_json(orjson.dumps(data))
    except ValidationError as e:
        raise InvalidData(", ".join(messages_of(e))) from None


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_NESTING = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))


def _too_deep_json(raw: bytes) -> bool:
    """Whether valid JSON `raw` nests deeper than MAX_JSON_DEPTH, from its brackets outside strings:
    C-speed steps only, where a walk of the decoded value costs a Python step per container (a
    third of a second for 200,000)."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_JSON_DEPTH:
        return False  # too few brackets to nest that deep (the common case)
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    return max(accumulate(map(_NESTING.__getitem__, brackets)), default=0) > MAX_JSON_DEPTH


def _too_deep() -> InvalidData:
    return InvalidData(f"The request body is nested deeper than {MAX_JSON_DEPTH} levels")


def read_json_body(request: Request) -> None:
    """Decode a request's JSON body once, before any handler, refusing one nested deeper than
    MAX_JSON_DEPTH; `request.json` and `parse_body` then read the decoded value. A body that is not
    JSON is left to the handler (one that reads no body ignores it, as before)."""
    raw = request.body
    if not raw or raw.isspace() or request.parsed_json is not None:
        return
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        if "depth limit" in str(e):  # orjson's own bound, 1024 levels
            raise _too_deep() from None
        return
    if _too_deep_json(raw):
        raise _too_deep()
    request.parsed_json = data


def parse_body(request: Request, model: type[M]) -> M:
    """The request's JSON body as `model` (decoded by `read_json_body`); an absent body counts as `{}`."""
    raw = request.body
    if request.parsed_json is not None:
        data: Any = request.parsed_json
    elif not raw or not raw.strip():
        data = {}
    else:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise InvalidData("The request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise InvalidData("The request body must be a JSON object")
    return parse_model(model, data)


def refuse_nul_characters(request: Request) -> None:
    """PostgreSQL cannot store or compare text holding NUL, so no request may carry one: in the
    path or query (`%00`) or in the body (raw, or JSON's `\\u0000`)."""
    if "%00" in request.raw_url.decode("latin-1") or (
        request.body and (b"\x00" in request.body or b"\\u0000" in request.body)
    ):
        raise InvalidData("The request contains a NUL character, which no field accepts")
