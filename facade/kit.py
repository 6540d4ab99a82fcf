"""The capability kit: everything a domain module needs, and the only part of the server a
domain may import. Dependencies point inward; the MCP, web and CLI layers stay out of reach."""

from facade import records
from facade.capability import Annotations, CallContext, Capability, Input, Mode, Tier
from facade.db import Base
from facade.domain import Domain
from facade.errors import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable
from facade.records import Entity, Id, Page, values_of

__all__ = [
    "Annotations",
    "Base",
    "CallContext",
    "Capability",
    "Conflict",
    "Domain",
    "DomainError",
    "Entity",
    "Id",
    "Page",
    "Forbidden",
    "Input",
    "InvalidRequest",
    "Mode",
    "NotFound",
    "Tier",
    "Unavailable",
    "records",
    "values_of",
]
