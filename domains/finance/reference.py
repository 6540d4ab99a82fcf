"""The rules of the reference data the documents point at: account codes are unique and an
account with history keeps its type and is deactivated rather than deleted; a tax rate in use
keeps its percentage; a customer or vendor with documents stays."""

from __future__ import annotations

import csv
import io
from typing import Any

from pydantic import ValidationError
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from domains.finance.document_tables import (
    Bill,
    BillLine,
    ExpenseClaim,
    Invoice,
    InvoiceLine,
    Payment,
    RecurringInvoice,
    RecurringInvoiceLine,
)
from domains.finance.inputs import AccountCreate
from domains.finance.tables import Account, Budget, Customer, JournalLine, TaxRate, Vendor
from facade.kit import Conflict, DomainError, InvalidRequest, each

MAX_IMPORT_ROWS = 500


def count(db: Session, table: type[Any], *where: ColumnElement[bool]) -> int:
    return db.scalar(select(func.count()).select_from(table).where(*where)) or 0


def described(counts: dict[str, int]) -> str:
    """"3 invoices and 1 payment" from {"invoice": 3, "payment": 1, "bill": 0}."""
    parts = [f"{n} {name}{'' if n == 1 else 's'}" for name, n in counts.items() if n]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# Accounts


def account_code_free(db: Session, code: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(Account).where(func.lower(Account.code) == code.lower(), Account.id != except_id))
    if clash is not None:
        raise Conflict(f"account code {code} is taken by account {clash.id} ({clash.name}); choose another code")


def check_account_create(db: Session, values: dict[str, Any]) -> None:
    account_code_free(db, values["code"])
    if values.get("is_bank") and values["type"] != "asset":
        raise InvalidRequest("only an asset account can be a bank account; set type='asset' or is_bank=false")


def account_usage(db: Session, account_id: int) -> dict[str, int]:
    """What refers to an account, by kind; any of these keeps the account from being deleted."""
    return {
        "journal line": count(db, JournalLine, JournalLine.account_id == account_id),
        "invoice line": count(db, InvoiceLine, InvoiceLine.account_id == account_id),
        "bill line": count(db, BillLine, BillLine.account_id == account_id),
        "recurring invoice line": count(db, RecurringInvoiceLine, RecurringInvoiceLine.account_id == account_id),
        "expense claim": count(db, ExpenseClaim, ExpenseClaim.expense_account_id == account_id),
        "payment": count(db, Payment, Payment.bank_account_id == account_id),
    }


def check_account_update(db: Session, account: Account, changes: dict[str, Any]) -> None:
    if "code" in changes:
        account_code_free(db, changes["code"], account.id)
    new_type = changes.get("type", account.type)
    if new_type != account.type:
        if account.role is not None:
            raise Conflict(f"account {account.code} is the ledger's {account.role} account; its type cannot change")
        lines = count(db, JournalLine, JournalLine.account_id == account.id)
        if lines:
            raise Conflict(
                f"account {account.code} has {lines} journal lines; changing its type would move them to another "
                "part of the balance sheet. Create a new account and deactivate this one instead"
            )
    if changes.get("is_bank", account.is_bank) and new_type != "asset":
        raise InvalidRequest("only an asset account can be a bank account; set type='asset' or is_bank=false")
    if changes.get("active") is False and account.role is not None:
        raise Conflict(f"account {account.code} is the ledger's {account.role} account; it must stay active")


def check_account_delete(db: Session, account: Account) -> dict[str, Any]:
    if account.role is not None:
        raise Conflict(f"account {account.code} is the ledger's {account.role} account and cannot be deleted")
    used = account_usage(db, account.id)
    if any(used.values()):
        raise Conflict(
            f"account {account.code} is used by {described(used)}; deactivate it with finance.account_update "
            "active=false instead"
        )
    return {"deleted_budgets": count(db, Budget, Budget.account_id == account.id)}


