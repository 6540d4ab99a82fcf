"""Set-up data: the chart of accounts, currencies and their exchange rates, tax rates."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, or_, select

from domains.finance import inputs, rates, reference
from domains.finance.entities import ACCOUNT, CURRENCY, EXCHANGE_RATE, TAX_RATE
from domains.finance.ledger import today
from domains.finance.tables import Account, Currency, ExchangeRate
from facade.kit import CallContext, Toolset, contains_text, records, within_days

tools = Toolset()

Result = dict[str, Any]


def _accounts_where(args: inputs.AccountFilter) -> list[ColumnElement[bool]]:
    if args.search is None:
        return []
    return [or_(contains_text(Account.name, args.search), contains_text(Account.code, args.search))]


records.add_create(
    tools,
    ACCOUNT,
    inputs.AccountCreate,
    example={"code": "5600", "name": "Marketing", "type": "expense", "description": "Ads, events, sponsorships."},
    check=reference.check_account_create,
    description="Create an account in the chart of accounts.",
)
records.add_get(tools, ACCOUNT, example_id=1)
records.add_list(
    tools,
    ACCOUNT,
    inputs.AccountFilter,
    example={"type": "expense"},
    where=_accounts_where,
    description="List the chart of accounts, optionally filtered.",
)
records.add_update(
    tools,
    ACCOUNT,
    inputs.AccountUpdate,
    example={"account_id": 20, "name": "Subcontractors and freelancers"},
    check=reference.check_account_update,
    description="Change some fields of an account.",
)


@tools.capability(
    "account_import",
    example={"csv": "code,name,type,description\n5700,Training,expense,Courses and books\n4200,Workshops,income,\n"},
)
def account_import(ctx: CallContext, args: inputs.AccountImport) -> Result:
    """Create accounts from CSV rows, reporting each row's result."""
    return reference.import_accounts(ctx.db, args.csv)


records.add_delete(
    tools,
    ACCOUNT,
    example_id=14,
    check=reference.check_account_delete,
    description="Delete an account that nothing refers to, with its budgets.",
)

records.add_create(
    tools,
    CURRENCY,
    inputs.CurrencyCreate,
    example={"code": "JPY", "name": "Japanese yen", "symbol": "¥"},
    check=rates.code_free,
    tier="full",  # adding a currency is one-time company set-up: administration
)
records.add_list(tools, CURRENCY, inputs.Page, example={}, description="List the currencies; one is the base.")


@tools.capability(
    "exchange_rate_set", idempotent=True, example={"currency": "USD", "rate_date": "2026-11-01", "rate": "0.930000"}
)
def exchange_rate_set(ctx: CallContext, args: inputs.ExchangeRateSet) -> Result:
    """Record a currency's exchange rate for a day, replacing that day's rate."""
    record, created = rates.set_rate(ctx.db, rates.currency_by_code(ctx.db, args.currency), args.rate_date, args.rate)
    return {"exchange_rate": EXCHANGE_RATE.render(record), "created": created}


def _rates_where(args: inputs.ExchangeRateFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.currency is not None:
        currency = select(Currency.id).where(Currency.code == args.currency).scalar_subquery()
        conditions.append(ExchangeRate.currency_id == currency)
    return conditions + within_days(ExchangeRate.rate_date, args.date_from, args.date_to)


records.add_list(
    tools,
    EXCHANGE_RATE,
    inputs.ExchangeRateFilter,
    example={"currency": "USD"},
    where=_rates_where,
    description="List exchange rates, optionally by currency and date.",
)


@tools.capability(
    "currency_convert",
    read_only=True,
    example={"amount": "1000.00", "from_currency": "USD", "to_currency": "GBP", "on_date": "2026-10-15"},
)
def currency_convert(ctx: CallContext, args: inputs.CurrencyConvert) -> Result:
    """Convert an amount between currencies at the rates of a day."""
    source = rates.currency_by_code(ctx.db, args.from_currency)
    target = rates.currency_by_code(ctx.db, args.to_currency)
    return rates.convert(ctx.db, args.amount, source, target, args.on_date or today())


records.add_create(
    tools,
    TAX_RATE,
    inputs.TaxRateCreate,
    example={"name": "Reduced 5%", "rate": "5.00"},
    check=reference.check_tax_rate_create,
)
records.add_list(tools, TAX_RATE, inputs.TaxRateFilter, example={"active": True})
records.add_update(
    tools,
    TAX_RATE,
    inputs.TaxRateUpdate,
    example={"tax_rate_id": 4, "name": "VAT 16% (second half of 2020)"},
    check=reference.check_tax_rate_update,
)
