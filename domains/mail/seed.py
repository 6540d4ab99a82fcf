"""A small, believable mailbox; written only into an empty store, always the same rows in the
same order, so ids are 1..N on a fresh database (capability examples rely on them)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from domains.mail import compose, threads
from domains.mail.tables import Contact, Folder, Label, Message, Rule

ME = "Sam Rivera <sam@example.com>"
PRIYA = "Priya Shah <priya@example.com>"
MARCO = "Marco Bianchi <marco@example.com>"
LENA = "Lena Fischer <lena@example.com>"
TOM = "Tom Okafor <tom@example.com>"

FOLDERS = [
    ("Inbox", "inbox"),
    ("Sent", "sent"),
    ("Drafts", "drafts"),
    ("Archive", "archive"),
    ("Trash", "trash"),
    ("Receipts", "custom"),
    ("Newsletters", "custom"),
]
LABELS = [("urgent", "#d0021b"), ("finance", "#417505"), ("travel", "#4a90e2"), ("team", "#9013fe")]
CONTACTS = [
    ("Priya Shah", "priya@example.com", "Finance lead; owns the quarterly budget."),
    ("Marco Bianchi", "marco@example.com", "Organises the team offsite."),
    ("Lena Fischer", "lena@example.com", "People & HR."),
    ("Tom Okafor", "tom@example.com", ""),
]

# folder (1-based), key, replying to (key), from, to, cc, subject, body, received (UTC), read,
# flagged, labels (1-based). Keys become Message-IDs, so replies thread by their headers.
Row = tuple[int, str, str | None, str, str, str, str, str, datetime, bool, bool, list[int]]
MESSAGES: list[Row] = [
    (1, "q3-budget", None, PRIYA, ME, "", "Q3 budget review",
     "Hi Sam,\n\nthe Q3 numbers are in: travel is 12% over plan, tooling 4% under.\n"
     "Can we go through them on Thursday?\n\nPriya", datetime(2026, 11, 23, 8, 12, tzinfo=UTC), True, False, [2]),
    (2, "q3-budget-re1", "q3-budget", ME, PRIYA, "", "Re: Q3 budget review",
     "Thursday works. I will bring the offsite estimate.\n\nSam", datetime(2026, 11, 23, 9, 40, tzinfo=UTC),
     True, False, []),
    (1, "q3-budget-re2", "q3-budget-re1", PRIYA, ME, MARCO, "Re: Q3 budget review",
     "Great. Marco, could you send the venue quotes before then? We need to freeze the budget by Friday.",
     datetime(2026, 11, 24, 7, 55, tzinfo=UTC), False, False, [2, 1]),
    (1, "nw4821", None, "Nordwind Airlines <bookings@nordwind.example>", ME, "",
     "Your flight confirmation NW4821",
     "Booking reference K7Q2ZD\nBerlin (BER) 08:05 -> Lisbon (LIS) 10:50, 9 December 2026\nSeat 14C",
     datetime(2026, 11, 25, 18, 2, tzinfo=UTC), False, False, [3]),
    (1, "venues", None, MARCO, ME, "", "Offsite venue options",
     "Three options for the March offsite:\n1. Quinta da Serra, Sintra\n2. Casa do Rio, Porto\n"
     "3. Hotel Mar, Cascais\nQuotes attached in the shared folder.", datetime(2026, 11, 26, 10, 30, tzinfo=UTC),
     True, True, [4]),
    (3, "venues-draft", "venues", ME, MARCO, "", "Re: Offsite venue options",
     "Sintra looks best. Can you check availability for 15-17 March?", datetime(2026, 11, 26, 11, 0, tzinfo=UTC),
     True, False, []),
    (6, "r10442", None, "Corner Books <receipts@cornerbooks.example>", ME, "", "Your receipt #10442",
     "1 x Designing Data-Intensive Applications   EUR 45.90\nTotal EUR 45.90",
     datetime(2026, 11, 12, 15, 20, tzinfo=UTC), True, False, []),
    (4, "welcome", None, LENA, ME, "", "Welcome to the team!",
     "Welcome aboard, Sam! Your laptop is ready at the front desk.", datetime(2026, 10, 1, 8, 0, tzinfo=UTC),
     True, False, []),
    (5, "digest", None, "Forum Digest <digest@forum.example>", ME, "", "Weekly digest: 12 new posts",
     "12 new posts in the topics you follow.", datetime(2026, 11, 2, 6, 0, tzinfo=UTC), True, False, []),
    (7, "runners", None, "City Runners <news@cityrunners.example>", ME, "", "December newsletter",
     "The winter series starts on 6 December at Tempelhofer Feld.", datetime(2026, 11, 28, 9, 0, tzinfo=UTC),
     False, False, []),
    (1, "expenses", None, LENA, ME, "", "Expense report reminder",
     "Please submit your November expenses by 3 December.", datetime(2026, 11, 27, 14, 0, tzinfo=UTC),
     False, False, []),
    (3, "lunch", None, ME, f"{PRIYA}, {MARCO}, {LENA}, {TOM}", "", "Team lunch on Friday?",
     "Shall we try the new Vietnamese place on Friday at 12:30?", datetime(2026, 11, 29, 17, 0, tzinfo=UTC),
     True, False, []),
]

# name, from contains, subject contains, move to folder, add label
RULES = [("Receipts to their folder", "receipts@", None, 6, None), ("Tag flights", None, "flight", None, 3)]


def message_id(key: str) -> str:
    return f"<{key}@mail.example.com>"


def seed(session: Session) -> None:
    """Insert the demo mailbox unless the folders table already has rows."""
    if session.scalar(select(Folder.id).limit(1)) is not None:
        return
    stamp = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
    folders = [Folder(name=n, role=r, created_at=stamp, updated_at=stamp) for n, r in FOLDERS]
    labels = [Label(name=n, color=c, created_at=stamp) for n, c in LABELS]
    contacts = [Contact(name=n, email=e, notes=t, created_at=stamp, updated_at=stamp) for n, e, t in CONTACTS]
    for kind in (folders, labels, contacts):  # flushed kind by kind, so ids follow the lists
        session.add_all(kind)
        session.flush()
    for row in MESSAGES:
        session.add(_message(session, row, folders, labels))
        session.flush()  # one by one: each threads against the ones before it
    session.add_all(
        Rule(name=n, from_contains=f, subject_contains=s, move_to_folder_id=m, add_label_id=lab, created_at=stamp,
             updated_at=stamp)
        for n, f, s, m, lab in RULES
    )
    session.flush()


def _message(session: Session, row: Row, folders: list[Folder], labels: list[Label]) -> Message:
    folder, key, parent, sender, to, cc, subject, body, received, read, flagged, label_ids = row
    in_reply_to = message_id(parent) if parent else None
    parent_row = session.scalar(select(Message).where(Message.message_id == in_reply_to)) if parent else None
    references = threads.references_for(parent_row) if parent_row is not None else ""
    message = Message(
        folder=folders[folder - 1],
        thread=threads.assign(session, subject, in_reply_to, references),
        message_id=message_id(key),
        in_reply_to=in_reply_to,
        reference_ids=references,
        from_addr=sender,
        to_addrs=to,
        cc_addrs=cc,
        subject=subject,
        body=body,
        received_at=received,
        is_read=read,
        is_flagged=flagged,
        labels=[labels[i - 1] for i in label_ids],
        created_at=received,
        updated_at=received,
    )
    # Drafts have no wire headers yet; everything else is stored as it came over the wire.
    if folders[folder - 1].role != "drafts":
        message.headers = compose.header_text(compose.to_email(message))
    return message
