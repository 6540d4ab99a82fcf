"""Expense claims: what employees paid out of pocket, booked and then reimbursed."""

from __future__ import annotations

from typing import Any

from domains.finance import claims
from domains.finance import document_inputs as di
from domains.finance.capabilities import domain
from domains.finance.entities import ACCOUNT, EXPENSE_CLAIM, TAX_RATE
from domains.finance.ledger import today
from facade.kit import CallContext, records

Result = dict[str, Any]

records.add_create(
    domain,
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
    check=claims.check_create,
    references={"expense_account_id": ACCOUNT, "tax_rate_id": TAX_RATE},
    description="Create a draft expense claim; the tax comes from its tax rate.",
)
records.add_get(domain, EXPENSE_CLAIM, example_id=1)
records.add_list(domain, EXPENSE_CLAIM, di.ExpenseClaimFilter, example={"status": "submitted"})
records.add_update(
    domain,
    EXPENSE_CLAIM,
    di.ExpenseClaimUpdate,
    example={"expense_claim_id": 4, "amount": "15.00"},
    check=claims.check_update,
    description="Change some fields of a draft expense claim.",
)


@domain.capability("expense_claim_submit", example={"expense_claim_id": 3})
def expense_claim_submit(ctx: CallContext, args: di.ExpenseClaimRef) -> Result:
    """Submit a draft expense claim, booking the cost and the debt to the claimant."""
    claim = claims.submit(ctx.db, EXPENSE_CLAIM.fetch(ctx.db, args.expense_claim_id))
    return {"expense_claim": EXPENSE_CLAIM.render(claim)}


@domain.capability("expense_claim_reimburse", example={"expense_claim_id": 2, "paid_date": "2026-11-20"})
def expense_claim_reimburse(ctx: CallContext, args: di.ExpenseClaimReimburse) -> Result:
    """Pay a submitted expense claim back to its claimant from a bank account."""
    claim = EXPENSE_CLAIM.fetch(ctx.db, args.expense_claim_id)
    claim = claims.reimburse(ctx.db, claim, args.paid_date or today(), args.bank_account_id)
    return {"expense_claim": EXPENSE_CLAIM.render(claim)}


records.add_delete(domain, EXPENSE_CLAIM, example_id=4, description="Delete a draft expense claim.")
