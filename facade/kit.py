"""The capability kit: everything a domain module needs, and the only part of the server a
domain may import. Dependencies point inward; the MCP, web and CLI layers stay out of reach."""

from facade import records
from facade.bulk import each
from facade.capability import Annotations, CallContext, Capability, Input, Mode, Tier
from facade.date_ranges import within_days
from facade.db import NO_ID_REUSE, Base, UTCDateTime, created_column, iso, one_of, updated_column, utcnow
from facade.demo_files import pixel_png
from facade.domain import Domain
from facade.domain_settings import settings_reader
from facade.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable
from facade.records import Entity, Id, Page, contains_text, values_of
from facade.sandbox import Sandbox, within
from facade.tags import TagName, Tags

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
    "TagName",
    "Tags",
    "Tier",
    "UTCDateTime",
    "Unavailable",
    "contains_text",
    "created_column",
    "each",
    "iso",
    "one_of",
    "pixel_png",
    "records",
    "settings_reader",
    "updated_column",
    "utcnow",
    "values_of",
    "within",
    "within_days",
]
