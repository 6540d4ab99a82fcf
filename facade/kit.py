"""The capability kit: everything a domain module needs, and the only part of the server a
domain may import. Dependencies point inward; the MCP, web and CLI layers stay out of reach."""

from facade import records
from facade.capability import Annotations, CallContext, Capability, Input, Mode, Tier
from facade.db import NO_ID_REUSE, Base, UTCDateTime, created_column, iso, one_of, updated_column, utcnow
from facade.domain import Domain
from facade.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable
from facade.records import Entity, Id, Page, values_of
from facade.sandbox import Sandbox, within

__all__ = [
    "Annotations",
    "Base",
    "CallContext",
    "Capability",
    "Conflict",
    "Domain",
    "DomainError",
    "Entity",
    "Forbidden",
    "Id",
    "Input",
    "InvalidRequest",
    "Mode",
    "NO_ID_REUSE",
    "NotFound",
    "Page",
    "Sandbox",
    "Tier",
    "UTCDateTime",
    "Unavailable",
    "created_column",
    "iso",
    "one_of",
    "records",
    "updated_column",
    "utcnow",
    "values_of",
    "within",
]
