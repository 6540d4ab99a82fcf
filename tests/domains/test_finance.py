"""The finance domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable), the ledger's rules hold and say what to
do instead, the reports add up, and the migration builds exactly the schema of the tables.

The rule tests start from a seeded database restored from one template per module (SQLite's
backup API), which is the same data a fresh migrate-and-seed gives, in a fraction of the time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, func, select

from domains.finance import domain
from domains.finance.document_tables import Invoice
from domains.finance.tables import JournalEntry
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, sqlite_engine

finance = DomainHarness(domain)
call, capability, migrated, seeded = finance.call, finance.capability, finance.migrated, finance.seeded
SEEDED_RECEIVABLES = "2801.40"  # invoice 2's open 2,000 USD (1,840.00) plus invoice 3 (961.40)
SEEDED_PAYABLES = "319.55"  # bill 3 (240 USD at 0.91 = 218.40) plus bill 4 (101.15)


# Helpers and fixtures


def balance_of(engine: Engine, code: str, as_of: str = "2026-12-31") -> str:
    rows = call(engine, "trial_balance", as_of=as_of)["accounts"]
    row = next((r for r in rows if r["code"] == code), None)
    if row is None:
        return "0.00"
    debit, credit = Decimal(row["debit"]), Decimal(row["credit"])
    return str(debit - credit if debit else credit)


def lines_of(entry: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(line["account"].split()[0], line["debit"], line["credit"]) for line in entry["lines"]]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return finance.template(tmp_path_factory.mktemp("finance"))


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One engine for the module: its compiled-statement cache survives from test to test."""
    engine = sqlite_engine(tmp_path_factory.mktemp("finance") / "work.db")
    yield engine
    engine.dispose()


@pytest.fixture
def db(template: Path, shared: Engine) -> Engine:
    """A seeded database, restored from the template before every test."""
    source = sqlite3.connect(template / "facade.db")
    target = shared.raw_connection()
    try:
        source.backup(target.driver_connection)  # type: ignore[arg-type]
    finally:
        target.close()
        source.close()
    return shared


# The catalogue, the walk, the migration and the seed


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers in the intended
    share, every one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        finance.assert_tiers(at_least=70)

    def test_reports_and_bulk_are_full(self) -> None:
        full = {c.action for c in domain.capabilities if c.tier == "full"}
        expected = {"trial_balance", "balance_sheet", "general_ledger_export", "invoice_bulk_send", "account_import"}
        assert expected <= full

    def test_descriptions_are_one_short_sentence(self) -> None:
        finance.assert_descriptions_are_one_sentence(max_length=100)
        finance.assert_descriptions_differ()

    def test_annotations_match_the_verbs(self) -> None:
        reports = {
            "trial_balance", "profit_and_loss", "balance_sheet", "aged_receivables", "aged_payables", "cash_flow",
        }  # fmt: skip
        finance.assert_annotations_follow_the_verbs(
            reads=("_get", "_list", "_report", "_export", "_history", "_statement", "_convert"),
            destructive=("_delete", "_void", "_reverse"),  # what undoes a record
            also_reads=reports,
        )

    def test_inputs_declare_no_identity_and_examples_validate(self) -> None:
        finance.assert_no_identity_fields()
        finance.assert_examples_validate()


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds, returns JSON-friendly data, and leaves books that still balance."""

    def test_sqlite(self, tmp_path: Path) -> None:
        engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        outcomes = finance.assert_walk_succeeds(engine)
        assert outcomes["trial_balance"]["balanced"] and outcomes["balance_sheet"]["balanced"]
        assert outcomes["cash_flow"]["reconciles"]
        engine.dispose()

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, tmp_path: Path, seed: int) -> None:
        engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        outcomes = finance.assert_walk_succeeds(engine, shuffle=seed)
        assert outcomes["trial_balance"]["balanced"] and outcomes["balance_sheet"]["balanced"]
        assert outcomes["cash_flow"]["reconciles"]
        engine.dispose()

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        outcomes = finance.assert_walk_succeeds(seeded(migrated(pg_schema())))
        assert outcomes["trial_balance"]["balanced"] and outcomes["cash_flow"]["reconciles"]


class TestMigration(MigrationContract):
    """The migration against tables.py, for the eighteen finance tables."""

    harness, tables = finance, 18


class TestSeed:
    """The seed is deterministic, idempotent, and its books balance."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        assert [a["code"] for a in call(db, "account_list", limit=3)["accounts"]] == ["1000", "1010", "1100"]
        assert [i["status"] for i in call(db, "invoice_list")["invoices"]] == ["paid", "sent", "sent"] + ["draft"] * 4
        assert [b["status"] for b in call(db, "bill_list")["bills"]] == ["paid", "paid", "posted", "posted"] + ["draft"] * 3
        assert call(db, "journal_entry_list", limit=1)["total"] == 21
        assert call(db, "journal_entry_get", journal_entry_id=19)["journal_entry"]["status"] == "draft"

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        seeded(db)
        assert call(db, "journal_entry_list", limit=1)["total"] == 21
        assert call(db, "account_list", limit=1)["total"] == 20

    def test_books_balance_and_control_accounts_match_the_documents(self, db: Engine) -> None:
        assert call(db, "trial_balance", as_of="2026-12-31")["balanced"]
        assert call(db, "balance_sheet", as_of="2026-12-31")["balanced"]
        assert balance_of(db, "1100") == SEEDED_RECEIVABLES
        assert call(db, "aged_receivables", as_of="2026-12-31")["totals"]["total"] == SEEDED_RECEIVABLES
        assert balance_of(db, "2000") == SEEDED_PAYABLES
        assert call(db, "aged_payables", as_of="2026-12-31")["totals"]["total"] == SEEDED_PAYABLES

    def test_timestamps_are_fixed_and_utc(self, db: Engine) -> None:
        invoice = call(db, "invoice_get", invoice_id=1)["invoice"]
        assert invoice["created_at"] == invoice["sent_at"] == "2026-09-05T09:00:00+00:00"
        with session_factory(db)() as session:
            stamp = session.scalar(select(JournalEntry.posted_at).where(JournalEntry.id == 1))
            assert stamp is not None and stamp.utcoffset() is not None and stamp.utcoffset().total_seconds() == 0


