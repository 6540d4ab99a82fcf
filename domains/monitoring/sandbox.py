"""The monitoring domain's sandbox: the folder whose files `file_age` checks watch, and the only
one a check's path may name."""

from __future__ import annotations

from domains.monitoring.settings import settings
from facade.kit import Sandbox

SANDBOX = Sandbox(
    place="the monitoring sandbox",
    setting="FACADE_MONITORING_ROOT",
    locate=lambda: settings().root,
    example="heartbeats/nightly.ok",
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
display = SANDBOX.display