def import_accounts(db: Session, text: str) -> dict[str, Any]:
    """Create one account per CSV row; each row succeeds or fails on its own."""
    try:
        reader = csv.DictReader(io.StringIO(text.strip()))
        header = [h.strip().lower() for h in reader.fieldnames or []]
        missing = [c for c in ("code", "name", "type") if c not in header]
        if missing:
            raise InvalidRequest(f"the CSV header lacks {', '.join(missing)}; start with a line like code,name,type")
        reader.fieldnames = header
        rows = list(reader)
    except csv.Error as exc:
        raise InvalidRequest(f"the CSV cannot be read ({exc}); send plain comma-separated text") from None
    if len(rows) > MAX_IMPORT_ROWS:
        raise InvalidRequest(f"the CSV has {len(rows)} rows; import at most {MAX_IMPORT_ROWS} at a time")
    lines = dict(enumerate(rows, start=2))  # line 1 is the header

    def create(number: int) -> dict[str, Any]:
        fields = {k: (v or "").strip() for k, v in lines[number].items() if k in AccountCreate.model_fields}
        if not fields.get("is_bank"):
            fields.pop("is_bank", None)
        try:
            values = AccountCreate.model_validate(fields).model_dump()
        except ValidationError as exc:  # the row's own problem, e.g. "type: Input should be …"
            problem = exc.errors()[0]
            where = ".".join(str(part) for part in problem["loc"])
            raise DomainError(f"{where}: {problem['msg']}") from None
        check_account_create(db, values)
        account = Account(**values)
        db.add(account)
        db.flush()
        return {"account_id": account.id, "code": account.code}

    return each(lines, "line", create)


# Tax rates


def tax_name_free(db: Session, name: str, except_id: int | None = None) -> None:
    clash = db.scalar(select(TaxRate.id).where(func.lower(TaxRate.name) == name.lower(), TaxRate.id != except_id))
    if clash is not None:
        raise Conflict(f"tax rate {clash} is already named {name!r}; choose another name")


def check_tax_rate_create(db: Session, values: dict[str, Any]) -> None:
    tax_name_free(db, values["name"])


def check_tax_rate_update(db: Session, rate: TaxRate, changes: dict[str, Any]) -> None:
    if "name" in changes:
        tax_name_free(db, changes["name"], rate.id)
    if "rate" in changes and changes["rate"] != rate.rate:
        used = {
            "invoice line": count(db, InvoiceLine, InvoiceLine.tax_rate_id == rate.id),
            "bill line": count(db, BillLine, BillLine.tax_rate_id == rate.id),
            "recurring invoice line": count(db, RecurringInvoiceLine, RecurringInvoiceLine.tax_rate_id == rate.id),
            "expense claim": count(db, ExpenseClaim, ExpenseClaim.tax_rate_id == rate.id),
        }
        if any(used.values()):
            raise Conflict(
                f"tax rate {rate.id} is used by {described(used)}, whose tax it would misstate; create a new "
                "tax rate with finance.tax_rate_create and set active=false on this one"
            )


# Customers and vendors


def check_customer_delete(db: Session, customer: Customer) -> dict[str, Any]:
    used = {
        "invoice": count(db, Invoice, Invoice.customer_id == customer.id),
        "payment": count(db, Payment, Payment.customer_id == customer.id),
        "recurring invoice": count(db, RecurringInvoice, RecurringInvoice.customer_id == customer.id),
    }
    if any(used.values()):
        raise Conflict(
            f"customer {customer.id} has {described(used)}; a customer with history stays in the books "
            "(delete its draft invoices and templates first if it has nothing else)"
        )
    return {}


def check_vendor_delete(db: Session, vendor: Vendor) -> dict[str, Any]:
    used = {
        "bill": count(db, Bill, Bill.vendor_id == vendor.id),
        "payment": count(db, Payment, Payment.vendor_id == vendor.id),
    }
    if any(used.values()):
        raise Conflict(
            f"vendor {vendor.id} has {described(used)}; a vendor with history stays in the books "
            "(delete its draft bills first if it has nothing else)"
        )
    return {}
