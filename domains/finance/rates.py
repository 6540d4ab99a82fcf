"""Currencies and exchange rates: every journal amount is in the base currency; a document in
another currency is converted at the latest rate on or before its date, fixed when it posts."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance.amounts import cents
from domains.finance.tables import Currency, ExchangeRate
from facade.kit import Conflict, InvalidRequest, NotFound, Unavailable

ONE = Decimal(1)
RATE_PLACES = Decimal("0.000001")


def base_currency(db: Session) -> Currency:
    currency = db.scalar(select(Currency).where(Currency.is_base.is_(True)))
    if currency is None:
        raise Unavailable("the ledger has no base currency; an operator must seed the finance domain")
    return currency


def currency_by_code(db: Session, code: str | None) -> Currency:
    """The currency with `code`, or the base currency when none is given."""
    if code is None:
        return base_currency(db)
    currency = db.scalar(select(Currency).where(Currency.code == code.upper()))
    if currency is None:
        raise NotFound(
            f"currency {code} is not set up; list currencies with finance.currency_list or add it with "
            "finance.currency_create"
        )
    return currency


def rate_on(db: Session, currency: Currency, on_date: date) -> Decimal:
    """Base units per unit of `currency` on `on_date`: the latest rate on or before that date."""
    if currency.is_base:
        return ONE
    rate = db.scalar(
        select(ExchangeRate.rate)
        .where(ExchangeRate.currency_id == currency.id, ExchangeRate.rate_date <= on_date)
        .order_by(ExchangeRate.rate_date.desc())
        .limit(1)
    )
    if rate is None:
        raise InvalidRequest(
            f"there is no {currency.code} exchange rate on or before {on_date}; set one with "
            f"finance.exchange_rate_set currency={currency.code}"
        )
    return Decimal(rate)


def set_rate(db: Session, currency: Currency, rate_date: date, rate: Decimal) -> tuple[ExchangeRate, bool]:
    """Record the rate of a day, replacing that day's rate if there was one; (rate, created)."""
    if currency.is_base:
        raise InvalidRequest(f"{currency.code} is the base currency; its rate is always 1")
    existing = db.scalar(
        select(ExchangeRate).where(ExchangeRate.currency_id == currency.id, ExchangeRate.rate_date == rate_date)
    )
    if existing is not None:
        existing.rate = rate
        db.flush()
        return existing, False
    record = ExchangeRate(currency=currency, rate_date=rate_date, rate=rate)
    db.add(record)
    db.flush()
    return record, True


def convert(db: Session, amount: Decimal, source: Currency, target: Currency, on_date: date) -> dict[str, Any]:
    """`amount` of `source` in `target`, through the base currency."""
    source_rate, target_rate = rate_on(db, source, on_date), rate_on(db, target, on_date)
    rate = (source_rate / target_rate).quantize(RATE_PLACES, rounding=ROUND_HALF_UP)
    return {
        "amount": str(cents(amount)),
        "from_currency": source.code,
        "to_currency": target.code,
        "on_date": on_date.isoformat(),
        "rate": str(rate),
        "converted": str(cents(amount * source_rate / target_rate)),
    }


def code_free(db: Session, values: dict[str, Any]) -> None:
    """A currency code names one currency."""
    clash = db.scalar(select(Currency.id).where(Currency.code == values["code"]))
    if clash is not None:
        raise Conflict(f"currency {values['code']} already exists (id {clash}); list them with finance.currency_list")
