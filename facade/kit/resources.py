"""Resources: things a client may read by URI (MCP `resources/list`, `resources/read`), declared
by a domain beside its capabilities — a fixed URI, or a template whose `{name}` parts the reader
receives. A resource is listed to the agents whose apps include its domain."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from facade.kit.capability import declared_description
from facade.errors import RegistryError

if TYPE_CHECKING:
    from facade.kit.capability import CallContext

Reader = Callable[["CallContext", dict[str, str]], str | bytes]
"""`(ctx, params) -> text or bytes`; `params` holds a template's parts (empty for a fixed URI)."""
Completer = Callable[[str], list[str]]
"""`(partial value) -> suggestions`, best first."""

_PART = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_URI = re.compile(r"[a-z][a-z0-9+.-]*://\S+")


@dataclass(frozen=True, slots=True)
class Resource:
    """One readable thing, as data.

    Attributes:
        uri: the resource's URI, or a URI template (RFC 6570 level 1: `test://item/{id}`).
        name: a short name a client shows.
        description: what it holds, in a line.
        read: returns the content: `str` is sent as text, `bytes` as a base64 blob.
        mime_type: the content's type.
        complete: for a template, suggestions for each of its parts (`completion/complete`).
    """

    uri: str
    name: str
    description: str
    read: Reader
    mime_type: str = "text/plain"
    complete: Mapping[str, Completer] = field(default_factory=dict)

    @property
    def is_template(self) -> bool:
        return bool(_PART.search(self.uri))

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(_PART.findall(self.uri))

    def match(self, uri: str) -> dict[str, str] | None:
        """The template's parts in `uri`, or None when `uri` is not this resource's."""
        if not self.is_template:
            return {} if uri == self.uri else None
        pattern = "".join(
            f"(?P<{piece[1:-1]}>[^/]+)" if _PART.fullmatch(piece) else re.escape(piece)
            for piece in re.split(r"(\{[A-Za-z_][A-Za-z0-9_]*\})", self.uri)
            if piece
        )
        found = re.fullmatch(pattern, uri)
        return found.groupdict() if found else None


def make_resource(
    uri: str,
    read: Reader,
    *,
    name: str,
    description: str | None = None,
    mime_type: str = "text/plain",
    complete: Mapping[str, Completer] | None = None,
) -> Resource:
    """Build a resource, checking what a declaration can get wrong."""
    where = f"resource {uri!r}"
    if not isinstance(uri, str) or not _URI.fullmatch(uri):
        raise RegistryError(f"{where}: a resource URI is 'scheme://path' with no spaces (e.g. 'glossary://terms')")
    text = declared_description(where, "reader", read, description)
    resource = Resource(uri, name, text, read, mime_type, dict(complete or {}))
    unknown = sorted(set(resource.complete) - set(resource.parts))
    if unknown:
        raise RegistryError(f"{where}: completions for {', '.join(unknown)}, which the URI has no {{part}} for")
    return resource