# The ledger's rules


class TestDoubleEntry:
    """Postings balance or are refused with both totals; posted entries never change."""

    LOAN = [{"account_id": 1, "debit": "100.00"}, {"account_id": 9, "credit": "90.00"}]

    def test_unbalanced_posting_names_both_totals_and_the_difference(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match=r"debits total 100\.00, credits total 90\.00, a difference of 10\.00"):
            call(db, "journal_entry_create", entry_date="2026-11-02", memo="Loan", lines=self.LOAN, post=True)
        assert call(db, "journal_entry_list", limit=1)["total"] == 21

    def test_a_draft_may_be_unbalanced_until_it_is_posted(self, db: Engine) -> None:
        draft = call(db, "journal_entry_create", entry_date="2026-11-02", memo="Loan", lines=self.LOAN)
        entry_id = draft["journal_entry"]["id"]
        assert draft["journal_entry"]["balanced"] is False
        with pytest.raises(InvalidRequest, match="does not balance"):
            call(db, "journal_entry_post", journal_entry_id=entry_id)
        fixed = [self.LOAN[0], {"account_id": 9, "credit": "100.00"}]
        call(db, "journal_entry_update", journal_entry_id=entry_id, lines=fixed)
        posted = call(db, "journal_entry_post", journal_entry_id=entry_id)["journal_entry"]
        assert posted["status"] == "posted" and posted["balanced"]
        assert balance_of(db, "2500") == "100.00"

    def test_posted_entries_are_immutable(self, db: Engine) -> None:
        for action in ("journal_entry_update", "journal_entry_delete"):
            extra = {"memo": "Edited"} if action.endswith("update") else {}
            with pytest.raises(Conflict, match=r"journal entry 1 is posted and cannot change; reverse it"):
                call(db, action, journal_entry_id=1, **extra)
        with pytest.raises(Conflict, match=r"written by invoice 1; void the invoice with finance\.invoice_void"):
            call(db, "journal_entry_update", journal_entry_id=4, memo="Edited")

    def test_reversal_swaps_the_lines_once(self, db: Engine) -> None:
        reversal = call(db, "journal_entry_reverse", journal_entry_id=17, entry_date="2026-10-31")["reversal"]
        assert lines_of(reversal) == [("5300", "0.00", "450.00"), ("1000", "450.00", "0.00")]
        original = call(db, "journal_entry_get", journal_entry_id=17)["journal_entry"]
        assert original["reversed_by_ids"] == [reversal["id"]]
        with pytest.raises(Conflict, match=f"already reversed by entry {reversal['id']}"):
            call(db, "journal_entry_reverse", journal_entry_id=17)
        with pytest.raises(Conflict, match="itself the reversal of entry 17"):
            call(db, "journal_entry_reverse", journal_entry_id=reversal["id"])

    def test_reversal_rules(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"written by invoice 1; void the invoice"):
            call(db, "journal_entry_reverse", journal_entry_id=4)
        with pytest.raises(InvalidRequest, match="before the entry it reverses"):
            call(db, "journal_entry_reverse", journal_entry_id=17, entry_date="2026-10-01")
        with pytest.raises(Conflict, match="is a draft; delete it"):
            call(db, "journal_entry_reverse", journal_entry_id=19)

    def test_inactive_accounts_take_no_postings(self, db: Engine) -> None:
        call(db, "account_update", account_id=14, active=False)
        lines = [{"account_id": 1, "debit": "5.00"}, {"account_id": 14, "credit": "5.00"}]
        with pytest.raises(Conflict, match=r"account 4900 Other income is inactive.*active=true"):
            call(db, "journal_entry_create", entry_date="2026-11-02", memo="Refund", lines=lines, post=True)

    def test_missing_account_is_named(self, db: Engine) -> None:
        lines = [{"account_id": 1, "debit": "5.00"}, {"account_id": 404, "credit": "5.00"}]
        with pytest.raises(NotFound, match=r"account 404 does not exist; list accounts with finance\.account_list"):
            call(db, "journal_entry_create", entry_date="2026-11-02", memo="Typo", lines=lines)


