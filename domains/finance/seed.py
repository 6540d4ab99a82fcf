"""A small design studio's first three months of books, written only into an empty ledger and
always the same rows in the same order, so ids are 1..N on a fresh database (capability examples
rely on them). The documents go through the domain's own rules, so the seeded ledger balances
exactly as one kept through the tools would."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance import claims, documents, ledger, rates, settlement
from domains.finance.document_inputs import DocumentLine, PaymentCreate
from domains.finance.document_tables import Bill, ExpenseClaim, Invoice, Payment, RecurringInvoice, RecurringInvoiceLine
from domains.finance.tables import Account, Budget, Currency, Customer, ExchangeRate, JournalEntry, TaxRate, Vendor

D = Decimal
CURRENCIES = [("EUR", "Euro", "€", True), ("USD", "US dollar", "$", False), ("GBP", "Pound sterling", "£", False),
              ("CHF", "Swiss franc", "CHF", False)]  # fmt: skip
RATES = [("USD", date(2026, 9, 1), "0.920000"), ("USD", date(2026, 10, 1), "0.910000"),
         ("GBP", date(2026, 9, 1), "1.170000"), ("GBP", date(2026, 10, 1), "1.160000"),
         ("CHF", date(2026, 10, 1), "1.060000")]  # fmt: skip
TAX_RATES = [("VAT 19%", "19.00", True), ("VAT 7%", "7.00", True), ("Zero-rated", "0.00", True),
             ("VAT 16% (2020)", "16.00", False)]  # fmt: skip
# code, name, type, role, is_bank
ACCOUNTS: list[tuple[str, str, str, str | None, bool]] = [
    ("1000", "Business bank account", "asset", None, True),
    ("1010", "Petty cash", "asset", None, True),
    ("1100", "Accounts receivable", "asset", "receivable", False),
    ("1200", "Input VAT", "asset", "tax_paid", False),
    ("1500", "Office equipment", "asset", None, False),
    ("2000", "Accounts payable", "liability", "payable", False),
    ("2100", "Output VAT", "liability", "tax_collected", False),
    ("2200", "Employee reimbursements payable", "liability", "reimbursements", False),
    ("2500", "Bank loan", "liability", None, False),
    ("3000", "Owner's capital", "equity", None, False),
    ("3900", "Retained earnings", "equity", None, False),
    ("4000", "Design services", "income", None, False),
    ("4100", "Consulting", "income", None, False),
    ("4900", "Other income", "income", None, False),
    ("5000", "Rent", "expense", None, False),
    ("5100", "Software and hosting", "expense", None, False),
    ("5200", "Travel", "expense", None, False),
    ("5300", "Office supplies", "expense", None, False),
    ("5400", "Bank charges", "expense", None, False),
    ("5500", "Subcontractors", "expense", None, False),
]
# name, email, address, tax number, payment terms (days)
CUSTOMERS = [
    ("Acme Robotics GmbH", "ap@acme-robotics.example", "Industriestrasse 12, 70565 Stuttgart", "DE281234567", 14),
    ("Blue Harbor Inc.", "accounts@blueharbor.example", "200 Pier Ave, Santa Monica, CA 90405, USA", "", 30),
    ("Café Lumen", "hallo@cafe-lumen.example", "Lindenstrasse 4, 10969 Berlin", "DE309876543", 14),
]
VENDORS = [
    ("Landmark Properties KG", "rent@landmark.example", "Friedrichstrasse 100, 10117 Berlin", "DE811122233", 5),
    ("Cloudworks Hosting Ltd", "billing@cloudworks.example", "1 Dock Road, Dublin 1, Ireland", "IE6388047V", 30),
    ("Papeterie Schmidt", "info@papeterie-schmidt.example", "Oranienstrasse 20, 10999 Berlin", "", 14),
]
REIMBURSED = date(2026, 10, 15)
BUDGETS = [(12, "8000.00"), (15, "1200.00"), (16, "250.00"), (17, "300.00"), (18, "100.00")]  # account id, amount

STAMPED: tuple[type[Any], ...] = (
    Currency, ExchangeRate, TaxRate, Account, Customer, Vendor, JournalEntry, Invoice, Bill, Payment, ExpenseClaim,
    Budget, RecurringInvoice,
)  # fmt: skip


def line(description: str, price: str, account_id: int, tax_rate_id: int | None, quantity: str = "1") -> DocumentLine:
    return DocumentLine(
        description=description, quantity=D(quantity), unit_price=D(price), account_id=account_id,
        tax_rate_id=tax_rate_id,
    )  # fmt: skip


def seed(session: Session) -> None:
    """Insert the demo books unless the ledger already has accounts."""
    if session.scalar(select(Account.id).limit(1)) is not None:
        return
    db = session

    def insert(rows: list[Any]) -> list[Any]:
        db.add_all(rows)
        db.flush()  # kind by kind, in list order, so that ids follow the lists above
        return rows

    currencies = insert([Currency(code=c, name=n, symbol=s, is_base=b) for c, n, s, b in CURRENCIES])
    by_code = {c.code: c for c in currencies}
    insert([ExchangeRate(currency=by_code[c], rate_date=d, rate=D(r)) for c, d, r in RATES])
    insert([TaxRate(name=n, rate=D(r), active=a) for n, r, a in TAX_RATES])
    accounts = insert([Account(code=c, name=n, type=t, role=r, is_bank=b) for c, n, t, r, b in ACCOUNTS])
    acct = {a.code: a for a in accounts}
    insert([Customer(name=n, email=e, address=a, tax_number=t, payment_terms_days=d) for n, e, a, t, d in CUSTOMERS])
    insert([Vendor(name=n, email=e, address=a, tax_number=t, payment_terms_days=d) for n, e, a, t, d in VENDORS])

    def manual(day: date, memo: str, debit: str, credit: str, amount: str) -> None:
        postings = [ledger.Posting(acct[debit], debit=D(amount)), ledger.Posting(acct[credit], credit=D(amount))]
        ledger.post(db, day, memo, postings)

    def invoice(customer: int, day: date, lines: list[DocumentLine], currency: str = "EUR", send: bool = True) -> None:
        doc = documents.create(db, documents.INVOICES, customer, day, lines, currency=by_code[currency])
        if send:
            documents.issue(db, documents.INVOICES, doc)

    def bill(vendor: int, ref: str, day: date, lines: list[DocumentLine], currency: str = "EUR",
             post: bool = True) -> None:  # fmt: skip
        doc = documents.create(db, documents.BILLS, vendor, day, lines, currency=by_code[currency], reference=ref)
        if post:
            documents.issue(db, documents.BILLS, doc)

    def pay(direction: str, day: date, document_id: int, amount: str, reference: str) -> None:
        allocations = [{"document_id": document_id, "amount": amount}]
        fields = {"direction": direction, "payment_date": day, "amount": amount, "allocations": allocations}
        settlement.create(db, PaymentCreate.model_validate({**fields, "reference": reference}))

    def claim(who: str, day: date, what: str, account: int, amount: str, tax: int | None) -> ExpenseClaim:
        values: dict[str, Any] = {"claimant": who, "claim_date": day, "description": what,
                                  "expense_account_id": account, "amount": D(amount), "tax_rate_id": tax}  # fmt: skip
        claims.check_create(db, values)  # fills in the tax, as finance.expense_claim_create does
        return insert([ExpenseClaim(**values, status="draft")])[0]

    manual(date(2026, 9, 1), "Owner's capital contribution", "1000", "3000", "20000.00")
    bill(1, "LP-2026-09", date(2026, 9, 1), [line("Office rent, September", "1200.00", 15, 3)])
    pay("made", date(2026, 9, 3), 1, "1200.00", "SEPA LP-2026-09")
    invoice(1, date(2026, 9, 5), [line("Brand identity package", "4500.00", 12, 1)])
    manual(date(2026, 9, 10), "Laptop and monitor for the studio", "1500", "1000", "1800.00")
    invoice(2, date(2026, 9, 20), [line("UX audit of the booking flow", "3000.00", 13, 3)], currency="USD")
    pay("received", date(2026, 9, 25), 1, "5355.00", "Acme remittance 8841")
    bill(1, "LP-2026-10", date(2026, 10, 1), [line("Office rent, October", "1200.00", 15, 3)])
    bill(2, "CW-88231", date(2026, 10, 1), [line("Hosting, October", "240.00", 16, 3)], currency="USD")
    pay("made", date(2026, 10, 3), 2, "1200.00", "SEPA LP-2026-10")
    menu = [line("Menu design", "350.00", 12, 1, "2"), line("Print-ready files", "120.00", 12, 2)]
    invoice(3, date(2026, 10, 2), menu)
    travel = claim("Jonas Weber", date(2026, 10, 7), "Train to the client workshop in Hamburg", 17, "84.02", 2)
    claims.submit(db, travel)
    claims.reimburse(db, travel, REIMBURSED, None)
    pay("received", date(2026, 10, 10), 2, "1000.00", "Wire BH-5521")
    bill(3, "PS-4471", date(2026, 10, 15), [line("Printer paper and toner", "85.00", 18, 1)])
    claims.submit(db, claim("Mia Schneider", date(2026, 10, 20), "Sketchbooks and markers", 18, "42.00", 1))
    manual(date(2026, 10, 22), "Design tablet (booked as office supplies by mistake)", "5300", "1000", "450.00")
    manual(date(2026, 10, 31), "Bank charges, October", "5400", "1000", "12.50")
    estimate = [ledger.Posting(acct["5400"], debit=D("38.00")), ledger.Posting(acct["1000"], credit=D("38.00"))]
    ledger.draft(db, date(2026, 10, 31), "Accrued October interest (estimate, superseded)", estimate)
    invoice(1, date(2026, 11, 10), [line("Website maintenance, November", "85.00", 12, 1, "10")], send=False)
    bill(3, "PS-Q-118", date(2026, 11, 4), [line("Quote: two desk chairs (not ordered)", "380.00", 18, 1)], post=False)
    claim("Jonas Weber", date(2026, 11, 5), "Taxi to the client site", 17, "21.96", 2)
    insert([Budget(account_id=a, period=p, amount=D(x)) for p in ("2026-10", "2026-11") for a, x in BUDGETS])
    templates = [
        ("Website maintenance retainer", 1, date(2026, 12, 1), None, line("Website maintenance", "85.00", 12, 1, "10")),
        ("Monthly social media pack", 3, date(2026, 11, 15), date(2027, 4, 15),
         line("Social media pack: 12 posts and 4 stories", "400.00", 12, 1)),
    ]  # fmt: skip
    for name, customer, start, end, item in templates:
        template = RecurringInvoice(name=name, customer_id=customer, currency=rates.base_currency(db),
                                    frequency="monthly", start_date=start, end_date=end, next_date=start,
                                    occurrences=0, active=True, notes="",
                                    lines=[RecurringInvoiceLine(position=1, **item.model_dump())])  # fmt: skip
        insert([template])
    _for_the_examples(db, insert, invoice, bill, claim, acct)
    _fix_timestamps(db)


def _for_the_examples(db: Session, insert: Any, invoice: Any, bill: Any, claim: Any, acct: dict[str, Account]) -> None:
    """Records that one example each changes, posts or deletes, so that no example depends on
    another having run (or not run). All drafts or unused: the seeded books stay as above."""
    insert([Customer(name="Studio Nord (never billed)", email="studio@nord.example", address="", tax_number="",
                     payment_terms_days=14)])  # customer 4: customer_delete's  # fmt: skip
    insert([Vendor(name="Kopierladen Mitte (never used)", email="info@kopierladen.example", address="",
                   tax_number="", payment_terms_days=14)])  # vendor 4: vendor_delete's  # fmt: skip
    invoice(3, date(2026, 11, 11), [line("Seasonal menu redesign", "650.00", 12, 1)], send=False)  # 5: invoice_update's
    invoice(1, date(2026, 11, 12), [line("Trade fair booth graphics", "1400.00", 12, 1)], send=False)  # 6: bulk send's
    invoice(3, date(2026, 11, 3), [line("Menu design (raised twice)", "350.00", 12, 1)], send=False)  # 7: invoice_delete's
    bill(2, "CW-89104", date(2026, 11, 1), [line("Hosting, November", "240.00", 16, 3)], currency="USD",
         post=False)  # 6: bill_update's  # fmt: skip
    bill(1, "LP-2026-11", date(2026, 11, 1), [line("Office rent, November", "1200.00", 15, 3)], post=False)  # 7: bill_post's
    loan = [ledger.Posting(acct["1000"], debit=D("10000.00")), ledger.Posting(acct["2500"], credit=D("10000.00"))]
    ledger.draft(db, date(2026, 11, 2), "Bank loan drawdown", loan)  # entry 20: journal_entry_update's
    charges = [ledger.Posting(acct["5400"], debit=D("11.80")), ledger.Posting(acct["1000"], credit=D("11.80"))]
    ledger.draft(db, date(2026, 11, 30), "Bank charges, November", charges)  # entry 21: journal_entry_post's
    claim("Mia Schneider", date(2026, 11, 6), "Parking at the client site", 17, "12.00", 1)  # 4: expense_claim_update's
    claim("Jonas Weber", date(2026, 11, 7), "Taxi to the client site (entered twice)", 17, "21.96", 2)  # 5: delete's


def _fix_timestamps(db: Session) -> None:
    """Stamp every seeded row at 09:00 UTC on its own business date (or the books' first day),
    so that two seeded databases hold the same rows, timestamps included."""
    first = date(2026, 9, 1)
    dated = ("entry_date", "issue_date", "bill_date", "payment_date", "claim_date", "rate_date", "start_date")
    for table in STAMPED:
        for record in db.scalars(select(table)):
            day = next((getattr(record, f) for f in dated if hasattr(record, f)), first)
            stamp = datetime.combine(day, time(9, 0), UTC)
            for field in ("created_at", "updated_at", "posted_at", "sent_at", "submitted_at"):
                always = field in ("created_at", "updated_at")
                if hasattr(record, field) and (always or getattr(record, field) is not None):
                    setattr(record, field, stamp)
            if getattr(record, "reimbursed_at", None) is not None:
                record.reimbursed_at = datetime.combine(REIMBURSED, time(9, 0), UTC)
    db.flush()
