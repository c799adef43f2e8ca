"""The request conventions shared by /admin and /store, in one place.

- Query strings are read with `qs` semantics: `a[]=v`, `a[0]=v`, `a[key]=v`, repeated keys.
- A one-element array is split on commas (`status[]=a,b`).
- `limit`, `offset`, `order` (`-` for descending), `expand` (replaces the default relations;
  empty means none) and `fields` (replaces the default columns, or `+f`/`-f` adjusts them) are
  checked against the resource's allow-lists: anything else is a 400 invalid_data.
- Every other key is a filter validated by the resource's filter model; unknown keys are a 400,
  and so is any integer in a filter beyond an INTEGER column's range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from functools import cache
from typing import Annotated, Any, Union
from urllib.parse import parse_qsl

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import PydanticCustomError

from app.web.validation import messages_of
from services.core.errors import InvalidData
from services.core.listing import FindConfig

__all__ = [
    "QuerySpec", "ParsedQuery", "Filters", "DateComparison", "StrList", "BoolStr", "parse_qs", "query_key",
    "parse_query", "MAX_LIMIT", "MAX_REFERENCE_LIMIT",
]

# Medusa v1 has none; a larger `limit` is clamped (and the applied one echoed) so that one request
# cannot load a table: a page of 100 products with their relations is already ~0.6 MB.
MAX_LIMIT = 100
# Small reference lists (regions, currencies) that clients load whole: the dashboard's price
# editors ask for `limit: 1000` regions and would silently miss any past a smaller clamp.
MAX_REFERENCE_LIMIT = 1000
_MAX_OFFSET = 2**63 - 1  # the largest OFFSET SQL accepts (bigint); beyond it the database fails
_INT_MIN, _INT_MAX = -2**31, 2**31 - 1  # an INTEGER column's range: every integer filter is held to it
_MAX_DEPTH = 5
_KEY = re.compile(r"^([^\[\]]+)((?:\[[^\[\]]*\])*)$")
_SEGMENT = re.compile(r"\[([^\[\]]*)\]")


# ---------------------------------------------------------------- qs-style parsing

def parse_qs(query_string: str) -> dict[str, Any]:
    """Parse like Node's `qs` (as Medusa v1 does): nested objects and arrays from brackets."""
    root: dict[str, Any] = {}
    for key, value in parse_qsl(query_string, keep_blank_values=True):
        m = _KEY.match(key)
        if not m:
            _assign(root, [key], value)
            continue
        path = [m.group(1)] + _SEGMENT.findall(m.group(2))[:_MAX_DEPTH]
        _assign(root, path, value)
    return _finish(root)


def query_key(query_string: str) -> str:
    """The query as `parse_qs` reads it (decoded), in one order: parameters sorted by name (the text
    before any `[`), keeping the order among those of one name, which `qs` arrays depend on. Query
    strings with the same key parse to the same query (each name fills its own part of it)."""
    pairs = parse_qsl(query_string, keep_blank_values=True)
    pairs.sort(key=lambda pair: pair[0].split("[", 1)[0])
    return repr(pairs)


class _Indexed(dict):
    """A node built from `a[0]=…`/`a[]=…`; becomes a list once parsing ends."""


def _is_index(seg: str) -> bool:
    return seg.isascii() and seg.isdigit()  # `int()` refuses some Unicode digits (`²`)


def _key(node: dict, seg: str) -> Any:
    return int(seg) if isinstance(node, _Indexed) and _is_index(seg) else seg


def _next_index(node: dict) -> int:
    return max((k for k in node if isinstance(k, int)), default=-1) + 1


def _assign(node: dict, path: list[str], value: str) -> None:
    *parents, last = path
    for i, seg in enumerate(parents):
        nxt_is_index = path[i + 1] == "" or _is_index(path[i + 1])
        seg = _key(node, seg)
        child = node.get(seg)
        if not isinstance(child, dict):
            child = _Indexed() if nxt_is_index else {}
            if seg in node and not isinstance(node[seg], dict):
                child[0 if nxt_is_index else ""] = node[seg]
            node[seg] = child
        node = child
    if last == "":
        node[_next_index(node)] = value
        return
    key = _key(node, last)
    if key not in node:
        node[key] = value
    elif isinstance(node[key], _Indexed):  # `a[]=x&a=y`: the plain key adds to the array
        node[key][_next_index(node[key])] = value
    else:
        existing = node[key]
        node[key] = (existing if isinstance(existing, list) else [existing]) + [value]


