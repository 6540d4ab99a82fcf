"""Double entry, written once: every posting balances, goes to active accounts, and once posted
never changes — a reversal (the same lines, debit and credit swapped) undoes it. Documents post
through here too, so their entries obey the same rules as a hand-written one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.finance.amounts import ZERO, check_fits, total
from domains.finance.entities import ACCOUNT, UNDO_TOOL
from domains.finance.inputs import EntryLine
from domains.finance.tables import Account, JournalEntry, JournalLine
from facade.kit import Conflict, InvalidRequest, NotFound, Unavailable, utcnow


@dataclass(frozen=True, slots=True)
class Posting:
    """One line of an entry about to be written."""

    account: Account
    debit: Decimal = ZERO
    credit: Decimal = ZERO
    description: str = ""


def today() -> date:
    return datetime.now(UTC).date()


def role_account(db: Session, role: str) -> Account:
    """The account the ledger posts `role` amounts to (receivables, output tax, …)."""
    account = db.scalar(select(Account).where(Account.role == role))
    if account is None:
        # Roles are given by the seed and protected from deletion, so only a hand-made database lacks one.
        raise Unavailable(f"the ledger has no {role} account; an operator must seed the finance domain")
    return account


def bank_account(db: Session, account_id: int | None) -> Account:
    """The bank account a payment goes through: the one named, or the first active one by code."""
    if account_id is None:
        account = db.scalar(
            select(Account).where(Account.is_bank.is_(True), Account.active.is_(True)).order_by(Account.code).limit(1)
        )
        if account is None:
            raise NotFound("there is no active bank account; create one with finance.account_create is_bank=true")
        return account
    account = ACCOUNT.fetch(db, account_id)
    if not account.is_bank:
        raise InvalidRequest(
            f"account {account.code} {account.name} is not a bank account; pass a bank account "
            "(finance.account_list is_bank=true) as bank_account_id"
        )
    return account


def postings_from(db: Session, lines: Sequence[EntryLine]) -> list[Posting]:
    """An entry's lines as given by a caller, with every account checked to exist."""
    return [Posting(ACCOUNT.fetch(db, line.account_id), line.debit, line.credit, line.description) for line in lines]


def check_balanced(postings: Sequence[Posting]) -> None:
    debits = check_fits(total(p.debit for p in postings), "the entry's debits")
    credits = check_fits(total(p.credit for p in postings), "the entry's credits")
    if debits != credits:
        raise InvalidRequest(
            f"the entry does not balance: debits total {debits}, credits total {credits}, "
            f"a difference of {abs(debits - credits)}; change the lines so that both totals match"
        )
    if debits == ZERO:
        raise InvalidRequest("the entry moves nothing (its total is 0.00); give its lines amounts")


def check_postable(postings: Sequence[Posting]) -> None:
    check_balanced(postings)
    for p in postings:
        if not p.account.active:
            raise Conflict(
                f"account {p.account.code} {p.account.name} is inactive and takes no postings; reactivate it "
                "with finance.account_update active=true or use another account"
            )


def write_lines(entry: JournalEntry, postings: Sequence[Posting]) -> None:
    entry.lines = [
        JournalLine(account=p.account, debit=p.debit, credit=p.credit, description=p.description)
        for p in postings
        if p.debit or p.credit  # a zero tax line on an untaxed document is no posting
    ]


def post(
    db: Session,
    entry_date: date,
    memo: str,
    postings: Sequence[Posting],
    source: str = "manual",
    source_id: int | None = None,
    reverses: JournalEntry | None = None,
) -> JournalEntry:
    """Write a posted entry; refused whole unless it balances on active accounts."""
    check_postable(postings)
    entry = JournalEntry(
        entry_date=entry_date,
        memo=memo,
        status="posted",
        source=source,
        source_id=source_id,
        reverses_id=reverses.id if reverses is not None else None,
        posted_at=utcnow(),
    )
    write_lines(entry, postings)
    db.add(entry)
    db.flush()
    return entry


def draft(db: Session, entry_date: date, memo: str, postings: Sequence[Posting]) -> JournalEntry:
    """A manual draft: it may not balance yet, it is checked when posted."""
    entry = JournalEntry(entry_date=entry_date, memo=memo, status="draft", source="manual")
    write_lines(entry, postings)
    db.add(entry)
    db.flush()
    return entry


def post_draft(entry: JournalEntry) -> None:
    if entry.status == "posted":
        raise Conflict(f"journal entry {entry.id} is already posted; nothing to do")
    check_postable([Posting(line.account, line.debit, line.credit, line.description) for line in entry.lines])
    entry.status = "posted"
    entry.posted_at = utcnow()


def reverse(db: Session, entry: JournalEntry, on_date: date, memo: str | None = None) -> JournalEntry:
    """A posted entry that undoes `entry` on `on_date`. Documents reverse their own entries
    through here when voided; a caller reverses only manual ones."""
    if entry.status != "posted":
        raise Conflict(f"journal entry {entry.id} is a draft; delete it with finance.journal_entry_delete instead")
    if entry.reverses_id is not None:
        raise Conflict(
            f"journal entry {entry.id} is itself the reversal of entry {entry.reverses_id}; "
            "post a new entry with finance.journal_entry_create instead"
        )
    if entry.reversals:
        raise Conflict(f"journal entry {entry.id} is already reversed by entry {entry.reversals[0].id}")
    if on_date < entry.entry_date:
        raise InvalidRequest(
            f"a reversal cannot be dated {on_date}, before the entry it reverses ({entry.entry_date}); "
            "give a date on or after it"
        )
    swapped = [Posting(line.account, line.credit, line.debit, line.description) for line in entry.lines]
    # A reversal may touch an account deactivated since: undoing history must stay possible.
    reversal = JournalEntry(
        entry_date=on_date,
        memo=memo or f"Reversal of entry {entry.id}: {entry.memo}"[:200],
        status="posted",
        source=entry.source,
        source_id=entry.source_id,
        reverses_id=entry.id,
        posted_at=utcnow(),
    )
    write_lines(reversal, swapped)
    db.add(reversal)
    db.flush()
    db.refresh(entry, ["reversals"])
    return reversal


def reverse_manual(db: Session, entry: JournalEntry, on_date: date, memo: str | None) -> JournalEntry:
    if entry.source != "manual" and entry.status == "posted":
        raise Conflict(
            f"journal entry {entry.id} was written by {entry.source.replace('_', ' ')} {entry.source_id}; "
            f"{UNDO_TOOL[entry.source]} so that the document and the ledger agree"
        )
    return reverse(db, entry, on_date, memo)
