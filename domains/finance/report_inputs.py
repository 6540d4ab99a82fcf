"""The arguments of the reports. A missing end date means today; a missing start date means the
first of January of the end date's year, the usual financial-year-to-date view."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from domains.finance.inputs import Args, Page
from facade.kit import Id


class AsOf(Args):
    as_of: date | None = Field(None, description="Default: today.")


class Period(Args):
    date_from: date | None = Field(None, description="Default: 1 January of date_to's year.")
    date_to: date | None = Field(None, description="Default: today.")


class LedgerExport(Period):
    format: Literal["csv", "json"] = "csv"
    account_id: Id | None = None
    limit: int = Field(1000, ge=1, le=5000)
    offset: int = Field(0, ge=0)


class AccountHistory(Page):
    account_id: Id
    date_from: date | None = None
    date_to: date | None = None


class CustomerStatement(Period):
    customer_id: Id
