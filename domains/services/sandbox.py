"""The services domain's sandbox: the one folder that holds every service's working folder and
log file, and the only one their paths may name."""

from __future__ import annotations

from domains.services.settings import settings
from facade.kit import Sandbox

SANDBOX = Sandbox(
    place="the services root",
    setting="FACADE_SERVICES_ROOT",
    locate=lambda: settings().root,
    example="logs/web.log",
)

# The operations this domain's modules call, by their short names.
root = SANDBOX.root
resolve = SANDBOX.resolve
relative = SANDBOX.relative
