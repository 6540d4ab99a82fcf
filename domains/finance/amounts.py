"""Money arithmetic, written once: amounts are Decimals rounded half-up to the cent, and leave
the domain as strings so that no float ever touches them."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal

from facade.kit import InvalidRequest

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def cents(value: Decimal | float | int | str | None) -> Decimal:
    """`value` as an amount to the cent; None (an empty SUM) is zero. A float from a SQLite
    aggregate goes through its shortest repr, which is the decimal it was stored from."""
    if value is None:
        return ZERO
    if isinstance(value, float):
        value = repr(value)
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


# The largest amount a Numeric(18, 2) column holds; PostgreSQL refuses more, SQLite would round.
LIMIT = Decimal("9999999999999999.99")


def check_fits(value: Decimal, what: str) -> Decimal:
    if abs(value) > LIMIT:
        raise InvalidRequest(f"{what} comes to {value}, more than the ledger can hold ({LIMIT}); split it up")
    return value


def total(values: Iterable[Decimal]) -> Decimal:
    return cents(sum(values, ZERO))


def line_amounts(quantity: Decimal, unit_price: Decimal, tax_percent: Decimal | None) -> tuple[Decimal, Decimal]:
    """(net, tax) of one document line; tax is rounded per line, as printed on the document."""
    net = cents(quantity * unit_price)
    tax = cents(net * tax_percent / 100) if tax_percent else ZERO
    return net, tax


def to_base(amount: Decimal, rate: Decimal) -> Decimal:
    """An amount in the base currency at `rate` (base units per foreign unit)."""
    return cents(amount * rate)


def text(value: Decimal | float | int | None) -> str:
    """An amount as the string results carry ("1200.00")."""
    return str(cents(value))