def _finish(node: Any) -> Any:
    if isinstance(node, _Indexed):
        items = []
        for k in sorted(node, key=lambda k: (not isinstance(k, int), k if isinstance(k, int) else 0)):
            items.append(_finish(node[k]))
        flat: list = []
        for item in items:
            flat.extend(item if isinstance(item, list) else [item])
        return flat
    if isinstance(node, dict):
        return {k: _finish(v) for k, v in node.items()}
    return node


def _normalize(query: dict[str, Any]) -> dict[str, Any]:
    """A one-element array is split on commas: `status[]=a,b` means ["a", "b"]."""
    out = {}
    for k, v in query.items():
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], str):
            v = [p for p in v[0].split(",") if p != ""]
        out[k] = v
    return out


# ---------------------------------------------------------------- filter field types

def _to_datetime(value: Any) -> Any:
    if isinstance(value, (datetime, date)) or not isinstance(value, str):
        return value
    v = value.strip()
    try:
        if re.fullmatch(r"-?\d+(\.\d+)?", v):  # unix seconds, as Medusa v1 reads numbers
            return datetime.fromtimestamp(float(v), tz=timezone.utc)
        parsed = datetime.fromisoformat(v.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise PydanticCustomError("date", "must be a date (ISO 8601) or unix seconds") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


QueryDate = Annotated[datetime, BeforeValidator(_to_datetime)]


class DateComparison(BaseModel):
    model_config = ConfigDict(extra="forbid")

    lt: QueryDate | None = None
    gt: QueryDate | None = None
    lte: QueryDate | None = None
    gte: QueryDate | None = None


def _bool_str(value: Any) -> Any:
    if isinstance(value, str):
        lowered = value.lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        if lowered in ("null", "undefined", ""):
            return None
        raise PydanticCustomError("bool", "must be a boolean value")
    return value


def _str_list(value: Any) -> Any:
    if isinstance(value, str):
        return [p for p in value.split(",") if p]
    return value


BoolStr = Annotated[Union[bool, None], BeforeValidator(_bool_str)]
StrList = Annotated[list[str], BeforeValidator(_str_list)]


class Filters(BaseModel):
    """Base of a resource's filter model: unknown query keys are refused."""

    model_config = ConfigDict(extra="forbid")

    def comparisons(self) -> dict[str, dict | None]:
        """The date-comparison filters as plain dicts (`{"created_at": {"gt": ...}}`)."""
        return {
            name: value.model_dump() if (value := getattr(self, name)) is not None else None
            for name in _comparison_names(type(self))
        }

    def plain(self) -> dict:
        """Every other filter, as given."""
        return self.model_dump(exclude=set(_comparison_names(type(self))))


@cache
def _comparison_names(filters: type[Filters]) -> tuple[str, ...]:
    """The date-comparison fields of a filter model, in their order (read once per model: on
    every list request, walking the fields cost more than the rest of the parse)."""
    return tuple(name for name, f in filters.model_fields.items()
                 if f.annotation in (DateComparison, DateComparison | None))


# ---------------------------------------------------------------- the spec and its parser

@dataclass(frozen=True)
class QuerySpec:
    """What a list or retrieve endpoint accepts. Every allow-list is closed."""

    columns: tuple[str, ...]
    default_relations: tuple[str, ...] = ()
    allowed_relations: tuple[str, ...] = ()
    allowed_order: tuple[str, ...] = ("created_at", "updated_at", "id")
    extra_fields: tuple[str, ...] = ()  # computed keys that `fields` may name
    filters: type[Filters] | None = None
    default_limit: int = 50
    max_limit: int = MAX_LIMIT  # a larger `limit` is clamped to this (and the applied value echoed)
    default_order: str = "-created_at"
    is_list: bool = True
    selectable: bool = True  # False: `expand` and `fields` are refused, as on Medusa's plain lists

    def one(self, **changes) -> "QuerySpec":
        """The retrieve endpoint's spec: this list's allow-lists, for one resource."""
        return replace(self, is_list=False, **changes)


@dataclass(frozen=True)
class ParsedQuery:
    limit: int
    offset: int
    order: tuple[tuple[str, bool], ...]
    relations: tuple[str, ...]
    fields: frozenset[str] | None  # None: the resource's default columns
    filters: Any = None
    raw: dict[str, Any] = field(default_factory=dict)

    def find(self) -> FindConfig:
        return FindConfig(limit=self.limit, offset=self.offset, order=self.order, relations=self.relations)


def parse_query(query_string: str, spec: QuerySpec) -> ParsedQuery:
    query = _normalize(parse_qs(query_string))
    problems: list[str] = []
    if not spec.selectable:
        refused = [k for k in ("expand", "fields") if query.pop(k, None) is not None]
        problems.extend(f"property {k} should not exist" for k in refused)
    limit = _int(query.pop("limit", None), "limit", spec.default_limit, problems)
    offset = _int(query.pop("offset", None), "offset", 0, problems, maximum=_MAX_OFFSET)
    order = _order(query.pop("order", None), spec, problems)
    relations = _relations(query.pop("expand", None), spec, problems)
    fields_ = _fields(query.pop("fields", None), spec, problems)
    if fields_ is not None:
        relations = tuple(dict.fromkeys(relations + tuple(f.split(".")[0] for f in fields_ if "." in f)))
        fields_ = frozenset(f for f in fields_ if "." not in f)
    filters = None
    if spec.filters is not None:
        try:
            filters = spec.filters.model_validate(query)
            problems.extend(_out_of_range(filters.model_dump(), query))
        except ValidationError as e:
            problems.extend(messages_of(e))
    elif query:
        problems.extend(f"property {k} should not exist" for k in query)
    if problems:
        raise InvalidData(", ".join(problems))
    return ParsedQuery(
        limit=min(limit, spec.max_limit), offset=offset, order=order, relations=relations,
        fields=fields_, filters=filters, raw=query,
    )


def _int(value: Any, name: str, default: int, problems: list[str], maximum: int | None = None) -> int:
    if value is None:
        return default
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        n = int(value)
        if n < 0:
            problems.append(f"{name} must not be less than 0")
        if maximum is not None and n > maximum:
            problems.append(f"{name} must not be greater than {maximum}")
            return default
        return max(n, 0)
    problems.append(f"{name} must be a number conforming to the specified constraints")
    return default


def _out_of_range(values: dict[str, Any], query: dict[str, Any]) -> list[str]:
    """Every integer any filter holds must fit the INTEGER columns filters compare (the database
    fails on more), named as the client wrote it: `a[lt]`, or `a` for `a=n`."""
    problems = []
    for name, value in values.items():
        for path, n in _integers(value, name):
            label = path if isinstance(query.get(name), dict) else name
            if n > _INT_MAX:
                problems.append(f"{label} must not be greater than {_INT_MAX}")
            elif n < _INT_MIN:
                problems.append(f"{label} must not be less than {_INT_MIN}")
    return problems


def _integers(value: Any, path: str):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _integers(item, f"{path}[{key}]")
    elif isinstance(value, list):
        for item in value:
            yield from _integers(item, path)
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path, value


def _order(value: Any, spec: QuerySpec, problems: list[str]) -> tuple[tuple[str, bool], ...]:
    if value is None or value == "":
        value = spec.default_order
    if not isinstance(value, str):
        problems.append("order must be a string")
        return ()
    desc = value.startswith("-")
    name = value[1:] if desc else value
    if name not in spec.allowed_order:
        problems.append(f"Order field {name} is not valid")
        return ()
    return ((name, desc),)


def _relations(value: Any, spec: QuerySpec, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return spec.default_relations
    if isinstance(value, list):
        value = ",".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        problems.append("expand must be a string")
        return ()
    asked = [r.strip() for r in value.split(",") if r.strip()]
    bad = [r for r in asked if r not in spec.allowed_relations]
    if bad:  # Medusa words it "Requested fields" here too, which points at the wrong parameter
        problems.append(f"Requested relations [{', '.join(bad)}] are not valid")
    # A nested relation implies its parents: variants.prices needs variants.
    out: list[str] = []
    for r in asked:
        parts = r.split(".")
        out.extend(".".join(parts[: i + 1]) for i in range(len(parts)))
    return tuple(dict.fromkeys(out))


def _fields(value: Any, spec: QuerySpec, problems: list[str]) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        value = ",".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        problems.append("fields must be a string")
        return None
    asked = [f.strip() for f in value.split(",") if f.strip()]
    allowed = set(spec.columns) | set(spec.extra_fields)
    names = [f.lstrip("+-") for f in asked]
    bad = [
        n for n in names
        if n not in allowed and not (("." in n) and n.split(".")[0] in spec.allowed_relations)
    ]
    if bad:
        problems.append(f"Requested fields [{', '.join(bad)}] are not valid")
    if asked and all(f[0] in "+-" for f in asked):
        chosen = set(spec.columns)
        for f in asked:
            (chosen.add if f[0] == "+" else chosen.discard)(f[1:])
    else:
        chosen = set(names)
    chosen.add("id")
    if spec.is_list:
        chosen.add("created_at")
    return frozenset(chosen)
