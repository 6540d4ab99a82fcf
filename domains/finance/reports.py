"""The reports: statements, aging, the general ledger, account history, tax and statements of
account. All read posted entries only and change nothing."""

from __future__ import annotations

from typing import Any

from domains.finance import aging, exports, statements
from domains.finance import report_inputs as ri
from domains.finance.documents import BILLS, INVOICES
from domains.finance.entities import ACCOUNT, CUSTOMER
from domains.finance.ledger import today
from facade.kit import CallContext, Toolset

tools = Toolset()

Result = dict[str, Any]
PERIOD = {"date_from": "2026-09-01", "date_to": "2026-11-30"}
MONTH_END = {"as_of": "2026-11-30"}


@tools.capability("trial_balance", read_only=True, example=MONTH_END)
def trial_balance(ctx: CallContext, args: ri.AsOf) -> Result:
    """Report every account's debit or credit balance on a date."""
    return statements.trial_balance(ctx.db, args.as_of or today())


@tools.capability("profit_and_loss", read_only=True, example=PERIOD)
def profit_and_loss(ctx: CallContext, args: ri.Period) -> Result:
    """Report income, expenses and net profit over a period."""
    return statements.profit_and_loss(ctx.db, *statements.period(args.date_from, args.date_to))


@tools.capability("balance_sheet", read_only=True, example=MONTH_END)
def balance_sheet(ctx: CallContext, args: ri.AsOf) -> Result:
    """Report assets, liabilities and equity on a date."""
    return statements.balance_sheet(ctx.db, args.as_of or today())


@tools.capability("aged_receivables", read_only=True, example=MONTH_END)
def aged_receivables(ctx: CallContext, args: ri.AsOf) -> Result:
    """Report unpaid invoices on a date by customer and days past due."""
    return aging.aged(ctx.db, INVOICES, args.as_of or today())


@tools.capability("aged_payables", read_only=True, example=MONTH_END)
def aged_payables(ctx: CallContext, args: ri.AsOf) -> Result:
    """Report unpaid bills on a date by vendor and days past due."""
    return aging.aged(ctx.db, BILLS, args.as_of or today())


@tools.capability("cash_flow", read_only=True, example=PERIOD)
def cash_flow(ctx: CallContext, args: ri.Period) -> Result:
    """Report cash into and out of the bank accounts over a period, by activity."""
    return statements.cash_flow(ctx.db, *statements.period(args.date_from, args.date_to))


@tools.capability(
    "general_ledger_export",
    read_only=True,
    example={"format": "csv", "date_from": "2026-10-01", "date_to": "2026-10-31"},
)
def general_ledger_export(ctx: CallContext, args: ri.LedgerExport) -> Result:
    """Export posted journal lines over a period as CSV or JSON."""
    account = ACCOUNT.fetch(ctx.db, args.account_id) if args.account_id is not None else None
    start, end = statements.period(args.date_from, args.date_to)
    return exports.general_ledger(ctx.db, start, end, account, args.format, args.limit, args.offset)


@tools.capability("account_history", read_only=True, example={"account_id": 1})
def account_history(ctx: CallContext, args: ri.AccountHistory) -> Result:
    """List an account's posted lines with the running balance."""
    account = ACCOUNT.fetch(ctx.db, args.account_id)
    if args.date_from is not None and args.date_to is not None:
        statements.period(args.date_from, args.date_to)  # refuses a reversed period
    return exports.history(ctx.db, account, args.date_from, args.date_to, args.limit, args.offset)


@tools.capability("tax_report", read_only=True, example={"date_from": "2026-10-01", "date_to": "2026-12-31"})
def tax_report(ctx: CallContext, args: ri.Period) -> Result:
    """Report tax charged on sales against tax paid on costs over a period."""
    return exports.tax_report(ctx.db, *statements.period(args.date_from, args.date_to))


@tools.capability("customer_statement", read_only=True, example={"customer_id": 2, **PERIOD})
def customer_statement(ctx: CallContext, args: ri.CustomerStatement) -> Result:
    """Show a customer's invoices and payments over a period with running balances."""
    customer = CUSTOMER.fetch(ctx.db, args.customer_id)
    return aging.statement(ctx.db, customer, *statements.period(args.date_from, args.date_to))
