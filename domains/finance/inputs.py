"""The arguments of the ledger's tools: accounts, currencies and rates, tax rates, customers and
vendors, journal entries. Field names say what they hold; a description is given only where the
name alone does not. Amounts are decimals with at most two places (pass them as strings)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, model_validator

from domains.finance.tables import AccountType, EntrySource, EntryStatus
from facade.kit import Id, Input, records, values_of


def places(digits: int) -> AfterValidator:
    """Give a decimal its full number of places ("12" -> "12.00"), as the database will."""
    exponent = Decimal(1).scaleb(-digits)
    return AfterValidator(lambda value: value.quantize(exponent))


Money = Annotated[Decimal, Field(ge=0, max_digits=16, decimal_places=2), places(2)]
PositiveMoney = Annotated[Decimal, Field(gt=0, max_digits=16, decimal_places=2), places(2)]
Rate = Annotated[Decimal, Field(gt=0, le=1_000_000, max_digits=18, decimal_places=6), places(6)]
Percent = Annotated[Decimal, Field(ge=0, le=100, max_digits=5, decimal_places=2), places(2)]
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$"), AfterValidator(str.upper)]
AccountCode = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[0-9A-Za-z][0-9A-Za-z.\-]*$")]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Memo = Annotated[str, Field(min_length=1, max_length=200)]
Note = Annotated[str, Field(max_length=200)]
Text = Annotated[str, Field(max_length=2000)]
Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), AfterValidator(str.lower)]
Terms = Annotated[int, Field(ge=0, le=365, description="Days from issue to due date.")]


class Args(Input):
    """Arguments with surrounding whitespace stripped, so that "  " is no name."""

    model_config = ConfigDict(str_strip_whitespace=True)


def changes_of(args: Input, id_field: str) -> dict[str, Any]:
    """The fields a caller gave to an update, apart from the record's id (and identity)."""
    own = set(values_of(args)) - {id_field}
    return {field: getattr(args, field) for field in args.model_fields_set if field in own}


# The kit's page (at most 200 rows), with the text of the filters built on it stripped.
class Page(Args, records.Page):
    pass


class Search(Page):
    search: str | None = Field(None, min_length=1, max_length=100, description="Text the name contains.")


# Accounts


class AccountCreate(Args):
    code: AccountCode
    name: Name
    type: AccountType
    description: Text = ""
    is_bank: bool = Field(False, description="A bank or cash account (asset) that payments can use.")


class AccountUpdate(Args):
    account_id: Id
    code: AccountCode | None = None
    name: Name | None = None
    type: AccountType | None = None
    description: Text | None = None
    is_bank: bool | None = None
    active: bool | None = Field(None, description="false stops new postings; history stays.")


class AccountFilter(Search):
    type: AccountType | None = None
    active: bool | None = None
    is_bank: bool | None = None


class AccountImport(Args):
    csv: str = Field(
        min_length=1,
        max_length=100_000,
        description="Header code,name,type[,description,is_bank], then one account per row.",
    )


# Currencies and exchange rates


class CurrencyCreate(Args):
    code: CurrencyCode
    name: Annotated[str, Field(min_length=1, max_length=60)]
    symbol: Annotated[str, Field(max_length=8)] = ""


class ExchangeRateSet(Args):
    currency: CurrencyCode
    rate_date: date
    rate: Rate = Field(description="Base-currency units one unit of this currency buys.")


class ExchangeRateFilter(Page):
    currency: CurrencyCode | None = None
    date_from: date | None = None
    date_to: date | None = None


class CurrencyConvert(Args):
    amount: PositiveMoney
    from_currency: CurrencyCode
    to_currency: CurrencyCode
    on_date: date | None = Field(None, description="Default: today.")


# Tax rates


class TaxRateCreate(Args):
    name: Annotated[str, Field(min_length=1, max_length=60)]
    rate: Percent
    active: bool = True


class TaxRateUpdate(Args):
    tax_rate_id: Id
    name: Annotated[str, Field(min_length=1, max_length=60)] | None = None
    rate: Percent | None = None
    active: bool | None = None


class TaxRateFilter(Page):
    active: bool | None = None


# Customers and vendors share a shape.


class PartyFields(Args):
    name: Name
    email: Email | None = None
    address: Text = ""
    tax_number: Annotated[str, Field(max_length=40)] = ""
    payment_terms_days: Terms = 30


class CustomerCreate(PartyFields):
    pass


class VendorCreate(PartyFields):
    pass


class PartyChanges(Args):
    name: Name | None = None
    email: Email | None = None
    address: Text | None = None
    tax_number: Annotated[str, Field(max_length=40)] | None = None
    payment_terms_days: Terms | None = None


class CustomerUpdate(PartyChanges):
    customer_id: Id


class VendorUpdate(PartyChanges):
    vendor_id: Id


# Journal entries


class EntryLine(Args):
    account_id: Id
    debit: Money = Decimal(0)
    credit: Money = Decimal(0)
    description: Note = ""

    @model_validator(mode="after")
    def one_side(self) -> EntryLine:
        if (self.debit > 0) == (self.credit > 0):
            raise ValueError("give a line either a debit or a credit above zero, not both")
        return self


EntryLines = Annotated[list[EntryLine], Field(min_length=2, max_length=100)]


class JournalEntryCreate(Args):
    entry_date: date
    memo: Memo
    lines: EntryLines
    post: bool = Field(False, description="Post at once (must balance); else saved as a draft.")


class JournalEntryUpdate(Args):
    journal_entry_id: Id
    entry_date: date | None = None
    memo: Memo | None = None
    lines: EntryLines | None = Field(None, description="Replaces every line.")


class JournalEntryFilter(Page):
    status: EntryStatus | None = None
    source: EntrySource | None = None
    account_id: Id | None = Field(None, description="Entries with a line on this account.")
    date_from: date | None = None
    date_to: date | None = None


class JournalEntryRef(Args):
    journal_entry_id: Id


class JournalEntryReverse(Args):
    journal_entry_id: Id
    entry_date: date | None = Field(None, description="Date of the reversal; default: today.")
    memo: Memo | None = None