class TestAccounts:
    """Codes are unique; an account with history keeps its type and is deactivated, not deleted."""

    def test_duplicate_code(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"account code 1000 is taken by account 1 \(Business bank account\)"):
            call(db, "account_create", code="1000", name="Second bank", type="asset")
        with pytest.raises(Conflict, match="account code 1010 is taken"):
            call(db, "account_update", account_id=1, code="1010")

    def test_type_change_needs_an_unused_account(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="has 2 journal lines; changing its type"):
            call(db, "account_update", account_id=15, type="asset")
        assert call(db, "account_update", account_id=14, type="expense")["account"]["type"] == "expense"
        with pytest.raises(InvalidRequest, match="only an asset account can be a bank account"):
            call(db, "account_update", account_id=14, is_bank=True)

    def test_ledger_accounts_are_protected(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="ledger's receivable account and cannot be deleted"):
            call(db, "account_delete", account_id=3)
        with pytest.raises(Conflict, match="ledger's payable account; it must stay active"):
            call(db, "account_update", account_id=6, active=False)

    def test_delete_refuses_used_accounts_and_takes_budgets(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"used by 2 journal lines and 3 bill lines; deactivate it"):
            call(db, "account_delete", account_id=15)
        call(db, "budget_set", account_id=14, period="2026-12", amount="50.00")
        assert call(db, "account_delete", account_id=14)["deleted_budgets"] == 1

    def test_import_reports_each_row(self, db: Engine) -> None:
        csv = (
            "code,name,type,is_bank\n5700,Training,expense,\n1000,Duplicate,asset,\n5800,Oops,costs,\n"
            "1020,Savings,asset,true\n"
        )
        result = call(db, "account_import", csv=csv)
        assert [r["ok"] for r in result["results"]] == [True, False, False, True]
        assert "taken by account 1" in result["results"][1]["error"]
        assert result["results"][2]["error"].startswith("type:")
        assert call(db, "account_list", is_bank=True)["total"] == 3
        with pytest.raises(InvalidRequest, match="header lacks type"):
            call(db, "account_import", csv="code,name\n1,x\n")


class TestReferenceData:
    """Tax rates in use keep their percentage; currencies and rates are unique per day;
    customers and vendors with documents stay."""

    def test_tax_rate_in_use_keeps_its_rate(self, db: Engine) -> None:
        used = r"tax rate 1 is used by 6 invoice lines, 2 bill lines, 2 recurring invoice lines and 2 expense claims"
        with pytest.raises(Conflict, match=used):
            call(db, "tax_rate_update", tax_rate_id=1, rate="20.00")
        assert call(db, "tax_rate_update", tax_rate_id=4, rate="15.00")["tax_rate"]["rate"] == "15.00"
        assert call(db, "tax_rate_update", tax_rate_id=1, active=False)["tax_rate"]["active"] is False

    def test_currencies_and_rates(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="currency USD already exists"):
            call(db, "currency_create", code="usd", name="Dollar")
        first = call(db, "exchange_rate_set", currency="USD", rate_date="2026-10-01", rate="0.905")
        rate = first["exchange_rate"]
        assert (first["created"], rate["id"], rate["rate"]) == (False, 2, "0.905000")
        with pytest.raises(InvalidRequest, match="EUR is the base currency"):
            call(db, "exchange_rate_set", currency="EUR", rate_date="2026-10-01", rate="1.1")
        with pytest.raises(NotFound, match="currency XYZ is not set up"):
            call(db, "currency_convert", amount="1.00", from_currency="XYZ", to_currency="EUR")
        converted = call(
            db, "currency_convert", amount="100.00", from_currency="EUR", to_currency="USD", on_date="2026-10-15"
        )
        assert converted["converted"] == "110.50"  # 100 / 0.905

    def test_parties_with_documents_stay(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="customer 1 has 3 invoices, 1 payment and 1 recurring invoice"):
            call(db, "customer_delete", customer_id=1)
        with pytest.raises(Conflict, match="vendor 1 has 3 bills and 2 payments"):
            call(db, "vendor_delete", vendor_id=1)
        assert call(db, "customer_list", search="lumen")["customers"][0]["id"] == 3

    def test_searches_take_wildcards_literally(self, db: Engine) -> None:
        for action in ("account_list", "customer_list", "vendor_list"):
            assert call(db, action, search="%")["total"] == call(db, action, search="_")["total"] == 0, action


