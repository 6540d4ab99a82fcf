"""Line-level reads of the ledger: the general ledger export, one account's history with its
running balance, and the tax report (tax charged on sales against tax paid on costs)."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import ColumnElement, Select, func, null, select
from sqlalchemy.orm import Session

from domains.finance.amounts import ZERO, cents, text, to_base
from domains.finance.document_tables import Bill, BillLine, ExpenseClaim, Invoice, InvoiceLine
from domains.finance.statements import posted, signed
from domains.finance.tables import Account, JournalEntry, JournalLine, TaxRate

COLUMNS = ("date", "entry_id", "memo", "source", "account_code", "account_name", "debit", "credit", "description")


def _lines(conditions: list[ColumnElement[bool]]) -> Select[Any]:
    return (
        select(JournalLine, JournalEntry)
        .join(JournalEntry)
        .where(*conditions)
        .order_by(JournalEntry.entry_date, JournalEntry.id, JournalLine.id)
    )


def general_ledger(
    db: Session, date_from: date, date_to: date, account: Account | None, fmt: str, limit: int, offset: int
) -> dict[str, Any]:
    conditions = posted(date_from, date_to)
    if account is not None:
        conditions.append(JournalLine.account_id == account.id)
    count = db.scalar(select(func.count()).select_from(JournalLine).join(JournalEntry).where(*conditions)) or 0
    rows = [
        {
            "date": entry.entry_date.isoformat(),
            "entry_id": entry.id,
            "memo": entry.memo,
            "source": entry.source,
            "account_code": line.account.code,
            "account_name": line.account.name,
            "debit": text(line.debit),
            "credit": text(line.credit),
            "description": line.description,
        }
        for line, entry in db.execute(_lines(conditions).limit(limit).offset(offset))
    ]
    result: dict[str, Any] = {
        "format": fmt,
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
        "total": count,
        "returned": len(rows),
        "more": offset + len(rows) < count,
    }
    if fmt == "json":
        return result | {"rows": rows}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return result | {"data": out.getvalue()}


def history(
    db: Session, account: Account, date_from: date | None, date_to: date | None, limit: int, offset: int
) -> dict[str, Any]:
    """The account's posted lines, oldest first, each with the balance after it, read the way the
    account is read (debit-normal accounts positive on the debit side)."""
    opening = ZERO
    if date_from is not None:
        before = db.execute(
            select(func.sum(JournalLine.debit), func.sum(JournalLine.credit))
            .join(JournalEntry)
            .where(*posted(before=date_from), JournalLine.account_id == account.id)
        ).one()
        opening = signed(account, cents(before[0]) - cents(before[1]))
    conditions = [*posted(date_from, date_to), JournalLine.account_id == account.id]
    count = db.scalar(select(func.count()).select_from(JournalLine).join(JournalEntry).where(*conditions)) or 0
    # The page starts where the lines before it left the balance.
    skipped = _lines(conditions).limit(offset).subquery()
    before_page = db.execute(select(func.sum(skipped.c.debit), func.sum(skipped.c.credit))).one()
    balance = opening + signed(account, cents(before_page[0]) - cents(before_page[1]))
    lines = []
    for line, entry in db.execute(_lines(conditions).limit(limit).offset(offset)):
        balance += signed(account, line.debit - line.credit)
        lines.append(
            {"date": entry.entry_date.isoformat(), "entry_id": entry.id, "memo": entry.memo,
             "debit": text(line.debit), "credit": text(line.credit), "balance": text(balance)}
        )  # fmt: skip
    return {
        "account_id": account.id,
        "account": f"{account.code} {account.name}",
        "normal_balance": "debit" if account.type in ("asset", "expense") else "credit",
        "opening_balance": text(opening),
        "lines": lines,
        "total": count,
    }


def _by_rate(rows: Any) -> tuple[dict[str, dict[str, Decimal]], Decimal]:
    """Net and tax in the base currency per tax rate name, from (rate name, net, tax, fx rate)."""
    sums: dict[str, dict[str, Decimal]] = {}
    for name, net, tax, fx in rows:
        entry = sums.setdefault(name or "No tax", {"net": ZERO, "tax": ZERO})
        entry["net"] += to_base(net, fx or Decimal(1))
        entry["tax"] += to_base(tax, fx or Decimal(1))
    return sums, sum((s["tax"] for s in sums.values()), ZERO)


def _shown(sums: dict[str, dict[str, Decimal]]) -> list[dict[str, str]]:
    return [{"tax_rate": name, "net": text(s["net"]), "tax": text(s["tax"])} for name, s in sorted(sums.items())]


def tax_report(db: Session, date_from: date, date_to: date) -> dict[str, Any]:
    """Issued documents dated in the period (void ones excluded) and submitted claims."""
    sales = db.execute(
        select(TaxRate.name, InvoiceLine.net_amount, InvoiceLine.tax_amount, Invoice.exchange_rate)
        .select_from(InvoiceLine)
        .join(Invoice, InvoiceLine.invoice_id == Invoice.id)
        .outerjoin(TaxRate, InvoiceLine.tax_rate_id == TaxRate.id)
        .where(Invoice.status.in_(("sent", "paid")), Invoice.issue_date.between(date_from, date_to))
    )
    costs = list(
        db.execute(
            select(TaxRate.name, BillLine.net_amount, BillLine.tax_amount, Bill.exchange_rate)
            .select_from(BillLine)
            .join(Bill, BillLine.bill_id == Bill.id)
            .outerjoin(TaxRate, BillLine.tax_rate_id == TaxRate.id)
            .where(Bill.status.in_(("posted", "paid")), Bill.bill_date.between(date_from, date_to))
        )
    )
    costs += db.execute(
        select(TaxRate.name, ExpenseClaim.amount, ExpenseClaim.tax_amount, null())
        .select_from(ExpenseClaim)
        .outerjoin(TaxRate, ExpenseClaim.tax_rate_id == TaxRate.id)
        .where(ExpenseClaim.status != "draft", ExpenseClaim.claim_date.between(date_from, date_to))
    ).all()
    output, output_tax = _by_rate(sales)
    inputs, input_tax = _by_rate(costs)
    return {
        "date_from": date_from.isoformat(),
        "date_to": date_to.isoformat(),
        "output_tax": _shown(output),
        "output_tax_total": text(output_tax),
        "input_tax": _shown(inputs),
        "input_tax_total": text(input_tax),
        "net_tax_due": text(output_tax - input_tax),
    }
