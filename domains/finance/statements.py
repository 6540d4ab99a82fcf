"""The financial statements, read from posted journal lines only: trial balance, profit and
loss, balance sheet and cash flow. Drafts are in no statement; amounts are in the base currency."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from domains.finance.amounts import ZERO, cents, text, total
from domains.finance.ledger import today
from domains.finance.rates import base_currency
from domains.finance.tables import Account, JournalEntry, JournalLine
from facade.kit import InvalidRequest, within_days

DEBIT_NORMAL = frozenset({"asset", "expense"})
ACTIVITIES = ("operating", "investing", "financing")


def period(date_from: date | None, date_to: date | None) -> tuple[date, date]:
    """The period asked for: to today and from 1 January of the end's year unless given."""
    end = date_to or today()
    start = date_from or date(end.year, 1, 1)
    if start > end:
        raise InvalidRequest(f"date_from {start} is after date_to {end}; swap them or widen the period")
    return start, end


def posted(
    date_from: date | None = None, date_to: date | None = None, before: date | None = None
) -> list[ColumnElement[bool]]:
    """Posted entries dated in [date_from, date_to], or strictly before `before`."""
    conditions: list[ColumnElement[bool]] = [JournalEntry.status == "posted"]
    if before is not None:
        conditions.append(JournalEntry.entry_date < before)
    return conditions + within_days(JournalEntry.entry_date, date_from, date_to)


def movements(
    db: Session, date_from: date | None = None, date_to: date | None = None, before: date | None = None
) -> dict[int, Decimal]:
    """Debits minus credits per account over the period, posted entries only."""
    rows = db.execute(
        select(JournalLine.account_id, func.sum(JournalLine.debit), func.sum(JournalLine.credit))
        .join(JournalEntry)
        .where(*posted(date_from, date_to, before))
        .group_by(JournalLine.account_id)
    )
    return {account_id: cents(debit) - cents(credit) for account_id, debit, credit in rows}


def accounts(db: Session, ids: Iterable[int]) -> list[Account]:
    return list(db.scalars(select(Account).where(Account.id.in_(list(ids))).order_by(Account.code)))


def signed(account: Account, net_debit: Decimal) -> Decimal:
    """A balance the way the account is read: debit-normal accounts positive on the debit side."""
    return net_debit if account.type in DEBIT_NORMAL else -net_debit


def row(account: Account, amount: Decimal) -> dict[str, Any]:
    return {"account_id": account.id, "code": account.code, "name": account.name, "amount": text(amount)}


def trial_balance(db: Session, as_of: date) -> dict[str, Any]:
    net = movements(db, None, as_of)
    rows, debits, credits = [], ZERO, ZERO
    for account in accounts(db, net):
        balance = net[account.id]
        if balance == ZERO:
            continue
        debit, credit = (balance, ZERO) if balance > 0 else (ZERO, -balance)
        debits, credits = debits + debit, credits + credit
        rows.append(
            {"account_id": account.id, "code": account.code, "name": account.name, "type": account.type,
             "debit": text(debit), "credit": text(credit)}
        )  # fmt: skip
    return {
        "as_of": as_of.isoformat(),
        "currency": base_currency(db).code,
        "accounts": rows,
        "debit_total": text(debits),
        "credit_total": text(credits),
        "balanced": debits == credits,
    }


def _section(db: Session, net: dict[int, Decimal], types: tuple[str, ...]) -> tuple[list[dict[str, Any]], Decimal]:
    rows = [(a, signed(a, net[a.id])) for a in accounts(db, net) if a.type in types and net[a.id] != ZERO]
    return [row(a, amount) for a, amount in rows], total(amount for _, amount in rows)


def profit_and_loss(db: Session, date_from: date, date_to: date) -> dict[str, Any]:
    net = movements(db, date_from, date_to)
    income, income_total = _section(db, net, ("income",))
    expenses, expense_total = _section(db, net, ("expense",))
    return {
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
        "currency": base_currency(db).code,
        "income": income,
        "income_total": text(income_total),
        "expenses": expenses,
        "expense_total": text(expense_total),
        "net_profit": text(income_total - expense_total),
    }


def balance_sheet(db: Session, as_of: date) -> dict[str, Any]:
    net = movements(db, None, as_of)
    assets, asset_total = _section(db, net, ("asset",))
    liabilities, liability_total = _section(db, net, ("liability",))
    equity, equity_total = _section(db, net, ("equity",))
    # Income and expenses are never closed into equity by an entry here; their running result
    # is shown as one equity line, which is what keeps the two sides equal.
    _, income = _section(db, net, ("income",))
    _, expenses = _section(db, net, ("expense",))
    earnings = income - expenses
    equity.append({"account_id": None, "code": "", "name": "Earnings to date", "amount": text(earnings)})
    right = liability_total + equity_total + earnings
    return {
        "as_of": as_of.isoformat(),
        "currency": base_currency(db).code,
        "assets": assets,
        "asset_total": text(asset_total),
        "liabilities": liabilities,
        "liability_total": text(liability_total),
        "equity": equity,
        "equity_total": text(equity_total + earnings),
        "liabilities_and_equity_total": text(right),
        "balanced": asset_total == right,
    }


def activity_of(account: Account) -> str:
    """Where a counterpart of cash belongs in the cash flow statement."""
    if account.type in ("income", "expense") or account.role is not None:
        return "operating"
    return "investing" if account.type == "asset" else "financing"


def cash_flow(db: Session, date_from: date, date_to: date) -> dict[str, Any]:
    """Direct method: every posted entry that moves a bank account, split by its other lines,
    so that each counterpart account's share of the movement lands in its activity."""
    banks = list(db.scalars(select(Account).where(Account.is_bank.is_(True)).order_by(Account.code)))
    bank_ids = {a.id for a in banks}
    before = movements(db, before=date_from)
    opening = total(before.get(i, ZERO) for i in bank_ids)
    moved = select(JournalLine.entry_id).where(JournalLine.account_id.in_(bank_ids))
    lines = db.scalars(
        select(JournalLine).join(JournalEntry).where(*posted(date_from, date_to), JournalLine.entry_id.in_(moved))
    )
    by_account: dict[int, Decimal] = {}
    for line in lines:
        if line.account_id not in bank_ids:  # transfers between bank accounts cancel out
            by_account[line.account_id] = by_account.get(line.account_id, ZERO) + line.credit - line.debit
    sections: dict[str, dict[str, Any]] = {k: {"lines": [], "total": ZERO} for k in ACTIVITIES}
    for account in accounts(db, by_account):
        amount = by_account[account.id]
        if amount != ZERO:
            section = sections[activity_of(account)]
            section["lines"].append(row(account, amount))
            section["total"] += amount
    change = total(s["total"] for s in sections.values())
    closing = total(movements(db, None, date_to).get(i, ZERO) for i in bank_ids)
    return {
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
        "currency": base_currency(db).code,
        "bank_accounts": [f"{a.code} {a.name}" for a in banks],
        "opening_cash": text(opening),
        **{name: {"lines": s["lines"], "total": text(s["total"])} for name, s in sections.items()},
        "net_change": text(change),
        "closing_cash": text(closing),
        "reconciles": opening + change == closing,
    }
