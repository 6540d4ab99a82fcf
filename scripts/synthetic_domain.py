"""A synthetic third-party domain for the scale benchmark (scripts/bench_scale.py): `synthetic`,
with SYNTHETIC_CAPABILITIES capabilities (default 2,000), loaded as any plugin is, through
FACADE_DOMAINS=synthetic_domain with this folder on PYTHONPATH. Never shipped in `domains/`.

Each capability has an input model of its own, shaped like the bundled domains' (an id, a few
optional filters, a bounded page size, a literal choice, descriptions on every field), so that
the catalogue grows the way a real one does: one model, one schema, one handler per tool.
"""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import Field, create_model

from facade.kit import CallContext, Domain, Input

COUNT = int(os.environ.get("SYNTHETIC_CAPABILITIES", "2000"))
NOUNS = ("widget", "gadget", "ticket", "parcel", "ledger", "sensor", "route", "badge", "crate", "lease")
VERBS = ("get", "list", "update", "create", "archive", "export", "merge", "search")

domain = Domain("synthetic", description="Synthetic records for the scale benchmark.", default_mode="full")


def input_model(i: int) -> type[Input]:
    """The input model of the i-th capability (scripts/bench_scale.py --stages builds them alone too)."""
    fields: dict[str, Any] = {
        "record_id": (int, Field(ge=1, description=f"Which {NOUNS[i % len(NOUNS)]} (an id from its list).")),
        "limit": (int, Field(default=20, ge=1, le=200, description="At most this many results.")),
        "order": (Literal["newest", "oldest", "name"], Field(default="newest", description="The order of the results.")),
    }
    for extra in range(i % 4):
        fields[f"filter_{extra}"] = (str | None, Field(default=None, max_length=80, description=f"Only those whose field {extra} matches."))
    return create_model(f"Synthetic{i}", __base__=Input, __module__=__name__, **fields)


def _handler(ctx: CallContext, args: Input) -> dict[str, Any]:
    """Return the record asked for (synthetic: it echoes the arguments)."""
    return {"echo": args.model_dump()}


for _i in range(COUNT):
    _verb = VERBS[_i % len(VERBS)]
    domain.add(
        f"{NOUNS[_i % len(NOUNS)]}_{_verb}_{_i:05d}",
        _handler,
        input_model=input_model(_i),
        description=f"{_verb.capitalize()} synthetic {NOUNS[_i % len(NOUNS)]} records, variant {_i}; reads and returns them as stored.",
        tier="core" if _verb in ("get", "list") else "full",
        read_only=_verb in ("get", "list", "search", "export"),
        example={"record_id": 1},
    )
