"""People: who can be assigned to tasks."""

from __future__ import annotations

from typing import Any

from domains.projects import inputs, rules, serialize
from domains.projects.entities import PERSON, REFERENCED_BY
from domains.projects.tables import Person
from facade.kit import CallContext, Toolset, records

Result = dict[str, Any]
tools = Toolset()


@tools.capability("person_create", tier="core", example={"name": "Margaret Hamilton", "email": "margaret@example.com"})
def person_create(ctx: CallContext, args: inputs.PersonCreate) -> Result:
    """Add a person who can be assigned to tasks."""
    rules.email_free(ctx.db, args.email)
    person = Person(name=args.name, email=args.email)
    ctx.db.add(person)
    ctx.db.flush()
    return {"person": serialize.person(person)}


records.add_get(tools, PERSON, example_id=1)
records.add_list(tools, PERSON, inputs.PersonFilter, example={}, description="List people.", references=REFERENCED_BY)
records.add_update(
    tools,
    PERSON,
    inputs.PersonUpdate,
    example={"person_id": 4, "email": "katherine.johnson@example.com"},
    check=rules.check_person_update,
)
records.add_delete(
    tools,
    PERSON,
    example_id=5,
    check=rules.on_person_delete,
    description="Delete a person and their task assignments.",
)
