"""Budgets per account and month, and how the actuals compare."""

from __future__ import annotations

from typing import Any

from domains.finance import budgets
from domains.finance import document_inputs as di
from domains.finance.capabilities import domain
from domains.finance.entities import ACCOUNT, BUDGET
from facade.kit import CallContext, records

Result = dict[str, Any]


@domain.capability("budget_set", idempotent=True, example={"account_id": 17, "period": "2026-12", "amount": "350.00"})
def budget_set(ctx: CallContext, args: di.BudgetSet) -> Result:
    """Set an account's budget for a month, replacing the one it had."""
    budget, created = budgets.set_budget(ctx.db, args)
    return {"budget": BUDGET.render(budget), "created": created}


records.add_list(domain, BUDGET, di.BudgetFilter, example={"period": "2026-10"}, references={"account_id": ACCOUNT})


@domain.capability("budget_report", read_only=True, example={"period_from": "2026-10", "period_to": "2026-11"})
def budget_report(ctx: CallContext, args: di.BudgetReport) -> Result:
    """Compare budgets with posted actuals per account and month."""
    account = ACCOUNT.fetch(ctx.db, args.account_id) if args.account_id is not None else None
    return budgets.report(ctx.db, args.period_from, args.period_to, account)


records.add_delete(domain, BUDGET, example_id=11)
