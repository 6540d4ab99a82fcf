"""The documents domain's sandbox: the one folder it touches. A caller's path becomes a real path
under the documents root only through `resolve`."""

from __future__ import annotations

from facade.kit import Sandbox

from domains.documents.settings import settings

SANDBOX = Sandbox(
    place="the documents root",
    setting="FACADE_DOCUMENTS_ROOT",
    locate=lambda: settings().root,
    example="reports/q3.docx",
    find="list the documents with documents.document_list",
    free="delete documents",
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
display = SANDBOX.display
existing_file = SANDBOX.existing_file
remove_file = SANDBOX.remove_file
folder_prefix = SANDBOX.folder_prefix
os_errors = SANDBOX.os_errors
read_bytes = SANDBOX.read_bytes
write_file = SANDBOX.write_file
