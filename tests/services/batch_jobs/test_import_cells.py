"""The import's cells read the short way (plain amounts and whole numbers) read as the general way
reads them: exact decimals, rounding half up past the currency's digits, the same refusals."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import pytest

from services.batch_jobs.product_import.columns import Column, to_minor
from services.batch_jobs.product_import.rows import _convert

CELLS = ["0", "5", "5.", "5.5", "5.55", "5.555", "10.99", "1 000.5", "12,5", "12,55", "12,555", "007.10", ".5", "-1",
         "1e3", "NaN", "inf", "١٢", "", "abc", "5.5.5", "99999999999999999999.99", "0.005", "1,234.5", " 3 "]


def decimal_minor(text: str, exponent: int) -> int:
    cleaned = text.strip().replace(" ", "")
    if cleaned.count(",") == 1 and cleaned.replace(",", "").isdigit() and len(cleaned.split(",")[1]) <= 2:
        cleaned = cleaned.replace(",", ".")
    try:
        amount = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(text) from None
    if not amount.is_finite() or amount < 0:
        raise ValueError(text)
    return int(amount.scaleb(exponent).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def outcome(read, *args):
    try:
        return read(*args)
    except ValueError as e:
        return ("refused", str(e))


@pytest.mark.parametrize("currency, exponent", [("usd", 2), ("jpy", 0)])
def test_amounts_read_as_exact_decimals_rounded_half_up(currency, exponent):
    assert [outcome(to_minor, c, currency) for c in CELLS] == [outcome(decimal_minor, c, exponent) for c in CELLS]
    assert to_minor("19.995", "usd") == 2000 and to_minor("0.005", "usd") == 1 and to_minor("2.5", "jpy") == 3


def test_whole_numbers_read_as_before_and_stay_within_an_integer_column():
    column = Column("Variant Inventory Quantity", "variant", "inventory_quantity", "int")
    assert [outcome(_convert, column, v) for v in ("100", "007", "2147483647", "-3", "1.0", "1e2", "١٢")] == [
        100, 7, 2147483647, -3, 1, 100, 12]  # other scripts' digits too, as Decimal reads them
    for refused in ("2147483648", "1.5", "x", "NaN", "-2147483648"):
        assert outcome(_convert, column, refused) == ("refused", "must be a whole number")