class TestInvoices:
    """Totals come from lines and tax rates; sending posts to receivables; an issued invoice
    changes only its due date and notes, and is voided rather than deleted."""

    MENU = [
        {"description": "Menu design", "quantity": "2", "unit_price": "350.00", "account_id": 12, "tax_rate_id": 1},
        {"description": "Print-ready files", "unit_price": "120.00", "account_id": 12, "tax_rate_id": 2},
    ]

    def test_totals_come_from_lines_and_tax_rates(self, db: Engine) -> None:
        invoice = call(db, "invoice_create", customer_id=3, issue_date="2026-11-12", lines=self.MENU)["invoice"]
        assert (invoice["subtotal"], invoice["tax_total"], invoice["total"]) == ("820.00", "141.40", "961.40")
        assert invoice["due_date"] == "2026-11-26"  # Café Lumen pays in 14 days
        assert [line["tax_amount"] for line in invoice["lines"]] == ["133.00", "8.40"]

    def test_sending_posts_receivable_income_and_tax(self, db: Engine) -> None:
        invoice = call(db, "invoice_send", invoice_id=4)["invoice"]
        entry = call(db, "journal_entry_get", journal_entry_id=invoice["journal_entry_id"])["journal_entry"]
        assert lines_of(entry) == [("1100", "1011.50", "0.00"), ("4000", "0.00", "850.00"), ("2100", "0.00", "161.50")]
        assert (entry["source"], entry["source_id"], entry["balanced"]) == ("invoice", 4, True)
        with pytest.raises(Conflict, match="invoice 4 is already sent"):
            call(db, "invoice_send", invoice_id=4)

    def test_foreign_currency_converts_at_the_issue_date_rate(self, db: Engine) -> None:
        invoice = call(db, "invoice_get", invoice_id=2)["invoice"]
        assert (invoice["currency"], invoice["exchange_rate"], invoice["base_total"]) == ("USD", "0.920000", "2760.00")
        draft = call(db, "invoice_create", customer_id=2, issue_date="2026-09-15", currency="chf", lines=self.MENU)
        with pytest.raises(InvalidRequest, match=r"no CHF exchange rate on or before 2026-09-15; set one"):
            call(db, "invoice_send", invoice_id=draft["invoice"]["id"])

    def test_an_issued_invoice_changes_only_due_date_and_notes(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"invoice 3 is sent; only due_date and notes can change now, not lines"):
            call(db, "invoice_update", invoice_id=3, lines=self.MENU[:1])
        assert call(db, "invoice_update", invoice_id=3, due_date="2026-11-30")["invoice"]["due_date"] == "2026-11-30"
        with pytest.raises(InvalidRequest, match="due date 2026-11-01 is before the document date 2026-11-10"):
            call(db, "invoice_update", invoice_id=4, due_date="2026-11-01")
        with pytest.raises(InvalidRequest, match="issue_date cannot be null"):
            call(db, "invoice_update", invoice_id=4, issue_date=None)

    def test_lines_go_to_active_income_accounts_with_active_rates(self, db: Engine) -> None:
        bad_lines: list[tuple[dict[str, Any], type[DomainError], str]] = [
            ({"account_id": 15}, InvalidRequest, "5000 Rent is an expense account; invoice lines go to income"),
            ({"account_id": 3}, InvalidRequest, "is an asset account"),
            ({"tax_rate_id": 4}, Conflict, r"tax rate 4 \(VAT 16% \(2020\)\) is inactive"),
        ]
        for change, error, message in bad_lines:
            line = {"description": "Work", "unit_price": "10.00", "account_id": 12, **change}
            with pytest.raises(error, match=message):
                call(db, "invoice_create", customer_id=1, issue_date="2026-11-12", lines=[line])

    def test_void_and_delete_follow_the_status(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"invoice 1 has 5355\.00 paid by payment\(s\) 2; void those first"):
            call(db, "invoice_void", invoice_id=1)
        with pytest.raises(Conflict, match="invoice 4 is a draft and in no books; delete it"):
            call(db, "invoice_void", invoice_id=4)
        with pytest.raises(Conflict, match="invoice 3 is sent and in the books; void it"):
            call(db, "invoice_delete", invoice_id=3)
        voided = call(db, "invoice_void", invoice_id=3, void_date="2026-11-30")["invoice"]
        assert voided["status"] == "void" and voided["balance_due"] == "0.00"
        assert balance_of(db, "1100") == "1840.00"  # only Blue Harbor's open USD balance is left

    def test_bulk_send_reports_each_invoice(self, db: Engine) -> None:
        result = call(db, "invoice_bulk_send", invoice_ids=[4, 1, 99, 4])
        assert [(r["invoice_id"], r["ok"]) for r in result["results"]] == [(4, True), (1, False), (99, False)]
        assert "already paid" in result["results"][1]["error"]
        assert "invoice 99 does not exist" in result["results"][2]["error"]

    def test_duplicate_makes_a_fresh_draft(self, db: Engine) -> None:
        copy = call(db, "invoice_duplicate", invoice_id=2, issue_date="2026-12-01")["invoice"]
        shown = (copy["status"], copy["currency"], copy["total"], copy["amount_paid"])
        assert shown == ("draft", "USD", "3000.00", "0.00")

    def test_overdue_filter_reads_today(self, db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
        from datetime import date

        from domains.finance import sales

        monkeypatch.setattr(sales, "today", lambda: date(2026, 10, 18))
        assert [i["id"] for i in call(db, "invoice_list", overdue=True)["invoices"]] == [3]
        monkeypatch.setattr(sales, "today", lambda: date(2026, 10, 21))
        assert [i["id"] for i in call(db, "invoice_list", overdue=True)["invoices"]] == [2, 3]


class TestBills:
    """Bills mirror invoices: posting debits costs and input tax and credits payables."""

    def test_posting_debits_costs_and_input_tax(self, db: Engine) -> None:
        entry = call(db, "journal_entry_get", journal_entry_id=15)["journal_entry"]
        assert lines_of(entry) == [("2000", "0.00", "101.15"), ("5300", "85.00", "0.00"), ("1200", "16.15", "0.00")]

    def test_the_same_vendor_reference_is_entered_once(self, db: Engine) -> None:
        line = {"description": "Rent", "unit_price": "1200.00", "account_id": 15}
        with pytest.raises(Conflict, match="bill 1 of vendor 1 already has reference 'LP-2026-09'"):
            call(db, "bill_create", vendor_id=1, reference="LP-2026-09", bill_date="2026-09-01", lines=[line])
        other_vendor = call(
            db, "bill_create", vendor_id=2, reference="LP-2026-09", bill_date="2026-09-01", lines=[line]
        )
        assert other_vendor["bill"]["due_date"] == "2026-10-01"

    def test_bills_may_buy_assets_but_not_book_income(self, db: Engine) -> None:
        laptop = {"description": "Laptop", "unit_price": "1500.00", "account_id": 5, "tax_rate_id": 1}
        bill = call(db, "bill_create", vendor_id=3, reference="PS-5000", bill_date="2026-11-02", lines=[laptop])["bill"]
        assert bill["total"] == "1785.00"
        with pytest.raises(InvalidRequest, match="is an income account; bill lines go to expense or asset"):
            call(db, "bill_update", bill_id=bill["id"], lines=[{**laptop, "account_id": 12}])


class TestPayments:
    """A payment settles open documents of one party exactly; overpayment is refused; foreign
    documents settle at their own rate, leaving nothing on the control account."""

    def pay(self, db: Engine, direction: str, amount: str, *allocations: tuple[int, str], **extra: Any) -> Any:
        listed = [{"document_id": d, "amount": a} for d, a in allocations]
        args = {"direction": direction, "payment_date": "2026-11-20", "amount": amount, "allocations": listed}
        return call(db, "payment_create", **args, **extra)["payment"]

    def test_overpayment_is_refused(self, db: Engine) -> None:
        over = r"overpayment: invoice 3 has 961\.40 EUR left to pay and the allocation of 1000\.00 exceeds it by 38\.60"
        with pytest.raises(InvalidRequest, match=over):
            self.pay(db, "received", "1000.00", (3, "1000.00"))
        with pytest.raises(InvalidRequest, match=r"differs from its allocations \(961\.40\) by 10\.00"):
            self.pay(db, "received", "971.40", (3, "961.40"))

    def test_only_open_documents_of_one_party(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"invoice 4 is a draft .* finance\.invoice_send first"):
            self.pay(db, "received", "10.00", (4, "10.00"))
        with pytest.raises(Conflict, match="invoice 1 is paid"):
            self.pay(db, "received", "10.00", (1, "10.00"))
        with pytest.raises(InvalidRequest, match=r"belong to different customers \(2, 3\)"):
            self.pay(db, "received", "20.00", (2, "10.00"), (3, "10.00"))
        with pytest.raises(InvalidRequest, match="appear more than once"):
            self.pay(db, "received", "20.00", (3, "10.00"), (3, "10.00"))
        with pytest.raises(InvalidRequest, match="account 1100 Accounts receivable is not a bank account"):
            self.pay(db, "received", "10.00", (3, "10.00"), bank_account_id=3)

    def test_foreign_invoice_settles_at_its_own_rate(self, db: Engine) -> None:
        payment = self.pay(db, "received", "2000.00", (2, "2000.00"))
        assert (payment["currency"], payment["base_amount"]) == ("USD", "1840.00")
        assert call(db, "invoice_get", invoice_id=2)["invoice"]["status"] == "paid"
        assert balance_of(db, "1100") == "961.40"

    def test_rounding_never_strands_a_cent(self, db: Engine) -> None:
        call(db, "exchange_rate_set", currency="GBP", rate_date="2026-11-01", rate="0.5")
        line = {"description": "Sticker", "unit_price": "0.06", "account_id": 14}
        invoice = call(db, "invoice_create", customer_id=1, issue_date="2026-11-02", currency="GBP", lines=[line])
        invoice_id = invoice["invoice"]["id"]
        assert call(db, "invoice_send", invoice_id=invoice_id)["invoice"]["base_total"] == "0.03"
        bases = [self.pay(db, "received", a, (invoice_id, a))["base_amount"] for a in ("0.01", "0.01", "0.04")]
        assert bases == ["0.01", "0.01", "0.01"]  # each 0.01 GBP rounds up to 0.01; the last takes what is left
        assert balance_of(db, "1100") == SEEDED_RECEIVABLES

    def test_void_reopens_what_it_settled(self, db: Engine) -> None:
        voided = call(db, "payment_void", payment_id=2, void_date="2026-11-30")["payment"]
        assert voided["status"] == "void"
        invoice = call(db, "invoice_get", invoice_id=1)["invoice"]
        assert (invoice["status"], invoice["amount_paid"], invoice["balance_due"]) == ("sent", "0.00", "5355.00")
        with pytest.raises(Conflict, match="payment 2 is already void"):
            call(db, "payment_void", payment_id=2)

    def test_payment_made_settles_a_bill(self, db: Engine) -> None:
        payment = self.pay(db, "made", "240.00", (3, "240.00"), reference="Card 4411")
        assert (payment["vendor_id"], payment["base_amount"]) == (2, "218.40")
        entry = call(db, "journal_entry_get", journal_entry_id=payment["journal_entry_id"])["journal_entry"]
        assert lines_of(entry) == [("2000", "218.40", "0.00"), ("1000", "0.00", "218.40")]
        assert balance_of(db, "2000") == "101.15"


class TestExpenseClaims:
    """Submitting books the cost and the debt to the claimant; reimbursing pays it; only drafts change."""

    def test_submit_then_reimburse(self, db: Engine) -> None:
        claim = call(db, "expense_claim_submit", expense_claim_id=3)["expense_claim"]
        entry = call(db, "journal_entry_get", journal_entry_id=claim["journal_entry_id"])["journal_entry"]
        assert lines_of(entry) == [("5200", "21.96", "0.00"), ("1200", "1.54", "0.00"), ("2200", "0.00", "23.50")]
        paid = call(db, "expense_claim_reimburse", expense_claim_id=3, paid_date="2026-11-06")["expense_claim"]
        assert paid["status"] == "reimbursed"
        assert balance_of(db, "2200") == "49.98"  # claim 2 is still owed
        with pytest.raises(Conflict, match="already reimbursed"):
            call(db, "expense_claim_reimburse", expense_claim_id=3)

    def test_only_drafts_change(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="expense claim 2 is submitted and its cost is booked"):
            call(db, "expense_claim_update", expense_claim_id=2, amount="50.00")
        with pytest.raises(Conflict, match="expense claim 3 is a draft; submit it"):
            call(db, "expense_claim_reimburse", expense_claim_id=3)
        updated = call(db, "expense_claim_update", expense_claim_id=3, tax_rate_id=None)["expense_claim"]
        assert (updated["tax_amount"], updated["total"]) == ("0.00", "21.96")

    def test_claims_go_to_expense_accounts(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="claims go to expense accounts"):
            call(db, "expense_claim_create", claimant="Jo", claim_date="2026-11-01", description="Taxi",
                 expense_account_id=12, amount="10.00")  # fmt: skip


class TestRecurringInvoices:
    """Each run makes the occurrences due, counted from the start so month ends never drift."""

    def test_run_catches_up_and_moves_on(self, db: Engine) -> None:
        made = call(db, "recurring_invoice_run", as_of="2027-02-28")["invoices"]
        assert [(i["recurring_invoice_id"], i["issue_date"]) for i in made] == [
            (1, "2026-12-01"), (1, "2027-01-01"), (1, "2027-02-01"),
            (2, "2026-11-15"), (2, "2026-12-15"), (2, "2027-01-15"), (2, "2027-02-15"),
        ]  # fmt: skip
        assert call(db, "recurring_invoice_run", as_of="2027-02-28")["invoices"] == []
        templates = call(db, "recurring_invoice_list")["recurring_invoices"]
        assert [(t["next_date"], t["occurrences"]) for t in templates] == [("2027-03-01", 3), ("2027-03-15", 4)]

    def test_month_ends_do_not_drift_and_end_dates_stop(self, db: Engine) -> None:
        line = {"description": "Retainer", "unit_price": "100.00", "account_id": 13}
        template = call(db, "recurring_invoice_create", name="Month end", customer_id=2, frequency="monthly",
                        start_date="2027-01-31", end_date="2027-04-30", lines=[line])  # fmt: skip
        template_id = template["recurring_invoice"]["id"]
        made = call(db, "recurring_invoice_run", as_of="2027-12-31", send=True)["invoices"]
        mine = [i for i in made if i["recurring_invoice_id"] == template_id]
        assert [i["issue_date"] for i in mine] == ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"]
        assert {i["status"] for i in mine} == {"sent"}
        updated = call(db, "recurring_invoice_update", recurring_invoice_id=template_id, notes="Done")
        assert updated["recurring_invoice"]["next_date"] is None

    def test_end_before_start_is_refused(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="end date 2026-01-01 is before the start date"):
            call(db, "recurring_invoice_update", recurring_invoice_id=1, end_date="2026-01-01")


class TestReports:
    """The reports add up: statements balance, aging buckets by days past due, exports page."""

    def test_aged_receivables_as_of_two_dates(self, db: Engine) -> None:
        late = call(db, "aged_receivables", as_of="2026-11-30")
        assert [(r["invoice_id"], r["days_overdue"], r["bucket"], r["base_balance"]) for r in late["invoices"]] == [
            (3, 45, "31_60", "961.40"), (2, 41, "31_60", "1840.00"),
        ]  # fmt: skip
        early = call(db, "aged_receivables", as_of="2026-10-01")
        assert early["totals"]["current"] == early["totals"]["total"] == "2760.00"  # the USD payment came later

    def test_aged_payables(self, db: Engine) -> None:
        aged = call(db, "aged_payables", as_of="2026-11-30")
        assert [(r["bill_id"], r["bucket"]) for r in aged["bills"]] == [(4, "31_60"), (3, "1_30")]

    def test_profit_and_loss_and_cash_flow(self, db: Engine) -> None:
        pnl = call(db, "profit_and_loss", date_from="2026-10-01", date_to="2026-10-31")
        assert (pnl["income_total"], pnl["expense_total"], pnl["net_profit"]) == ("820.00", "2091.92", "-1271.92")
        flow = call(db, "cash_flow", date_from="2026-10-01", date_to="2026-10-31")
        assert flow["reconciles"] and flow["closing_cash"] == balance_of(db, "1000", "2026-10-31")
        with pytest.raises(InvalidRequest, match="date_from 2026-11-01 is after date_to 2026-10-01"):
            call(db, "cash_flow", date_from="2026-11-01", date_to="2026-10-01")

    def test_general_ledger_export(self, db: Engine) -> None:
        csv = call(db, "general_ledger_export", date_from="2026-09-01", date_to="2026-09-30", limit=3)
        header, *rows = csv["data"].splitlines()
        assert header == "date,entry_id,memo,source,account_code,account_name,debit,credit,description"
        assert rows[0] == "2026-09-01,1,Owner's capital contribution,manual,1000,Business bank account,20000.00,0.00,"
        assert (len(rows), csv["more"]) == (3, True)
        period = {"date_from": "2026-09-01", "date_to": "2026-12-31"}
        as_json = call(db, "general_ledger_export", format="json", account_id=3, **period)
        assert [r["debit"] for r in as_json["rows"] if r["debit"] != "0.00"] == ["5355.00", "2760.00", "961.40"]

    def test_account_history_pages_keep_the_running_balance(self, db: Engine) -> None:
        whole = call(db, "account_history", account_id=1)["lines"]
        page = call(db, "account_history", account_id=1, limit=2, offset=3)["lines"]
        assert page == whole[3:5]
        later = call(db, "account_history", account_id=1, date_from="2026-10-01")
        assert later["opening_balance"] == whole[[l["date"] < "2026-10-01" for l in whole].index(False) - 1]["balance"]

    def test_customer_statement(self, db: Engine) -> None:
        usd = call(db, "customer_statement", customer_id=2, date_from="2026-10-01", date_to="2026-11-30")
        usd = usd["currencies"]["USD"]
        assert (usd["opening_balance"], usd["closing_balance"]) == ("3000.00", "2000.00")
        assert [(r["type"], r["amount"]) for r in usd["lines"]] == [("payment", "-1000.00")]

    def test_budget_report(self, db: Engine) -> None:
        rows = call(db, "budget_report", period_from="2026-10", period_to="2026-10")["rows"]
        by_account = {r["account"]: (r["budget"], r["actual"], r["variance"]) for r in rows}
        assert by_account["5000 Rent"] == ("1200.00", "1200.00", "0.00")
        assert by_account["5300 Office supplies"] == ("100.00", "577.00", "-477.00")
        assert by_account["4000 Design services"] == ("8000.00", "820.00", "7180.00")

    def test_tax_report(self, db: Engine) -> None:
        report = call(db, "tax_report", date_from="2026-10-01", date_to="2026-10-31")
        assert report["output_tax"] == [
            {"tax_rate": "VAT 19%", "net": "700.00", "tax": "133.00"},
            {"tax_rate": "VAT 7%", "net": "120.00", "tax": "8.40"},
        ]
        assert (report["input_tax_total"], report["net_tax_due"]) == ("30.01", "111.39")


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("budget_set", {"account_id": 15, "period": "2026-13", "amount": "1.00"}),
            ("budget_set", {"account_id": 15, "period": "2026-12", "amount": "1.005"}),
            ("payment_create", {"direction": "received", "payment_date": "2026-11-01", "amount": "-5.00",
                                "allocations": [{"document_id": 3, "amount": "5.00"}]}),
            ("journal_entry_create", {"entry_date": "2026-11-01", "memo": "x",
                                      "lines": [{"account_id": 1, "debit": "1.00", "credit": "1.00"},
                                                {"account_id": 2, "credit": "1.00"}]}),
            ("journal_entry_create", {"entry_date": "2026-11-01", "memo": "x",
                                      "lines": [{"account_id": 1, "debit": "1"}]}),
            ("invoice_create", {"customer_id": 1, "issue_date": "2026-11-01", "lines": []}),
            ("account_create", {"code": "1 000", "name": "Bad", "type": "asset"}),
            ("account_create", {"code": "9000", "name": "Bad", "type": "asset", "auth_token": "x"}),
            ("exchange_rate_set", {"currency": "US", "rate_date": "2026-11-01", "rate": "1"}),
        ],
    )  # fmt: skip
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        with pytest.raises(ValidationError):
            capability(action).input_model.model_validate(args)

    def test_amounts_leave_as_strings(self, db: Engine) -> None:
        payment = call(db, "payment_get", payment_id=4)["payment"]
        assert payment["amount"] == "1000.00" and payment["base_amount"] == "920.00"

    def test_amounts_beyond_the_columns_are_refused(self, db: Engine) -> None:
        huge = {"description": "Everything", "quantity": "9999999999.99", "unit_price": "99999999999999.99",
                "account_id": 12}  # fmt: skip
        with pytest.raises(InvalidRequest, match="line 1 comes to .* more than the ledger can hold"):
            call(db, "invoice_create", customer_id=1, issue_date="2026-11-12", lines=[huge])
        odd = call(db, "account_import", csv="code,name,type\n1\x00,x,asset\n")["results"]
        assert not odd[0]["ok"] and odd[0]["error"].startswith("code:")

    def test_errors_name_the_fix(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "invoice_get", invoice_id=99)
        assert str(raised.value) == "not found: invoice 99 does not exist; list invoices with finance.invoice_list"

    def test_deleted_ids_are_never_reused(self, db: Engine) -> None:
        with session_factory(db)() as session:
            last = session.scalar(select(func.max(Invoice.id)))
        call(db, "invoice_delete", invoice_id=4)
        line = {"description": "Work", "unit_price": "10.00", "account_id": 12}
        created = call(db, "invoice_create", customer_id=1, issue_date="2026-11-12", lines=[line])["invoice"]
        assert created["id"] == last + 1
        with pytest.raises(NotFound, match="invoice 4 does not exist"):
            call(db, "invoice_get", invoice_id=4)
