"""Reading an import CSV row by row: the file is streamed (memory does not grow with its length),
each row is checked on its own, and a bad row carries its problems instead of stopping the file.

Line numbers are a spreadsheet's row numbers: the header is line 1, the first product line 2.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from models import Currency, Product, ProductVariant, Region
from models.product import PRODUCT_STATUSES
from services.files import storage
from services.batch_jobs.product_import.columns import (
    ChannelColumn, Column, ImageColumn, OptionColumn, PriceColumn, Spec, detect_delimiter, parse_failure,
    read_header, to_minor,
)
from services.core.money import MAX_AMOUNT  # prices are BIGINT columns

__all__ = ["ImportRow", "Layout", "load_layout", "open_rows"]

_INT_MAX = 2**31 - 1  # INTEGER columns
_URL_LENGTH = 2048
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}
_MAX_LENGTH = {
    "product": {n: f.max_length for n, f in Product._meta.fields_map.items() if getattr(f, "max_length", None)},
    "variant": {n: f.max_length for n, f in ProductVariant._meta.fields_map.items() if getattr(f, "max_length", None)},
}
_MAX_LENGTH["product"].update(collection_title=255, collection_handle=255, type=255)


@dataclass(slots=True)
class ImportRow:
    line: int
    product: dict[str, Any] = field(default_factory=dict)  # columns in the header; None: empty cell
    variant: dict[str, Any] = field(default_factory=dict)
    option_names: list[str] = field(default_factory=list)  # in column order
    option_values: dict[str, str] = field(default_factory=dict)  # option title -> value
    prices: dict[tuple[str, str | None], int | None] = field(default_factory=dict)  # (currency, region) -> amount
    images: list[str] | None = None  # None: the file has no image columns
    channels: list[dict[str, str]] | None = None  # {"id"/"name"/"description": ...}; None: no such columns
    errors: list[str] = field(default_factory=list)
    defines_product: bool = False  # the first good line of its handle: it creates or updates the product

    @property
    def handle(self) -> str:
        return self.product.get("handle") or ""

    @property
    def has_variant(self) -> bool:
        """A line with no variant cell, option value or price only describes its product."""
        return (
            any(v is not None for v in self.variant.values()) or bool(self.option_values)
            or any(v is not None for v in self.prices.values())
        )

    def error(self) -> dict:
        return {"line": self.line, "handle": self.handle or None, "code": "invalid_data",
                "message": f"Line {self.line}: " + "; ".join(self.errors)}


# What a column is, for Layout.parse: read once per file, not tested cell by cell.
_IGNORED, _STRING, _CONVERTED, _PRICE, _OPTION, _IMAGE, _CHANNEL = range(7)


class Layout:
    """What each column of one file means, and how a line of it becomes an ImportRow."""

    def __init__(self, specs: list[Spec]):
        self.specs = specs
        self.price_columns = [s for s in specs if isinstance(s, PriceColumn)]
        self.has_images = any(isinstance(s, ImageColumn) for s in specs)
        self.has_channels = any(isinstance(s, ChannelColumn) for s in specs)
        self._columns = [_kind(spec) for spec in specs]

    def parse(self, cells: list[str], line: int) -> ImportRow:
        row = ImportRow(line, images=[] if self.has_images else None)
        errors, width = row.errors, len(self.specs)
        if len(cells) > width and any(c.strip() for c in cells[width:]):
            errors.append(f"has {len(cells)} cells but the header names {width} columns")
        elif len(cells) < width:
            cells = cells + [""] * (width - len(cells))
        names: dict[int, str] = {}
        values: dict[int, tuple[str, str]] = {}
        channels: dict[int, dict[str, str]] = {}
        for (kind, spec, stripped, of_product, attribute, limit), raw in zip(self._columns, cells):
            value = raw.strip() if stripped else raw
            if "\x00" in value:
                errors.append(f"{spec.header} contains a NUL character")
                continue
            if kind == _STRING:  # text as it is: no conversion, at most a length to check
                target = row.product if of_product else row.variant
                if value == "":
                    target[attribute] = None
                else:
                    target[attribute] = value
                    if limit and len(value) > limit:
                        errors.append(f"{spec.header} is longer than {limit} characters")
            elif kind == _CONVERTED:
                _column(row, spec, value)
            elif kind == _PRICE:
                row.prices[spec.key] = _amount(row, spec, value)
            elif not value or kind == _IGNORED:
                continue
            elif kind == _OPTION:
                (names.__setitem__(spec.index, value) if spec.part == "name"
                 else values.__setitem__(spec.index, (spec.header, value)))
            elif kind == _IMAGE:
                row.images.append(value)
                if len(value) > _URL_LENGTH:
                    errors.append(f"{spec.header} is longer than {_URL_LENGTH} characters")
            elif kind == _CHANNEL:
                channels.setdefault(spec.index, {})[spec.part] = value
                if spec.part == "name" and len(value) > 255:
                    errors.append(f"{spec.header} is longer than 255 characters")
        _options(row, names, values)
        row.channels = [channels[i] for i in sorted(channels)] if self.has_channels else None
        if not row.handle:
            errors.append('No value found for target column "Product Handle"')
        return row


def _kind(spec: Spec) -> tuple:
    """(kind, spec, whether its cells are stripped, whether it is the product's, attribute, length limit)."""
    if isinstance(spec, Column):
        stripped = spec.kind != "text"
        if spec.entity is None:
            return _IGNORED, spec, stripped, None, None, None
        limit = _MAX_LENGTH[spec.entity].get(spec.attribute)
        kind = _STRING if spec.kind in ("str", "text") else _CONVERTED
        return kind, spec, stripped, spec.entity == "product", spec.attribute, limit
    kind = {PriceColumn: _PRICE, OptionColumn: _OPTION, ImageColumn: _IMAGE, ChannelColumn: _CHANNEL}.get(
        type(spec), _IGNORED)
    return kind, spec, True, None, None, None


def _column(row: ImportRow, spec: Column, value: str) -> None:
    target = row.product if spec.entity == "product" else row.variant
    if value == "":
        target[spec.attribute] = None
        return
    try:
        target[spec.attribute] = _convert(spec, value)
    except ValueError as e:
        row.errors.append(f"{spec.header} {e}")
        return
    limit = _MAX_LENGTH[spec.entity].get(spec.attribute)
    if limit and isinstance(target[spec.attribute], str) and len(target[spec.attribute]) > limit:
        row.errors.append(f"{spec.header} is longer than {limit} characters")


def _convert(spec: Column, value: str) -> Any:
    if spec.kind == "int":
        if value.isascii() and value.isdigit():  # most cells: a plain whole number
            if int(value) > _INT_MAX:
                raise ValueError("must be a whole number")
            return int(value)
        try:
            number = Decimal(value)
        except InvalidOperation:
            raise ValueError("must be a whole number") from None
        if not number.is_finite() or number != number.to_integral_value() or abs(number) > _INT_MAX:
            raise ValueError("must be a whole number")
        return int(number)
    if spec.kind == "bool":
        lowered = value.lower()
        if lowered not in _TRUE | _FALSE:
            raise ValueError("must be true or false")
        return lowered in _TRUE
    if spec.kind == "status":
        if value.lower() not in PRODUCT_STATUSES:
            raise ValueError(f"must be one of {', '.join(PRODUCT_STATUSES)}")
        return value.lower()
    if spec.kind == "tags":
        return list(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))
    return value


