"""Journal entries: drafts that change freely, posted entries that never change."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, select

from domains.finance import inputs, ledger
from domains.finance.entities import ACCOUNT, JOURNAL_ENTRY
from domains.finance.tables import JournalEntry, JournalLine
from facade.kit import CallContext, InvalidRequest, Toolset, records, within_days

tools = Toolset()

Result = dict[str, Any]


@tools.capability(
    "journal_entry_create",
    example={
        "entry_date": "2026-11-03",
        "memo": "Bank loan drawdown",
        "lines": [{"account_id": 1, "debit": "10000.00"}, {"account_id": 9, "credit": "10000.00"}],
    },
)
def journal_entry_create(ctx: CallContext, args: inputs.JournalEntryCreate) -> Result:
    """Create a journal entry as a draft, or posted at once when it balances."""
    postings = ledger.postings_from(ctx.db, args.lines)
    if args.post:
        entry = ledger.post(ctx.db, args.entry_date, args.memo, postings)
    else:
        entry = ledger.draft(ctx.db, args.entry_date, args.memo, postings)
    return {"journal_entry": JOURNAL_ENTRY.render(entry)}


records.add_get(tools, JOURNAL_ENTRY, example_id=4)


def _entries_where(args: inputs.JournalEntryFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if args.account_id is not None:
        touching = select(JournalLine.entry_id).where(JournalLine.account_id == args.account_id)
        conditions.append(JournalEntry.id.in_(touching))
    return conditions + within_days(JournalEntry.entry_date, args.date_from, args.date_to)


records.add_list(
    tools,
    JOURNAL_ENTRY,
    inputs.JournalEntryFilter,
    example={"status": "draft"},
    where=_entries_where,
    references={"account_id": ACCOUNT},
)


@tools.capability(
    "journal_entry_update",
    idempotent=True,
    example={"journal_entry_id": 20, "memo": "Bank loan drawdown (Sparkasse, 5 years)"},
)
def journal_entry_update(ctx: CallContext, args: inputs.JournalEntryUpdate) -> Result:
    """Change a draft journal entry's date, memo or lines."""
    entry = JOURNAL_ENTRY.fetch(ctx.db, args.journal_entry_id)
    JOURNAL_ENTRY.guard(entry)  # type: ignore[misc]
    changes = inputs.changes_of(args, "journal_entry_id")
    if not changes:
        raise InvalidRequest("nothing to change; give at least one of: entry_date, memo, lines")
    cleared = [f for f, v in changes.items() if v is None]
    if cleared:
        raise InvalidRequest(f"{', '.join(cleared)} cannot be null; omit a field to keep its current value")
    if "lines" in changes:
        postings = ledger.postings_from(ctx.db, changes.pop("lines"))
        entry.lines = []
        ctx.db.flush()
        ledger.write_lines(entry, postings)
    for field, value in changes.items():
        setattr(entry, field, value)
    ctx.db.flush()
    return {"journal_entry": JOURNAL_ENTRY.render(entry)}


@tools.capability("journal_entry_post", example={"journal_entry_id": 21})
def journal_entry_post(ctx: CallContext, args: inputs.JournalEntryRef) -> Result:
    """Post a draft journal entry, which must balance; it cannot change afterwards."""
    entry = JOURNAL_ENTRY.fetch(ctx.db, args.journal_entry_id)
    ledger.post_draft(entry)
    ctx.db.flush()
    return {"journal_entry": JOURNAL_ENTRY.render(entry)}


@tools.capability(
    "journal_entry_reverse",
    destructive=True,
    example={"journal_entry_id": 17, "entry_date": "2026-10-31", "memo": "Reversal: the tablet is equipment"},
)
def journal_entry_reverse(ctx: CallContext, args: inputs.JournalEntryReverse) -> Result:
    """Post the mirror image of a posted manual entry, undoing it."""
    entry = JOURNAL_ENTRY.fetch(ctx.db, args.journal_entry_id)
    reversal = ledger.reverse_manual(ctx.db, entry, args.entry_date or ledger.today(), args.memo)
    return {"reversal": JOURNAL_ENTRY.render(reversal), "reversed_id": entry.id}


records.add_delete(tools, JOURNAL_ENTRY, example_id=19, description="Delete a draft journal entry.")
