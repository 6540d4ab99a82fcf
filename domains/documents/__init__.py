"""Office documents in a sandboxed folder: read, create, convert, search and tag them, with a
searchable metadata index.

Every example succeeds on a freshly seeded database and folder whichever examples ran before it
(none needs a backend). Seeded ids: documents 1-10 (1 reports/q3-board-report.docx,
2 policies/remote-work-policy.docx, 3 finance/budget-2027.xlsx, 4 sales/q3-sales.xlsx,
5 handbook/travel-policy.pdf, 6 contracts/nda-northwind.pdf, 7 data/customers.csv,
8-9 notes/meeting-2026-10-0{5,12}.md, 10 scratch/old-draft.md, which only the delete example
touches). Three files are left unregistered: inbox/supplier-quote.pdf and
inbox/expenses-october.csv (folder_import's example) and scans/delivery-note-4471.pdf
(document_add's). The create examples write under drafts/, which no other example reads;
the append examples add to seeded files. Ids are never reused.
"""

from pathlib import Path

from domains.documents import analysis, catalogue, creating, maintenance, pdfs, reading, tagging
from domains.documents.seed import seed
from domains.documents.settings import DocumentsSettings
from facade.kit import Domain

domain = Domain(
    "documents",
    description="Office documents: Word, Excel, PDF, CSV and Markdown files, searchable and tagged.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
    toolsets=(
        catalogue.tools,
        reading.tools,
        creating.tools,
        tagging.tools,
        analysis.tools,
        pdfs.tools,
        maintenance.tools,
    ),
    settings=DocumentsSettings,
)

__all__ = ["domain"]
