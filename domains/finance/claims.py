"""Expense claims: draft → submitted (the cost and the debt to the claimant are booked) →
reimbursed (the debt is paid from a bank account). Only drafts change or are deleted."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import Session

from domains.finance import ledger
from domains.finance import document_inputs as di
from domains.finance.amounts import line_amounts
from domains.finance.document_tables import ExpenseClaim
from domains.finance.entities import ACCOUNT, EXPENSE_CLAIM, TAX_RATE
from domains.finance.ledger import today
from domains.finance.serialize import kind_of_account
from facade.kit import CallContext, Conflict, InvalidRequest, Toolset, records, utcnow

tools = Toolset()


def _priced(db: Session, account_id: int, amount: Any, tax_rate_id: int | None) -> Any:
    """The claim's tax, once its account and tax rate are checked."""
    account = ACCOUNT.fetch(db, account_id)
    if account.type != "expense":
        raise InvalidRequest(
            f"account {account.code} {account.name} is {kind_of_account(account)}; claims go to expense accounts "
            "(finance.account_list type=expense)"
        )
    if not account.active:
        raise Conflict(f"account {account.code} is inactive; pick an active expense account")
    percent = None
    if tax_rate_id is not None:
        tax_rate = TAX_RATE.fetch(db, tax_rate_id)
        if not tax_rate.active:
            raise Conflict(f"tax rate {tax_rate.id} ({tax_rate.name}) is inactive; pick one from finance.tax_rate_list")
        percent = tax_rate.rate
    return line_amounts(Decimal(1), amount, percent)[1]


def check_create(db: Session, values: dict[str, Any]) -> None:
    values["tax_amount"] = _priced(db, values["expense_account_id"], values["amount"], values["tax_rate_id"])


def check_update(db: Session, claim: ExpenseClaim, changes: dict[str, Any]) -> None:
    if {"expense_account_id", "amount", "tax_rate_id"} & changes.keys():
        changes["tax_amount"] = _priced(
            db,
            changes.get("expense_account_id", claim.expense_account_id),
            changes.get("amount", claim.amount),
            changes.get("tax_rate_id", claim.tax_rate_id),
        )


def submit(db: Session, claim: ExpenseClaim) -> ExpenseClaim:
    if claim.status != "draft":
        raise Conflict(f"expense claim {claim.id} is already {claim.status}")
    account = ACCOUNT.fetch(db, claim.expense_account_id)
    owed = claim.amount + claim.tax_amount
    postings = [
        ledger.Posting(account, debit=claim.amount, description=claim.description),
        ledger.Posting(ledger.role_account(db, "tax_paid"), debit=claim.tax_amount, description="Tax"),
        ledger.Posting(ledger.role_account(db, "reimbursements"), credit=owed, description=claim.claimant),
    ]
    memo = f"Expense claim {claim.id} by {claim.claimant}: {claim.description}"[:200]
    entry = ledger.post(db, claim.claim_date, memo, postings, source="expense_claim", source_id=claim.id)
    claim.status = "submitted"
    claim.journal_entry_id = entry.id
    claim.submitted_at = utcnow()
    db.flush()
    return claim


def reimburse(db: Session, claim: ExpenseClaim, paid_date: date, bank_account_id: int | None) -> ExpenseClaim:
    if claim.status == "draft":
        raise Conflict(f"expense claim {claim.id} is a draft; submit it with finance.expense_claim_submit first")
    if claim.status == "reimbursed":
        raise Conflict(f"expense claim {claim.id} is already reimbursed (entry {claim.paid_entry_id})")
    if paid_date < claim.claim_date:
        raise InvalidRequest(f"the claim is dated {claim.claim_date}; a reimbursement cannot be dated {paid_date}")
    bank = ledger.bank_account(db, bank_account_id)
    owed = claim.amount + claim.tax_amount
    postings = [
        ledger.Posting(ledger.role_account(db, "reimbursements"), debit=owed, description=claim.claimant),
        ledger.Posting(bank, credit=owed),
    ]
    memo = f"Reimbursement of expense claim {claim.id} to {claim.claimant}"[:200]
    entry = ledger.post(db, paid_date, memo, postings, source="expense_claim", source_id=claim.id)
    claim.status = "reimbursed"
    claim.paid_entry_id = entry.id
    claim.reimbursed_at = utcnow()
    db.flush()
    return claim


Result = dict[str, Any]

records.add_create(
    tools,
    EXPENSE_CLAIM,
    di.ExpenseClaimCreate,
    example={
        "claimant": "Mia Schneider",
        "claim_date": "2026-11-18",
        "description": "Parking at the client site",
        "expense_account_id": 17,
        "amount": "12.00",
        "tax_rate_id": 1,
    },
    check=check_create,
    references={"expense_account_id": ACCOUNT, "tax_rate_id": TAX_RATE},
    description="Create a draft expense claim; the tax comes from its tax rate.",
)
records.add_get(tools, EXPENSE_CLAIM, example_id=1)
records.add_list(tools, EXPENSE_CLAIM, di.ExpenseClaimFilter, example={"status": "submitted"})
records.add_update(
    tools,
    EXPENSE_CLAIM,
    di.ExpenseClaimUpdate,
    example={"expense_claim_id": 4, "amount": "15.00"},
    check=check_update,
    description="Change some fields of a draft expense claim.",
)


@tools.capability("expense_claim_submit", example={"expense_claim_id": 3})
def expense_claim_submit(ctx: CallContext, args: di.ExpenseClaimRef) -> Result:
    """Submit a draft expense claim, booking the cost and the debt to the claimant."""
    claim = submit(ctx.db, EXPENSE_CLAIM.fetch(ctx.db, args.expense_claim_id))
    return {"expense_claim": EXPENSE_CLAIM.render(claim)}


@tools.capability("expense_claim_reimburse", example={"expense_claim_id": 2, "paid_date": "2026-11-20"})
def expense_claim_reimburse(ctx: CallContext, args: di.ExpenseClaimReimburse) -> Result:
    """Pay a submitted expense claim back to its claimant from a bank account."""
    claim = EXPENSE_CLAIM.fetch(ctx.db, args.expense_claim_id)
    claim = reimburse(ctx.db, claim, args.paid_date or today(), args.bank_account_id)
    return {"expense_claim": EXPENSE_CLAIM.render(claim)}


records.add_delete(tools, EXPENSE_CLAIM, example_id=5, description="Delete a draft expense claim.")
