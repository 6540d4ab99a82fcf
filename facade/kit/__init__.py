"""The capability kit: everything a domain module needs, and the only part of the server a
domain may import. Dependencies point inward; the MCP, web and CLI layers stay out of reach."""

from facade.kit import deadline, progress, records
from facade.kit.asking import Answer, CannotAsk
from facade.kit.content import Audio, Content, Embedded, Image, Text
from facade.kit.prompts import Argument, Message
from facade.kit.bulk import each
from facade.kit.capability import Annotations, Approval, CallContext, Capability, Input, Mode, Tier
from facade.kit.date_ranges import within_days
from facade.kit.db import NO_ID_REUSE, Base, UTCDateTime, created_column, iso, one_of, updated_column, utcnow
from facade.kit.demo_files import MADE_FROM, archive_digest, pack_files, pixel_png, source_digest, steady_zip, unpack_files
from facade.kit.domain import Domain
from facade.kit.domain_settings import data_folder, settings_reader
from facade.kit.lazy_imports import importing
from facade.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable
from facade.kit.patterns import Pattern, substitute, user_pattern
from facade.kit.records import Entity, Id, Page, contains_text, values_of
from facade.kit.sandbox import Sandbox, within
from facade.kit.tags import TagName, Tags
from facade.kit.toolset import Toolset

__all__ = [
    "Annotations",
    "Answer",
    "Approval",
    "Argument",
    "Audio",
    "Base",
    "CallContext",
    "CannotAsk",
    "Capability",
    "Conflict",
    "Content",
    "Domain",
    "DomainError",
    "Embedded",
    "Entity",
    "Forbidden",
    "Id",
    "Image",
    "Input",
    "InvalidRequest",
    "Message",
    "Mode",
    "NO_ID_REUSE",
    "NotFound",
    "Page",
    "Pattern",
    "Sandbox",
    "TagName",
    "Tags",
    "Text",
    "Tier",
    "MADE_FROM",
    "Toolset",
    "UTCDateTime",
    "Unavailable",
    "archive_digest",
    "contains_text",
    "created_column",
    "data_folder",
    "deadline",
    "each",
    "importing",
    "iso",
    "one_of",
    "pack_files",
    "pixel_png",
    "progress",
    "records",
    "settings_reader",
    "steady_zip",
    "source_digest",
    "substitute",
    "unpack_files",
    "updated_column",
    "user_pattern",
    "utcnow",
    "values_of",
    "within",
    "within_days",
]