def _amount(row: ImportRow, spec: PriceColumn, value: str) -> int | None:
    if value == "":
        return None
    try:
        amount = to_minor(value, spec.currency)
    except ValueError:
        row.errors.append(f"{spec.header} must be a non-negative amount")
        return None
    if amount > MAX_AMOUNT:
        row.errors.append(f"{spec.header} is too large")
        return None
    return amount


def _options(row: ImportRow, names: dict[int, str], values: dict[int, tuple[str, str]]) -> None:
    row.option_names = [names[i] for i in sorted(names)]
    if len(set(row.option_names)) != len(row.option_names):
        row.errors.append("names the same option twice")
    for index in sorted(values):
        header, value = values[index]
        if index not in names:
            row.errors.append(f"{header} has no option name in Option {index} Name")
        else:
            row.option_values[names[index]] = value


async def load_layout(header: list[str]) -> Layout:
    """The header's meaning in this store: region prices name live regions, currency prices
    known currencies."""
    regions: dict[str, tuple[str, str]] = {}
    for region in await Region.filter(deleted_at=None).order_by("created_at"):
        regions.setdefault(region.name, (region.id, region.currency_code))
        regions.setdefault(region.name.casefold(), (region.id, region.currency_code))
    currencies = set(await Currency.all().values_list("code", flat=True))
    return Layout(read_header(header, regions, currencies))


@contextmanager
def open_rows(file_key: str) -> Iterator[tuple[list[str], Iterator[tuple[int, list[str]]]]]:
    """The header and an iterator of (line, cells) for the stored CSV, read as it goes."""
    with storage().open_read(file_key) as binary:
        text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
        try:
            first = text.readline()
            delimiter = detect_delimiter(first)
            header = next(csv.reader([first], delimiter=delimiter), [])
            if not any(h.strip() for h in header):
                raise parse_failure("the file is empty")
            yield header, _lines(csv.reader(text, delimiter=delimiter))
        except UnicodeDecodeError:
            raise parse_failure("the file is not UTF-8 text (save it as \"CSV UTF-8\")") from None
        finally:
            text.detach()


def _lines(reader) -> Iterator[tuple[int, list[str]]]:
    line = 1
    try:
        for cells in reader:
            line += 1
            if any(c.strip() for c in cells):
                yield line, cells
    except csv.Error as e:
        raise parse_failure(f"line {line + 1} is not valid CSV ({e})") from None
    except UnicodeDecodeError:
        raise parse_failure(f"line {line + 1} is not UTF-8 text (save the file as \"CSV UTF-8\")") from None
