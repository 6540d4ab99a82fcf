"""The demo library: real Word, Excel, PDF, CSV and Markdown files of a small company, made
with the same writers the capabilities use, and their metadata rows.

The files are made once, by `scripts/demo_files.py`, into `demo-files.zip` beside this module,
with the text the index extracts from each (`index.json`): making them at the first start
imported python-docx, openpyxl, fpdf2 and pypdf and cost ~0.55 s of CPU (issue 17); the seed
unpacks them. tests/test_demo_archives.py keeps the archive made from today's sources (`SOURCES`).

Written only into an empty documents table, always in the same order, so that ids are 1..N on a
fresh database (the capability examples rely on them). A file already in the folder is kept as
it is and indexed as found: the seed never overwrites what a user put there."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from facade.kit import MADE_FROM, pack_files, source_digest, steady_zip, unpack_files

from domains.documents.extract import Extracted, extract
from domains.documents.index import register
from domains.documents.sandbox import root, write_file
from domains.documents.tables import Document
from domains.documents.writers import Cell, csv_text, docx_bytes, pdf_bytes, set_modified, xlsx_bytes

ARCHIVE = Path(__file__).with_name("demo-files.zip")
INDEX = "index.json"  # the archive's member holding each registered file's extracted text
# What makes the files: an archive made from other sources than these is out of date.
SOURCES = ("domains.documents.seed", "domains.documents.writers", "domains.documents.extract", "facade.kit.demo_files")

# Fixed timestamps rather than "now", so that two seeded libraries hold the same rows.
T0 = datetime(2026, 10, 20, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class SeedFile:
    path: str
    build: Callable[[], bytes]
    modified: datetime
    tags: tuple[str, ...] = ()
    notes: str = ""
    registered: bool = True
    title: str | None = field(default=None)


def _at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def _board_report() -> bytes:
    return docx_bytes(
        "Q3 2026 Board Report",
        [
            ("heading1", "Summary"),
            ("paragraph", "Revenue for the third quarter reached £4.82 million, 12% above Q3 2025 and 3% ahead of "
             "plan. Gross margin held at 61%."),
            ("heading1", "Highlights"),
            ("bullet", "Signed three enterprise customers in logistics, including Harbour Freight Group."),
            ("bullet", "Launched the forecasting module to all customers on 15 September."),
            ("bullet", "Monthly churn fell to 1.9%, the lowest since 2023."),
            ("heading1", "Risks"),
            ("paragraph", "Hiring for the data platform team is six weeks behind plan; two senior engineering "
             "offers are still outstanding."),
        ],
        [["Metric", "Q3 2025", "Q3 2026"], ["Revenue (£m)", "4.30", "4.82"], ["Gross margin", "59%", "61%"],
         ["Customers", "212", "248"], ["Headcount", "86", "97"]],
        _at("2026-10-14T16:20:00"),
    )


def _remote_policy() -> bytes:
    return docx_bytes(
        "Remote Work Policy",
        [
            ("heading1", "Scope"),
            ("paragraph", "This policy applies to every employee of Larkspur Analytics Ltd from 1 November 2026."),
            ("heading1", "Working hours"),
            ("paragraph", "Core hours are 10:00 to 15:00 UK time. Outside core hours, plan your day freely."),
            ("heading1", "Equipment"),
            ("bullet", "Each employee receives a laptop, a monitor and a headset."),
            ("bullet", "A one-off home office allowance of £400 is paid with the first salary."),
            ("heading1", "Security"),
            ("paragraph", "Use the company VPN on public networks and lock your screen when you step away."),
        ],
        when=_at("2026-09-28T11:00:00"),
    )


def _budget() -> bytes:
    return xlsx_bytes(
        [
            ("Summary", [
                ["Department", "Q1", "Q2", "Q3", "Q4", "Total"],
                ["Marketing", 120000, 130000, 125000, 140000, 515000],
                ["Engineering", 410000, 420000, 430000, 445000, 1705000],
                ["Sales", 210000, 215000, 220000, 230000, 875000],
                ["Operations", 95000, 95000, 98000, 100000, 388000],
            ], False),
            ("Marketing", [
                ["Campaign", "Channel", "Quarter", "Budget"],
                ["Spring launch", "Paid search", "Q1", 45000],
                ["Trade show Berlin", "Events", "Q2", 60000],
                ["Customer webinars", "Content", "Q2", 15000],
                ["Autumn retargeting", "Paid social", "Q3", 38000],
                ["Year-end promotion", "Email", "Q4", 22000],
            ], True),
            ("Engineering", [
                ["Item", "Category", "Amount"],
                ["Cloud hosting", "Infrastructure", 260000],
                ["Contractors", "People", 180000],
                ["Developer tooling", "Software", 42000],
                ["Security audit", "Compliance", 35000],
            ], False),
        ],
        _at("2026-10-02T10:00:00"),
    )


def _sales() -> bytes:
    orders: list[list[Cell]] = [["Order", "Date", "Customer", "Region", "Amount"]]
    for n, (day, customer, region, amount) in enumerate([
        (date(2026, 7, 3), "Harbour Freight Group", "North", 48200),
        (date(2026, 7, 19), "Bramble & Co", "South", 12900),
        (date(2026, 8, 2), "Northwind Traders", "North", 36500),
        (date(2026, 8, 27), "Alder Health", "West", 22750),
        (date(2026, 9, 9), "Kestrel Logistics", "North", 99800),
        (date(2026, 9, 30), "Tamarind Foods", "South", 18400),
    ], start=1041):
        orders.append([f"SO-{n}", day, customer, region, amount])
    regions = [["Region", "Revenue"], ["North", 184500], ["South", 31300], ["West", 22750]]
    return xlsx_bytes([("Orders", orders, True), ("By region", regions, False)], _at("2026-10-03T08:30:00"))


def _travel_policy() -> bytes:
    text = (
        "# Purpose\n\nThis policy explains how to book business travel and claim expenses at Larkspur Analytics.\n\n"
        "# Booking travel\n\nBook trains and flights through the travel portal at least 14 days ahead. Economy class "
        "is the default for flights under six hours.\f"
        "# Hotels\n\nThe nightly limit is £160 in London and £120 elsewhere in the UK. Abroad, use the per-country "
        "limits on the intranet.\n\n# Meals\n\nMeals are covered up to £45 a day when travelling overnight.\f"
        "# Claiming expenses\n\nSubmit receipts in the expenses app within 30 days of the trip. Claims above £500 "
        "need approval from your budget holder.\n\n# Questions\n\nWrite to finance@larkspur.example."
    )
    return pdf_bytes("Travel and Expenses Policy", text, _at("2026-06-01T09:00:00"))[0]


def _nda() -> bytes:
    text = (
        "This agreement is made on 3 August 2026 between Larkspur Analytics Ltd and Northwind Traders plc.\n\n"
        "# 1. Confidential information\n\nEach party may share product plans, prices and customer data. The "
        "receiving party keeps it confidential and uses it only to evaluate a data partnership.\f"
        "# 2. Term\n\nThis agreement lasts three years from the date above.\n\n"
        "# 3. Governing law\n\nThe laws of England and Wales govern this agreement.\n\n"
        "Signed: Dana Whitfield (Larkspur Analytics), Marcus Oyelaran (Northwind Traders)"
    )
    return pdf_bytes("Mutual Non-Disclosure Agreement", text, _at("2026-08-03T14:00:00"))[0]


def _supplier_quote() -> bytes:
    text = (
        "Quotation Q-2026-118 for Larkspur Analytics, valid until 30 November 2026.\n\n"
        "20 x Laptop 14in at £1,150.00 each: £23,000.00\n\n20 x Docking station at £180.00 each: £3,600.00\n\n"
        "Total before VAT: £26,600.00. Delivery within ten working days of the order."
    )
    return pdf_bytes("Contoso Hardware quotation", text, _at("2026-10-16T15:45:00"))[0]


def _delivery_note() -> bytes:
    text = (
        "Delivery note 4471 from Contoso Hardware, 21 October 2026.\n\n"
        "Delivered: 20 x Laptop 14in, 20 x Docking station, against order PO-2026-0087.\n\n"
        "Received in good condition by T. Okafor, Leeds office."
    )
    return pdf_bytes("Contoso Hardware delivery note", text, _at("2026-10-21T10:05:00"))[0]


def _text(body: str) -> Callable[[], bytes]:
    return lambda: body.encode("utf-8")


CUSTOMERS = csv_text([
    ["customer_id", "name", "city", "plan", "monthly_revenue"],
    ["C-1001", "Harbour Freight Group", "Hull", "Enterprise", "8400.00"],
    ["C-1002", "Bramble & Co", "Bristol", "Team", "990.00"],
    ["C-1003", "Northwind Traders", "Leeds", "Business", "3100.00"],
    ["C-1004", "Alder Health", "Cardiff", "Business", "2450.00"],
    ["C-1005", "Kestrel Logistics", "Newcastle", "Enterprise", "9900.00"],
    ["C-1006", "Tamarind Foods", "Brighton", "Team", "1200.00"],
])
EXPENSES = csv_text([
    ["date", "employee", "category", "amount", "note"],
    ["2026-10-02", "Priya Natarajan", "Travel", "86.40", "Leeds to London return"],
    ["2026-10-02", "Priya Natarajan", "Hotel", "154.00", "One night, client workshop"],
    ["2026-10-09", "Tom Becker", "Meals", "38.50", "Team dinner after the release"],
    ["2026-10-15", "Dana Whitfield", "Travel", "212.00", "Flight to Dublin"],
])
MEETING_1 = (
    "# Product sync, 5 October 2026\n\nAttendees: Dana, Priya, Tom\n\n## Decisions\n\n"
    "- Forecasting v2 ships on 2 November.\n- The pricing page update moves to Q1.\n\n"
    "## Actions\n\n- Priya: draft the release notes\n- Tom: load-test the new API\n"
)
MEETING_2 = (
    "# Product sync, 12 October 2026\n\nAttendees: Dana, Priya, Tom, Sam\n\n## Decisions\n\n"
    "- Forecasting v2 ships on 2 November.\n- Sam joins the data platform team.\n\n"
    "## Actions\n\n- Priya: release notes out for review\n- Tom: load test passed at 2,000 requests a second\n"
)

FILES: list[SeedFile] = [
    SeedFile("reports/q3-board-report.docx", _board_report, _at("2026-10-14T16:20:00"), ("board", "finance", "draft"),
             "For the October board meeting."),
    SeedFile("policies/remote-work-policy.docx", _remote_policy, _at("2026-09-28T11:00:00"), ("hr", "policy")),
    SeedFile("finance/budget-2027.xlsx", _budget, _at("2026-10-02T10:00:00"), ("finance", "budget")),
    SeedFile("sales/q3-sales.xlsx", _sales, _at("2026-10-03T08:30:00"), ("sales",)),
    SeedFile("handbook/travel-policy.pdf", _travel_policy, _at("2026-06-01T09:00:00"), ("hr", "policy")),
    SeedFile("contracts/nda-northwind.pdf", _nda, _at("2026-08-03T14:00:00"), ("legal",), "Countersigned copy."),
    SeedFile("data/customers.csv", _text(CUSTOMERS), _at("2026-10-01T07:00:00"), ("sales", "crm"),
             title="Customer list"),
    SeedFile("notes/meeting-2026-10-05.md", _text(MEETING_1), _at("2026-10-05T12:00:00"), ("meetings",)),
    SeedFile("notes/meeting-2026-10-12.md", _text(MEETING_2), _at("2026-10-12T12:00:00"), ("meetings",)),
    SeedFile("scratch/old-draft.md", _text("# Newsletter draft\n\nSpring notes, superseded by the October issue.\n"),
             _at("2026-04-11T17:30:00"), ("draft",)),
    # Left unregistered: folder_import's example registers the inbox, document_add's the scan.
    SeedFile("inbox/supplier-quote.pdf", _supplier_quote, _at("2026-10-16T15:45:00"), registered=False),
    SeedFile("inbox/expenses-october.csv", _text(EXPENSES), _at("2026-10-17T09:10:00"), registered=False),
    SeedFile("scans/delivery-note-4471.pdf", _delivery_note, _at("2026-10-21T10:05:00"), registered=False),
]


def made() -> dict[str, bytes]:
    """Every demo file, path → bytes, the same bytes on every run."""
    return {item.path: steady_zip(data) if item.path.endswith((".docx", ".xlsx")) else data
            for item in FILES for data in [item.build()]}


def archive() -> bytes:
    """What `demo-files.zip` holds: the demo files, and the text the index extracts from each
    registered one."""
    files = made()
    index: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as folder:
        for item in FILES:
            if item.registered:
                real = Path(folder, item.path)
                real.parent.mkdir(parents=True, exist_ok=True)
                real.write_bytes(files[item.path])
                index[item.path] = asdict(extract(real, item.path))
    text = json.dumps(index, ensure_ascii=False, sort_keys=True, indent=1)
    return pack_files({**files, INDEX: text.encode("utf-8"), MADE_FROM: source_digest(SOURCES).encode()})


def seed(session: Session) -> None:
    """Write the demo files that are missing and register them, unless the documents table
    already has rows."""
    if session.scalar(select(Document.id).limit(1)) is not None:
        return
    base = root()
    files = unpack_files(ARCHIVE)
    index = json.loads(files[INDEX])
    for number, item in enumerate(FILES):
        real = base / item.path
        known: Extracted | None = None
        if not real.exists():
            write_file(real, item.path, files[item.path], overwrite=False)
            set_modified(real, item.modified)
            if item.registered:  # the text of the file just written; a user's file is read as found
                found = index[item.path]
                known = Extracted(found["kind"], [tuple(p) for p in found["parts"]], found["title"], found["page_count"])
        if item.registered:
            stamp = T0 + timedelta(minutes=number)
            register(session, real, item.path, title=item.title, notes=item.notes, tags=item.tags, now=stamp,
                     extracted=known)
