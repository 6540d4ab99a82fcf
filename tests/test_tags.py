"""The kit's tags: the tag-name rule, adding tags to a record, and the four capabilities a domain
declares with `Tags.add_capabilities`, driven on a throwaway table of notes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import ForeignKey, String, UniqueConstraint, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, selectinload

from facade.kit.capability import IDENTITY_FIELDS, CallContext, Capability
from facade.errors import NotFound, RegistryError
from facade.kit import Domain, Entity, Id, Input, Page, TagName, Tags


class Base(DeclarativeBase):
    """Apart from the facade's metadata, so the server's tables and migrations never see these."""


class Note(Base):
    __tablename__ = "note"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(50))
    tags: Mapped[list[NoteTag]] = relationship(cascade="all, delete-orphan", order_by="NoteTag.name")


class NoteTag(Base):
    __tablename__ = "note_tag"
    __table_args__ = (UniqueConstraint("note_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    note_id: Mapped[int] = mapped_column(ForeignKey("note.id"))
    name: Mapped[str] = mapped_column(String(50))


def render(note: Note) -> dict[str, Any]:
    return {"id": note.id, "title": note.title, "tags": [t.name for t in note.tags]}


NOTE: Entity[Note] = Entity("notes", "note", "notes", Note, render=render, load=(selectinload(Note.tags),))
TAGS: Tags[Note] = Tags(NOTE, NoteTag)


class TagAdd(Input):
    note_id: Id
    tags: list[TagName] = Field(min_length=1, max_length=20)


class TagRemove(Input):
    note_id: Id
    tag: TagName


class TagList(Page):
    prefix: str | None = Field(default=None, max_length=50)


class TagBulkAdd(Input):
    note_ids: list[Id] = Field(min_length=1, max_length=10)
    tag: TagName


def declared(domain: Domain, **overrides: Any) -> dict[str, Capability]:
    models = {"tag_add": TagAdd, "tag_remove": TagRemove, "tag_list": TagList, "tag_bulk_add": TagBulkAdd} | overrides
    examples = {
        "tag_add": {"note_id": 1, "tags": ["x"]},
        "tag_remove": {"note_id": 1, "tag": "x"},
        "tag_list": {},
        "tag_bulk_add": {"note_ids": [1, 2], "tag": "x"},
    }
    TAGS.add_capabilities(domain, **{action: (model, examples[action]) for action, model in models.items()})
    return {cap.action: cap for cap in domain.capabilities}


@pytest.fixture
def db() -> Iterator[Session]:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        session.add_all([Note(title="groceries"), Note(title="ideas"), Note(title="plans")])
        session.flush()
        yield session
    engine.dispose()


@pytest.fixture
def call(db: Session) -> Any:
    caps = declared(Domain("notes"))

    def run(action: str, **args: Any) -> Any:
        cap = caps[action]
        ctx = CallContext(agent="test", conversation="c1", session_factory=lambda: db)
        return cap.handler(ctx, cap.parsed_model.model_validate({**args, **dict.fromkeys(IDENTITY_FIELDS, "")}))

    return run


class TestTagName:
    """One rule for every domain: folded, lowercase, letters, digits and a few separators."""

    class Model(BaseModel):
        tag: TagName

    @pytest.mark.parametrize(("given", "stored"), [("Q3", "q3"), ("  Year  End ", "year end"), ("v1.2_rc-1", "v1.2_rc-1")])
    def test_normalised(self, given: str, stored: str) -> None:
        assert self.Model(tag=given).tag == stored

    @pytest.mark.parametrize("given", ["", "-draft", "a/b", "x" * 51, "#1"])
    def test_refused(self, given: str) -> None:
        with pytest.raises(ValidationError):
            self.Model(tag=given)


class TestAdd:
    """`Tags.add` adds only what the record does not carry, once each."""

    def test_adds_the_missing_once(self, db: Session) -> None:
        note = NOTE.fetch(db, 1)
        assert TAGS.add(note, ["b", "a", "b"]) == ["b", "a"]
        assert TAGS.add(note, ["a", "c"]) == ["c"]
        db.flush()
        db.expire_all()
        assert [t.name for t in NOTE.fetch(db, 1).tags] == ["a", "b", "c"]


class TestFetch:
    """`Entity.fetch` reads one statement per entity; what `Session.get` did, it still does."""

    def test_a_joined_collection_and_a_missing_id(self, db: Session) -> None:
        from sqlalchemy.orm import joinedload

        from facade.errors import NotFound

        TAGS.add(NOTE.fetch(db, 1), ["a", "b"])
        db.commit()
        db.expire_all()
        joined = Entity("notes", "note", "notes", Note, render=render, load=(joinedload(Note.tags),))
        assert [t.name for t in joined.fetch(db, 1).tags] == ["a", "b"]  # two rows, one note
        assert joined.fetch(db, 1) is NOTE.fetch(db, 1)  # the session's one object, as get gave
        with pytest.raises(NotFound, match="note 99 does not exist; list notes with notes.note_list"):
            NOTE.fetch(db, 99)


class TestDeclaration:
    """The four capabilities take their names, descriptions and hints from the entity."""

    def test_names_descriptions_and_hints(self) -> None:
        caps = declared(Domain("notes"))
        assert list(caps) == ["tag_add", "tag_remove", "tag_list", "tag_bulk_add"]
        assert {a: c.description for a, c in caps.items()} == {
            "tag_add": "Add tags to a note.",
            "tag_remove": "Remove a tag from a note.",
            "tag_list": "List the tags in use with how many notes carry each.",
            "tag_bulk_add": "Add one tag to many notes, reporting each one's result.",
        }
        assert caps["tag_list"].annotations.read_only
        assert all(c.annotations.idempotent and not c.annotations.destructive for c in caps.values())
        assert [c.tier for c in caps.values()] == ["core", "core", "core", "full"]
        assert caps["tag_add"].input_model is TagAdd

    def test_a_model_without_a_field_the_handler_reads(self) -> None:
        class Wrong(Input):
            id: Id
            tags: list[TagName]

        with pytest.raises(RegistryError, match=r"'notes\.tag_add'.*Wrong lacks note_id"):
            declared(Domain("notes"), tag_add=Wrong)


class TestCapabilities:
    """The handlers, on a real database: what they return and how they refuse."""

    def test_add_and_remove(self, call: Any) -> None:
        assert call("tag_add", note_id=1, tags=["Home", "home", "urgent"]) == {
            "note": {"id": 1, "title": "groceries", "tags": ["home", "urgent"]},
            "added": ["home", "urgent"],
        }
        assert call("tag_remove", note_id=1, tag="urgent") == {"note": {"id": 1, "title": "groceries", "tags": ["home"]}}

    def test_remove_a_tag_the_record_lacks(self, call: Any) -> None:
        call("tag_add", note_id=2, tags=["b", "a"])
        with pytest.raises(NotFound, match="note 2 has no tag 'c'; its tags are: a, b"):
            call("tag_remove", note_id=2, tag="c")
        with pytest.raises(NotFound, match="note 3 has no tag 'c'; its tags are: none"):
            call("tag_remove", note_id=3, tag="c")
        with pytest.raises(NotFound, match="note 9 does not exist; list notes with notes.note_list"):
            call("tag_remove", note_id=9, tag="c")

    def test_list_counts_and_filters(self, call: Any) -> None:
        call("tag_bulk_add", note_ids=[1, 2, 3], tag="home")
        call("tag_bulk_add", note_ids=[1, 2], tag="work")
        call("tag_add", note_id=1, tags=["holiday"])
        assert call("tag_list") == {
            "tags": [{"name": "home", "notes": 3}, {"name": "work", "notes": 2}, {"name": "holiday", "notes": 1}],
            "total": 3,
        }
        assert call("tag_list", prefix="HO") == {
            "tags": [{"name": "home", "notes": 3}, {"name": "holiday", "notes": 1}],
            "total": 2,
        }
        assert call("tag_list", limit=1, offset=1)["tags"] == [{"name": "work", "notes": 2}]

    def test_bulk_add_reports_each_note(self, call: Any) -> None:
        call("tag_add", note_id=2, tags=["q3"])
        assert call("tag_bulk_add", note_ids=[1, 9, 1, 2], tag="q3") == {
            "tag": "q3",
            "results": [
                {"note_id": 1, "added": True},
                {"note_id": 9, "error": "note 9 does not exist"},
                {"note_id": 2, "added": False},
            ],
            "failed": 1,
        }
