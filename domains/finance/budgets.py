"""Budgets: one planned amount per account and month, compared with what was posted. Actuals
read the way the account is read, so an expense budget and an income target both compare
positive amounts."""

from __future__ import annotations

import calendar
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance.amounts import ZERO, text
from domains.finance import document_inputs as di
from domains.finance.document_inputs import BudgetSet
from domains.finance.entities import ACCOUNT, BUDGET
from domains.finance.statements import posted, signed
from domains.finance.tables import Account, Budget, JournalEntry, JournalLine
from facade.kit import CallContext, InvalidRequest, Toolset, records

tools = Toolset()

MAX_MONTHS = 36


def set_budget(db: Session, args: BudgetSet) -> tuple[Budget, bool]:
    """Set an account's budget for a month, replacing the one it had; (budget, created)."""
    account = ACCOUNT.fetch(db, args.account_id)
    budget = db.scalar(select(Budget).where(Budget.account_id == account.id, Budget.period == args.period))
    created = budget is None
    if budget is None:
        budget = Budget(account=account, period=args.period)
        db.add(budget)
    budget.amount = args.amount
    budget.notes = args.notes
    db.flush()
    return budget, created


def month_bounds(period: str) -> tuple[date, date]:
    year, month = int(period[:4]), int(period[5:])
    if year < 1:
        raise InvalidRequest(f"{period} is not a month of the calendar: years start at 0001; give a real month, YYYY-MM")
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def report(db: Session, period_from: str, period_to: str, account: Account | None) -> dict[str, Any]:
    if period_from > period_to:
        raise InvalidRequest(f"period_from {period_from} is after period_to {period_to}; swap them")
    start, end = month_bounds(period_from)[0], month_bounds(period_to)[1]
    if (end.year - start.year) * 12 + end.month - start.month >= MAX_MONTHS:
        raise InvalidRequest(f"report at most {MAX_MONTHS} months at a time; narrow the periods")
    conditions = [Budget.period.between(period_from, period_to)]
    if account is not None:
        conditions.append(Budget.account_id == account.id)
    budgets = list(db.scalars(select(Budget).join(Account).where(*conditions).order_by(Account.code, Budget.period)))
    ids = {b.account_id for b in budgets}
    actual: dict[tuple[int, str], Decimal] = {}
    lines = db.execute(
        select(JournalLine.account_id, JournalEntry.entry_date, JournalLine.debit, JournalLine.credit)
        .join(JournalEntry)
        .where(*posted(start, end), JournalLine.account_id.in_(ids))
    )
    for account_id, day, debit, credit in lines:
        key = (account_id, day.strftime("%Y-%m"))
        actual[key] = actual.get(key, ZERO) + debit - credit
    rows = []
    for b in budgets:
        spent = signed(b.account, actual.get((b.account_id, b.period), ZERO))
        rows.append(
            {
                "budget_id": b.id,
                "account_id": b.account_id,
                "account": f"{b.account.code} {b.account.name}",
                "type": b.account.type,
                "period": b.period,
                "budget": text(b.amount),
                "actual": text(spent),
                "variance": text(b.amount - spent),
                "used_percent": None if b.amount == ZERO else str(round(spent * 100 / b.amount, 1)),
            }
        )
    return {"period_from": period_from, "period_to": period_to, "rows": rows}


Result = dict[str, Any]


@tools.capability("budget_set", idempotent=True, example={"account_id": 17, "period": "2026-12", "amount": "350.00"})
def budget_set(ctx: CallContext, args: di.BudgetSet) -> Result:
    """Set an account's budget for a month, replacing the one it had."""
    budget, created = set_budget(ctx.db, args)
    return {"budget": BUDGET.render(budget), "created": created}


records.add_list(tools, BUDGET, di.BudgetFilter, example={"period": "2026-10"}, references={"account_id": ACCOUNT})


@tools.capability("budget_report", read_only=True, example={"period_from": "2026-10", "period_to": "2026-11"})
def budget_report(ctx: CallContext, args: di.BudgetReport) -> Result:
    """Compare budgets with posted actuals per account and month."""
    account = ACCOUNT.fetch(ctx.db, args.account_id) if args.account_id is not None else None
    return report(ctx.db, args.period_from, args.period_to, account)


records.add_delete(tools, BUDGET, example_id=10)
