"""finance: initial tables

Revision ID: finance_0001
Revises:
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "finance_0001"
down_revision = None
branch_labels = ("finance",)
depends_on = None

# Frozen copies of the schema in domains/finance/tables.py and document_tables.py as of this
# revision; a migration must not import the live models, which keep changing after it ships.
NO_ID_REUSE = {"sqlite_autoincrement": True}
ENTRY = "finance_journal_entry"


def _id() -> sa.Column[Any]:
    return sa.Column("id", sa.Integer(), autoincrement=True, nullable=False)


def _timestamps() -> list[sa.Column[Any]]:
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    ]


def _money(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.Numeric(precision=18, scale=2), nullable=nullable)


def _ref(name: str, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.Integer(), nullable=nullable)


def _fk(table: str, column: str, target: str, ondelete: str | None = None) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}"), ondelete=ondelete
    )


def _pk(table: str) -> sa.PrimaryKeyConstraint:
    return sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}"))


def _check(table: str, name: str, sql: str) -> sa.CheckConstraint:
    return sa.CheckConstraint(sql, name=op.f(f"ck_{table}_{name}"))


def _index(table: str, column: str) -> None:
    op.create_index(op.f(f"ix_{table}_{column}"), table, [column], unique=False)


def _party(table: str) -> None:
    op.create_table(
        table,
        _id(),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("tax_number", sa.String(length=40), nullable=False),
        sa.Column("payment_terms_days", sa.Integer(), nullable=False),
        *_timestamps(),
        _pk(table),
        **NO_ID_REUSE,
    )


def _line_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        sa.Column("quantity", sa.Numeric(precision=12, scale=2), nullable=False),
        _money("unit_price"),
        _ref("account_id"),
        _ref("tax_rate_id", nullable=True),
    ]


def _document_lines(table: str, parent_column: str, parent: str, priced: bool = True) -> None:
    op.create_table(
        table,
        _id(),
        _ref(parent_column),
        *_line_columns(),
        *([_money("net_amount"), _money("tax_amount")] if priced else []),
        _fk(table, "account_id", "finance_account"),
        _fk(table, parent_column, parent, "CASCADE"),
        _fk(table, "tax_rate_id", "finance_tax_rate"),
        _pk(table),
        **NO_ID_REUSE,
    )
    _index(table, parent_column)


def _amounts() -> list[sa.Column[Any]]:
    return [
        _money("subtotal"),
        _money("tax_total"),
        _money("total"),
        _money("amount_paid"),
        sa.Column("exchange_rate", sa.Numeric(precision=18, scale=6), nullable=True),
        _money("base_total", nullable=True),
        _ref("journal_entry_id", nullable=True),
        _ref("void_entry_id", nullable=True),
    ]


def upgrade() -> None:
    t = "finance_currency"
    op.create_table(
        t,
        _id(),
        sa.Column("code", sa.String(length=3), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("symbol", sa.String(length=8), nullable=False),
        sa.Column("is_base", sa.Boolean(), nullable=False),
        *_timestamps(),
        _pk(t),
        sa.UniqueConstraint("code", name=op.f("uq_finance_currency_code")),
        **NO_ID_REUSE,
    )
    t = "finance_tax_rate"
    op.create_table(
        t,
        _id(),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("rate", sa.Numeric(precision=5, scale=2), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        *_timestamps(),
        _check(t, "rate", "rate >= 0 AND rate <= 100"),
        _pk(t),
        sa.UniqueConstraint("name", name=op.f("uq_finance_tax_rate_name")),
        **NO_ID_REUSE,
    )
    t = "finance_account"
    op.create_table(
        t,
        _id(),
        sa.Column("code", sa.String(length=20), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("type", sa.String(length=10), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=True),
        sa.Column("is_bank", sa.Boolean(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        *_timestamps(),
        _check(t, "type", "type IN ('asset', 'liability', 'equity', 'income', 'expense')"),
        _check(t, "role", "role IN ('receivable', 'payable', 'tax_collected', 'tax_paid', 'reimbursements')"),
        _pk(t),
        sa.UniqueConstraint("code", name=op.f("uq_finance_account_code")),
        sa.UniqueConstraint("role", name=op.f("uq_finance_account_role")),
        **NO_ID_REUSE,
    )
    _party("finance_customer")
    _party("finance_vendor")
    t = ENTRY
    op.create_table(
        t,
        _id(),
        sa.Column("entry_date", sa.Date(), nullable=False),
        sa.Column("memo", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        _ref("source_id", nullable=True),
        _ref("reverses_id", nullable=True),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('draft', 'posted')"),
        _check(t, "source", "source IN ('manual', 'invoice', 'bill', 'payment', 'expense_claim')"),
        _fk(t, "reverses_id", ENTRY),
        _pk(t),
        **NO_ID_REUSE,
    )
    _index(t, "entry_date")
    _index(t, "reverses_id")
    t = "finance_journal_line"
    op.create_table(
        t,
        _id(),
        _ref("entry_id"),
        _ref("account_id"),
        _money("debit"),
        _money("credit"),
        sa.Column("description", sa.String(length=200), nullable=False),
        _check(t, "amounts", "debit >= 0 AND credit >= 0 AND (debit = 0 OR credit = 0)"),
        _fk(t, "entry_id", ENTRY, "CASCADE"),
        _fk(t, "account_id", "finance_account"),
        _pk(t),
        **NO_ID_REUSE,
    )
    _index(t, "entry_id")
    _index(t, "account_id")
    t = "finance_exchange_rate"
    op.create_table(
        t,
        _id(),
        _ref("currency_id"),
        sa.Column("rate_date", sa.Date(), nullable=False),
        sa.Column("rate", sa.Numeric(precision=18, scale=6), nullable=False),
        *_timestamps(),
        _check(t, "rate", "rate > 0"),
        _fk(t, "currency_id", "finance_currency", "CASCADE"),
        _pk(t),
        sa.UniqueConstraint("currency_id", "rate_date", name=op.f("uq_finance_exchange_rate_currency_id")),
        **NO_ID_REUSE,
    )
    t = "finance_budget"
    op.create_table(
        t,
        _id(),
        _ref("account_id"),
        sa.Column("period", sa.String(length=7), nullable=False),
        _money("amount"),
        sa.Column("notes", sa.String(length=200), nullable=False),
        *_timestamps(),
        _fk(t, "account_id", "finance_account", "CASCADE"),
        _pk(t),
        sa.UniqueConstraint("account_id", "period", name=op.f("uq_finance_budget_account_id")),
        **NO_ID_REUSE,
    )
    t = "finance_recurring"
    op.create_table(
        t,
        _id(),
        sa.Column("name", sa.String(length=120), nullable=False),
        _ref("customer_id"),
        _ref("currency_id"),
        sa.Column("frequency", sa.String(length=10), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("end_date", sa.Date(), nullable=True),
        sa.Column("next_date", sa.Date(), nullable=True),
        sa.Column("occurrences", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        *_timestamps(),
        _check(t, "frequency", "frequency IN ('weekly', 'monthly', 'quarterly', 'yearly')"),
        _fk(t, "customer_id", "finance_customer"),
        _fk(t, "currency_id", "finance_currency"),
        _pk(t),
        **NO_ID_REUSE,
    )
    _index(t, "customer_id")
    _document_lines("finance_recurring_line", "template_id", "finance_recurring", priced=False)
    t = "finance_invoice"
    op.create_table(
        t,
        _id(),
        _ref("customer_id"),
        _ref("currency_id"),
        sa.Column("issue_date", sa.Date(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        *_amounts(),
        _ref("recurring_invoice_id", nullable=True),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('draft', 'sent', 'paid', 'void')"),
        _fk(t, "customer_id", "finance_customer"),
        _fk(t, "currency_id", "finance_currency"),
        _fk(t, "journal_entry_id", ENTRY),
        _fk(t, "void_entry_id", ENTRY),
        _fk(t, "recurring_invoice_id", "finance_recurring", "SET NULL"),
        _pk(t),
        **NO_ID_REUSE,
    )
    _index(t, "customer_id")
    _document_lines("finance_invoice_line", "invoice_id", "finance_invoice")
    t = "finance_bill"
    op.create_table(
        t,
        _id(),
        _ref("vendor_id"),
        sa.Column("reference", sa.String(length=60), nullable=False),
        _ref("currency_id"),
        sa.Column("bill_date", sa.Date(), nullable=False),
        sa.Column("due_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("notes", sa.Text(), nullable=False),
        *_amounts(),
        sa.Column("posted_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('draft', 'posted', 'paid', 'void')"),
        _fk(t, "vendor_id", "finance_vendor"),
        _fk(t, "currency_id", "finance_currency"),
        _fk(t, "journal_entry_id", ENTRY),
        _fk(t, "void_entry_id", ENTRY),
        _pk(t),
        sa.UniqueConstraint("vendor_id", "reference", name=op.f("uq_finance_bill_vendor_id")),
        **NO_ID_REUSE,
    )
    _document_lines("finance_bill_line", "bill_id", "finance_bill")
    t = "finance_payment"
    op.create_table(
        t,
        _id(),
        sa.Column("direction", sa.String(length=10), nullable=False),
        _ref("customer_id", nullable=True),
        _ref("vendor_id", nullable=True),
        _ref("currency_id"),
        sa.Column("payment_date", sa.Date(), nullable=False),
        _money("amount"),
        _money("base_amount"),
        _ref("bank_account_id"),
        sa.Column("reference", sa.String(length=60), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        _ref("journal_entry_id", nullable=True),
        _ref("void_entry_id", nullable=True),
        sa.Column("voided_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        _check(t, "direction", "direction IN ('received', 'made')"),
        _check(t, "status", "status IN ('posted', 'void')"),
        _check(t, "party", "(customer_id IS NULL) <> (vendor_id IS NULL)"),
        _fk(t, "customer_id", "finance_customer"),
        _fk(t, "vendor_id", "finance_vendor"),
        _fk(t, "currency_id", "finance_currency"),
        _fk(t, "bank_account_id", "finance_account"),
        _fk(t, "journal_entry_id", ENTRY),
        _fk(t, "void_entry_id", ENTRY),
        _pk(t),
        **NO_ID_REUSE,
    )
    _index(t, "customer_id")
    _index(t, "vendor_id")
    t = "finance_payment_allocation"
    op.create_table(
        t,
        _id(),
        _ref("payment_id"),
        _ref("invoice_id", nullable=True),
        _ref("bill_id", nullable=True),
        _money("amount"),
        _money("base_amount"),
        _check(t, "document", "(invoice_id IS NULL) <> (bill_id IS NULL)"),
        _fk(t, "payment_id", "finance_payment", "CASCADE"),
        _fk(t, "invoice_id", "finance_invoice"),
        _fk(t, "bill_id", "finance_bill"),
        _pk(t),
        **NO_ID_REUSE,
    )
    for column in ("payment_id", "invoice_id", "bill_id"):
        _index(t, column)
    t = "finance_expense_claim"
    op.create_table(
        t,
        _id(),
        sa.Column("claimant", sa.String(length=120), nullable=False),
        sa.Column("claim_date", sa.Date(), nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        _ref("expense_account_id"),
        _money("amount"),
        _ref("tax_rate_id", nullable=True),
        _money("tax_amount"),
        sa.Column("status", sa.String(length=12), nullable=False),
        _ref("journal_entry_id", nullable=True),
        _ref("paid_entry_id", nullable=True),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reimbursed_at", sa.DateTime(timezone=True), nullable=True),
        *_timestamps(),
        _check(t, "status", "status IN ('draft', 'submitted', 'reimbursed')"),
        _fk(t, "expense_account_id", "finance_account"),
        _fk(t, "tax_rate_id", "finance_tax_rate"),
        _fk(t, "journal_entry_id", ENTRY),
        _fk(t, "paid_entry_id", ENTRY),
        _pk(t),
        **NO_ID_REUSE,
    )


# Children before parents; dropping a table drops its indexes with it.
TABLES = (
    "finance_expense_claim",
    "finance_payment_allocation",
    "finance_payment",
    "finance_bill_line",
    "finance_bill",
    "finance_invoice_line",
    "finance_invoice",
    "finance_recurring_line",
    "finance_recurring",
    "finance_budget",
    "finance_exchange_rate",
    "finance_journal_line",
    ENTRY,
    "finance_vendor",
    "finance_customer",
    "finance_account",
    "finance_tax_rate",
    "finance_currency",
)


def downgrade() -> None:
    for table in TABLES:
        op.drop_table(table)
