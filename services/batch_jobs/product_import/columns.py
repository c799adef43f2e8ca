"""Medusa v1's product CSV, shared by import and export: the static
columns in export order, the dynamic ones (prices, options, images, sales channels), headers
read leniently (case and spacing do not matter), amounts between minor units and the decimals
a spreadsheet shows, and the cell quoting of Medusa's exports."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from services.core.errors import InvalidData

__all__ = [
    "Column", "STATIC_COLUMNS", "PriceColumn", "OptionColumn", "ImageColumn", "ChannelColumn", "Ignored",
    "read_header", "detect_delimiter", "parse_failure", "to_minor", "from_minor", "cells_text", "csv_line",
    "REQUIRED_HEADER",
]

PRODUCT, VARIANT = "product", "variant"
REQUIRED_HEADER = "Product Handle"
# Currencies without minor units (Medusa v1's list): 500 JPY is written 500, 5.00 USD is 500.
ZERO_DECIMAL = frozenset({
    "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf",
})


@dataclass(frozen=True)
class Column:
    header: str
    entity: str | None  # product, variant, or None for a column that is read and ignored
    attribute: str | None = None
    kind: str = "str"  # str, text, int, bool, status, tags


STATIC_COLUMNS: tuple[Column, ...] = (
    Column("Product Id", PRODUCT, "id"),
    Column(REQUIRED_HEADER, PRODUCT, "handle"),
    Column("Product Title", PRODUCT, "title"),
    Column("Product Subtitle", PRODUCT, "subtitle"),
    Column("Product Description", PRODUCT, "description", "text"),
    Column("Product Status", PRODUCT, "status", "status"),
    Column("Product Thumbnail", PRODUCT, "thumbnail"),
    Column("Product Weight", PRODUCT, "weight", "int"),
    Column("Product Length", PRODUCT, "length", "int"),
    Column("Product Width", PRODUCT, "width", "int"),
    Column("Product Height", PRODUCT, "height", "int"),
    Column("Product HS Code", PRODUCT, "hs_code"),
    Column("Product Origin Country", PRODUCT, "origin_country"),
    Column("Product MID Code", PRODUCT, "mid_code"),
    Column("Product Material", PRODUCT, "material"),
    Column("Product Collection Title", PRODUCT, "collection_title"),
    Column("Product Collection Handle", PRODUCT, "collection_handle"),
    Column("Product Type", PRODUCT, "type"),
    Column("Product Tags", PRODUCT, "tags", "tags"),
    Column("Product Discountable", PRODUCT, "discountable", "bool"),
    Column("Product External Id", PRODUCT, "external_id"),
    Column("Product Profile Name", None),  # every imported product gets the default profile
    Column("Product Profile Type", None),
    Column("Variant Id", VARIANT, "id"),
    Column("Variant Title", VARIANT, "title"),
    Column("Variant SKU", VARIANT, "sku"),
    Column("Variant Barcode", VARIANT, "barcode"),
    Column("Variant Inventory Quantity", VARIANT, "inventory_quantity", "int"),
    Column("Variant Allow Backorder", VARIANT, "allow_backorder", "bool"),
    Column("Variant Manage Inventory", VARIANT, "manage_inventory", "bool"),
    Column("Variant Weight", VARIANT, "weight", "int"),
    Column("Variant Length", VARIANT, "length", "int"),
    Column("Variant Width", VARIANT, "width", "int"),
    Column("Variant Height", VARIANT, "height", "int"),
    Column("Variant HS Code", VARIANT, "hs_code"),
    Column("Variant Origin Country", VARIANT, "origin_country"),
    Column("Variant MID Code", VARIANT, "mid_code"),
    Column("Variant Material", VARIANT, "material"),
)


@dataclass(frozen=True)
class PriceColumn:
    header: str
    currency: str  # lower case
    region_id: str | None = None  # a region's price, in the region's currency

    @property
    def key(self) -> tuple[str, str | None]:
        return self.currency, self.region_id


@dataclass(frozen=True)
class OptionColumn:
    header: str
    index: int
    part: str  # name | value


@dataclass(frozen=True)
class ImageColumn:
    header: str
    index: int


@dataclass(frozen=True)
class ChannelColumn:
    header: str
    index: int
    part: str  # id | name | description


@dataclass(frozen=True)
class Ignored:
    header: str  # product categories: this store has none, so they are accepted and skipped


Spec = Column | PriceColumn | OptionColumn | ImageColumn | ChannelColumn | Ignored

_STATIC = {" ".join(c.header.split()).casefold(): c for c in STATIC_COLUMNS}
_REGION_PRICE = re.compile(r"^price (.+) \[([a-z]{3})\]$")
_CURRENCY_PRICE = re.compile(r"^price ([a-z]{3})$")
_OPTION = re.compile(r"^option (\d+) (name|value)$")
_IMAGE = re.compile(r"^image (\d+) url$")
_CHANNEL = re.compile(r"^sales channel (\d+) (id|name|description)$")
_CATEGORY = re.compile(r"^product category (\d+) (handle|name|description)$")


def parse_failure(reason: str) -> InvalidData:
    return InvalidData(f"The csv file parsing failed due to: {reason}")


def _normal(header: str) -> str:
    return " ".join(header.replace("\ufeff", "").split()).casefold()


def _spec(header: str, regions: dict[str, tuple[str, str]], currencies: set[str]) -> Spec:
    name = _normal(header)
    if name in _STATIC:
        return _STATIC[name]
    if m := _REGION_PRICE.match(name):
        region_name = " ".join(header.split())[len("Price "):-len(" [XXX]")]
        found = regions.get(region_name) or regions.get(region_name.casefold())
        if found is None:
            raise parse_failure(f"Trying to set a price for a region {region_name} that doesn't exist")
        return PriceColumn(header, found[1], found[0])
    if m := _CURRENCY_PRICE.match(name):
        if m.group(1) not in currencies:
            raise parse_failure(f"Currency with code {m.group(1)} does not exist")
        return PriceColumn(header, m.group(1))
    if m := _OPTION.match(name):
        return OptionColumn(header, int(m.group(1)), m.group(2))
    if m := _IMAGE.match(name):
        return ImageColumn(header, int(m.group(1)))
    if m := _CHANNEL.match(name):
        return ChannelColumn(header, int(m.group(1)), m.group(2))
    if _CATEGORY.match(name):
        return Ignored(header)
    raise parse_failure(
        f"Unable to treat column {header} from the csv file. No target column found in the provided schema"
    )


def read_header(cells: list[str], regions: dict[str, tuple[str, str]], currencies: set[str]) -> list[Spec]:
    """The meaning of each column. `regions` maps a region's name (and its case-folded name) to
    (id, currency); an unknown column, region or currency makes the whole file unreadable."""
    specs = [_spec(cell, regions, currencies) for cell in cells]
    seen: dict[object, str] = {}
    for cell, spec in zip(cells, specs):
        if isinstance(spec, Ignored):
            continue
        same = _identity(spec)
        if same in seen:
            raise parse_failure(f"Columns {seen[same]} and {cell} say the same thing")
        seen[same] = cell
    if not any(isinstance(s, Column) and s.header == REQUIRED_HEADER for s in specs):
        raise parse_failure(f'Missing column(s) "{REQUIRED_HEADER}" from the given csv file')
    return specs


def _identity(spec: Spec) -> object:
    if isinstance(spec, PriceColumn):
        return spec.key
    if isinstance(spec, Column):
        return spec.header
    return type(spec), spec.index, getattr(spec, "part", None)


def detect_delimiter(header_line: str) -> str:
    """`,` or `;`, whichever splits the header into more columns we know (Medusa's exports use
    `;`, its templates `,`)."""

    def known(delimiter: str) -> int:
        cells = next(csv.reader([header_line], delimiter=delimiter), [])
        return sum(1 for c in cells if _normal(c) in _STATIC or _normal(c).startswith(("price ", "option ", "image ")))

    return ";" if known(";") > known(",") else ","


def _exponent(currency: str) -> int:
    return 0 if currency.lower() in ZERO_DECIMAL else 2


_PLAIN_AMOUNT = re.compile(r"([0-9]+)(?:\.([0-9]*))?")
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")


def to_minor(text: str, currency: str) -> int:
    """`19.99` (or `19,99`) in `currency` as minor units (1999), rounded half up; ValueError when
    it is not a non-negative amount."""
    cleaned = text.strip().replace(" ", "")
    if _DECIMAL_COMMA.fullmatch(cleaned):  # a decimal comma, as European spreadsheets write it
        cleaned = cleaned.replace(",", ".")
    exponent = _exponent(currency)
    plain = _PLAIN_AMOUNT.fullmatch(cleaned)
    if plain and len(plain.group(2) or "") <= exponent:  # most cells: exact in whole numbers, nothing to round
        return int(plain.group(1)) * 10**exponent + int((plain.group(2) or "").ljust(exponent, "0") or 0)
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(text) from None
    if not amount.is_finite() or amount < 0:
        raise ValueError(text)
    return int((amount.scaleb(exponent)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def from_minor(amount: int, currency: str) -> str:
    """Minor units as the plain decimal a spreadsheet shows: 1999 -> `19.99`, 2000 -> `20`."""
    value = Decimal(amount).scaleb(-_exponent(currency))
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


# Medusa quotes cells holding a newline, a comma or a semicolon; a quote is quoted too, so that a
# cell starting with one reads back as written.
_QUOTED = re.compile('[\n\r,;"]')


def _cell(value: str) -> str:
    if _QUOTED.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def cells_text(cells: list[str]) -> str:
    """Cells of Medusa's export, `;`-separated and quoted where they must be: a line's part (each
    cell is quoted on its own, so parts joined by `;` are the whole line's text)."""
    if not _QUOTED.search("".join(cells)):  # most parts quote nothing: one search, not one a cell
        return ";".join(cells)
    return ";".join([_cell(c) for c in cells])


def csv_line(cells: list[str]) -> str:
    """One line of Medusa's export: `;`-separated, ended by CRLF."""
    return cells_text(cells) + "\r\n"
