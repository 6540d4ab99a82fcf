"""The documents domain: office files in a sandboxed folder, with a searchable metadata index.

The handlers live in modules by concept and register on `domain` when imported; the import
order below is the registration order, and so the order in which every example runs against a
freshly seeded database and folder (every one succeeds; none needs a backend).

Seeded ids: documents 1-10 (1 reports/q3-board-report.docx, 2 policies/remote-work-policy.docx,
3 finance/budget-2027.xlsx, 4 sales/q3-sales.xlsx, 5 handbook/travel-policy.pdf,
6 contracts/nda-northwind.pdf, 7 data/customers.csv, 8-9 notes/meeting-2026-10-0{5,12}.md,
10 scratch/old-draft.md, which the delete example removes). Two files are left unregistered:
inbox/supplier-quote.pdf (document_add makes it 11) and inbox/expenses-october.csv
(folder_import). The create examples then make documents 12-16, document_convert 17,
pdf_merge 18 and pdf_split 19-20. Ids are never reused.
"""

from __future__ import annotations

from pathlib import Path

from facade.kit import Domain

from domains.documents.seed import seed

domain = Domain(
    "documents",
    description="Office documents: Word, Excel, PDF, CSV and Markdown files, searchable and tagged.",
    default_mode="full",
    migrations=Path(__file__).parent / "migrations",
    seed=seed,
)

# The package's __init__ imports this module first, so these modules always find `domain` bound.
from domains.documents import catalogue, reading, creating, tagging, analysis, pdfs, maintenance  # noqa: E402,F401,I001

__all__ = ["domain"]
