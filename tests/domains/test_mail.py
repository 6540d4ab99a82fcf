"""The mail domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable) — the two sending examples with
Unavailable when no SMTP server listens, and for real against a local one; mail really goes out
through SMTP; the domain's rules hold; and the migration builds exactly the schema of tables.py."""

from __future__ import annotations

import mailbox
from collections.abc import Callable, Iterator
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.mail import domain
from domains.mail.tables import Folder, Message, Thread
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound, Unavailable
from tests.domains import harness
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract
from tests.support import free_port

mail = DomainHarness(domain)
call, migrated, seeded = mail.call, mail.migrated, mail.seeded
SENDS = {"draft_send", "message_bulk_send"}  # Unavailable when no SMTP server listens


# Helpers and fixtures


def count(engine: Engine, *where: Any) -> int:
    return harness.count(engine, Message, *where)


def folder_of(engine: Engine, message_id: int) -> str:
    with session_factory(engine)() as session:
        message = session.get(Message, message_id)
        return message.folder.role if message is not None else "gone"


class Recorder:
    """An aiosmtpd handler that keeps what it received."""

    def __init__(self) -> None:
        self.envelopes: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 — aiosmtpd's name
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


@pytest.fixture
def no_smtp(monkeypatch: pytest.MonkeyPatch) -> int:
    """Point the domain at a loopback port where nothing listens."""
    port = free_port()
    monkeypatch.setenv("FACADE_MAIL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("FACADE_MAIL_SMTP_PORT", str(port))
    return port


@pytest.fixture
def smtp_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    """A real SMTP server on 127.0.0.1 and a free port, with the domain pointed at it."""
    recorder = Recorder()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("FACADE_MAIL_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("FACADE_MAIL_SMTP_PORT", str(port))
    yield recorder
    controller.stop()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return mail.template(tmp_path_factory.mktemp("mail"))


@pytest.fixture
def db(template: Path, tmp_path: Path, no_smtp: int) -> Iterator[Engine]:
    """A fresh copy of the seeded SQLite database (and no SMTP server, unless a test starts one)."""
    with mail.copy(template, tmp_path) as engine:
        yield engine


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers in proportion, every
    one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        mail.assert_tiers(at_least=32)
        assert domain.default_mode == "full"

    def test_descriptions_are_one_short_sentence(self) -> None:
        mail.assert_descriptions_are_one_sentence(max_length=100)
        mail.assert_descriptions_differ()

    def test_no_identity_fields_and_every_example_validates(self) -> None:
        mail.assert_no_identity_fields()
        mail.assert_examples_validate()

    def test_annotations_match_the_verbs(self) -> None:
        mail.assert_annotations_follow_the_verbs(
            reads=("_get", "_list", "_search", "_export", "_stats", "_raw_headers"), destructive=("_delete",)
        )


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds with JSON-friendly data; sending raises Unavailable only when no server listens."""

    def test_sqlite_without_smtp(self, db: Engine) -> None:
        mail.assert_walk_succeeds(db, unavailable=SENDS)
        assert folder_of(db, 6) == "drafts"  # the failed send lost nothing

    def test_sqlite_with_a_real_smtp_server(self, db: Engine, smtp_server: Recorder) -> None:
        mail.assert_walk_succeeds(db)
        assert folder_of(db, 6) == "sent"
        assert len(smtp_server.envelopes) == 4  # one draft, three personal copies

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, smtp_server: Recorder, seed: int) -> None:
        mail.assert_walk_succeeds(db, shuffle=seed)
        assert folder_of(db, 6) == "sent"
        assert len(smtp_server.envelopes) == 4

    def test_postgresql(self, pg_schema: Callable[[], Engine], no_smtp: int) -> None:
        mail.assert_walk_succeeds(seeded(migrated(pg_schema())), unavailable=SENDS)


class TestMigration(MigrationContract):
    """The migration against tables.py, for the seven mail tables."""

    harness, tables = mail, 7


class TestSeed:
    """The seed is deterministic, idempotent and threaded by its own headers."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        with session_factory(db)() as session:
            roles = list(session.scalars(select(Folder.role).order_by(Folder.id)))
            assert roles == ["inbox", "sent", "drafts", "archive", "trash", "custom", "custom"]
            thread_of = dict(session.execute(select(Message.id, Message.thread_id)).all())
        assert count(db) == 12
        assert thread_of[1] == thread_of[2] == thread_of[3] == 1 and thread_of[5] == thread_of[6] == 3
        assert len(set(thread_of.values())) == 9

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        seeded(db)
        assert count(db) == 12

    def test_timestamps_come_back_utc_aware(self, db: Engine) -> None:
        message = call(db, "message_get", message_id=1)["message"]
        assert message["received_at"] == "2026-11-23T08:12:00+00:00"


class TestSending:
    """Sending goes through a real SMTP server; without one, nothing is lost."""

    def test_draft_send_delivers_and_files_in_sent(self, db: Engine, smtp_server: Recorder) -> None:
        draft = call(db, "draft_create", to=["Priya Shah <priya@example.com>"], cc=["lena@example.com"],
                     bcc=["audit@example.com"], subject="Numbers", body="See you Thursday.")["draft"]
        sent = call(db, "draft_send", message_id=draft["id"])["message"]
        (envelope,) = smtp_server.envelopes
        assert envelope.mail_from == "sam@example.com"
        assert sorted(envelope.rcpt_tos) == ["audit@example.com", "lena@example.com", "priya@example.com"]
        received = message_from_bytes(envelope.content, policy=policy.default)
        assert received["Bcc"] is None  # Bcc is an envelope matter: never shown to the others
        assert received["Message-ID"] == sent["internet_message_id"] == draft["internet_message_id"]
        assert received["Subject"] == "Numbers" and "See you Thursday." in received.get_content()
        assert sent["folder"] == "Sent" and not sent["is_draft"]
        headers = {h["name"]: h["value"] for h in call(db, "message_raw_headers", message_id=draft["id"])["headers"]}
        assert headers["Message-ID"] == sent["internet_message_id"]

    def test_reply_goes_out_with_threading_headers(self, db: Engine, smtp_server: Recorder) -> None:
        reply = call(db, "message_reply", message_id=3, body="Sure.", reply_all=True)["draft"]
        call(db, "draft_send", message_id=reply["id"])
        received = message_from_bytes(smtp_server.envelopes[0].content, policy=policy.default)
        assert received["In-Reply-To"] == "<q3-budget-re2@mail.example.com>"
        assert received["References"].split() == [
            "<q3-budget@mail.example.com>",
            "<q3-budget-re1@mail.example.com>",
            "<q3-budget-re2@mail.example.com>",
        ]
        assert sorted(smtp_server.envelopes[0].rcpt_tos) == ["marco@example.com", "priya@example.com"]

    def test_without_a_server_the_draft_stays(self, db: Engine, no_smtp: int) -> None:
        with pytest.raises(Unavailable, match=rf"127\.0\.0\.1:{no_smtp}.*FACADE_MAIL_SMTP_HOST.*FACADE_MAIL_SMTP_PORT"):
            call(db, "draft_send", message_id=12)
        assert folder_of(db, 12) == "drafts"
        with pytest.raises(Unavailable):
            call(db, "message_bulk_send", subject="Hi", body="Hi {name}", addresses=["a@example.com"])
        assert count(db) == 12

    def test_bulk_send_personal_copies(self, db: Engine, smtp_server: Recorder) -> None:
        result = call(db, "message_bulk_send", subject="Offsite dates", body="Hi {name}, 15-17 March.",
                      contact_ids=[1, 2], addresses=["PRIYA@example.com", "tom@example.com"])
        assert result["succeeded"] == 3  # Priya once, however often she is named
        bodies = {e.rcpt_tos[0]: e.content.decode() for e in smtp_server.envelopes}
        assert "Hi Priya Shah, 15-17 March." in bodies["priya@example.com"]
        assert "Hi tom, 15-17 March." in bodies["tom@example.com"]
        assert count(db, Message.subject == "Offsite dates") == 3

    def test_send_refuses_what_is_not_a_sendable_draft(self, db: Engine, smtp_server: Recorder) -> None:
        with pytest.raises(Conflict, match="message 3 is not a draft"):
            call(db, "draft_send", message_id=3)
        empty = call(db, "draft_create", subject="No one")["draft"]
        with pytest.raises(InvalidRequest, match="no recipients.*draft_update"):
            call(db, "draft_send", message_id=empty["id"])
        with pytest.raises(NotFound, match="contacts \\[99\\] do not exist"):
            call(db, "message_bulk_send", subject="x", body="y", contact_ids=[99])
        assert smtp_server.envelopes == []

    def test_misconfigured_sender(self, db: Engine, smtp_server: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("FACADE_MAIL_FROM", "not an address")
        with pytest.raises(Unavailable, match="FACADE_MAIL_FROM"):
            call(db, "draft_send", message_id=12)


class TestReplyAndForward:
    """Replies and forwards get the recipients, subject, headers and quote a mail client gives."""

    def test_reply(self, db: Engine) -> None:
        draft = call(db, "message_reply", message_id=3, body="Yes.")["draft"]
        assert draft["to"] == ["Priya Shah <priya@example.com>"] and draft["cc"] == []
        assert draft["subject"] == "Re: Q3 budget review" and draft["thread_id"] == 1
        assert draft["in_reply_to"] == "<q3-budget-re2@mail.example.com>"
        assert draft["body"].startswith("Yes.\n\nOn Tue, 24 Nov 2026 at 07:55 UTC, Priya Shah")
        assert "> Great. Marco" in draft["body"]

    def test_reply_all_leaves_me_out(self, db: Engine) -> None:
        draft = call(db, "message_reply", message_id=3, body="Yes.", reply_all=True)["draft"]
        assert draft["cc"] == ["Marco Bianchi <marco@example.com>"]

    def test_reply_to_my_own_mail_goes_to_its_recipients(self, db: Engine) -> None:
        draft = call(db, "message_reply", message_id=2, body="Ping.")["draft"]
        assert draft["to"] == ["Priya Shah <priya@example.com>"]

    def test_forward(self, db: Engine) -> None:
        draft = call(db, "message_forward", message_id=4, to=["lena@example.com"], body="FYI")["draft"]
        assert draft["subject"] == "Fwd: Your flight confirmation NW4821"
        assert draft["body"].startswith("FYI\n\n---------- Forwarded message ---------\nFrom: Nordwind Airlines")
        assert "Booking reference K7Q2ZD" in draft["body"] and draft["thread_id"] == 2

    def test_drafts_only_change_in_drafts(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="not a draft.*message_reply"):
            call(db, "draft_update", message_id=1, subject="x")
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "draft_update", message_id=12)
        with pytest.raises(InvalidRequest, match="'nope' is not one e-mail address"):
            call(db, "draft_update", message_id=12, to=["nope"])
        updated = call(db, "draft_update", message_id=12, to=["Priya Shah <PRIYA@example.com>"], body="Friday 12:30?")
        assert updated["draft"]["to"] == ["Priya Shah <priya@example.com>"]


class TestThreading:
    """Threads follow In-Reply-To/References, else a reply's normalised subject, never a bare one."""

    def eml(self, subject: str, extra: str = "") -> str:
        return f"From: Priya Shah <priya@example.com>\nTo: sam@example.com\nSubject: {subject}\n{extra}\nBody text\n"

    def test_by_headers(self, db: Engine) -> None:
        answering = self.eml("Something else", "In-Reply-To: <q3-budget@mail.example.com>")
        imported = call(db, "message_import", eml=answering)
        assert imported["message"]["thread_id"] == 1

    def test_by_subject_for_replies_only(self, db: Engine) -> None:
        reply = call(db, "message_import", eml=self.eml("RE: AW: Offsite venue options"))["message"]
        assert reply["thread_id"] == 3
        answering_unknown = self.eml("Offsite venue options", "References: <never-stored@x.example>")
        assert call(db, "message_import", eml=answering_unknown)["message"]["thread_id"] == 3
        fresh = call(db, "message_import", eml=self.eml("Offsite venue options"))["message"]
        assert fresh["thread_id"] == 10  # same subject, but not a reply: a conversation of its own

    def test_thread_list_and_get(self, db: Engine) -> None:
        threads = call(db, "thread_list")["threads"]
        assert threads[0]["subject"] == "Team lunch on Friday?"
        first = next(t for t in threads if t["id"] == 1)
        assert (first["messages"], first["unread"]) == (3, 1)
        assert call(db, "thread_list", unread_only=True)["total"] == 4
        assert [m["id"] for m in call(db, "thread_get", thread_id=1)["messages"]] == [1, 2, 3]

    def test_a_thread_whose_mail_is_gone_is_gone(self, db: Engine) -> None:
        call(db, "message_delete", message_id=4, permanent=True)
        with pytest.raises(NotFound, match="thread 2 does not exist"):
            call(db, "thread_get", thread_id=2)
        with session_factory(db)() as session:
            assert session.get(Thread, 2) is None


class TestFoldersAndMessages:
    """System folders are protected, drafts stay drafts, and deleting goes through Trash."""

    def test_system_folders_are_protected(self, db: Engine) -> None:
        with pytest.raises(Forbidden, match="folder 1 \\(Inbox\\) is a system folder"):
            call(db, "folder_update", folder_id=1, name="In")
        with pytest.raises(Forbidden):
            call(db, "folder_delete", folder_id=5)
        with pytest.raises(Conflict, match="folder 6 is already named 'Receipts'"):
            call(db, "folder_create", name="receipts")

    def test_folder_delete_keeps_mail_and_respects_rules(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"folder 6 is used by filter rules \[1\].*rule_delete"):
            call(db, "folder_delete", folder_id=6)
        assert call(db, "folder_delete", folder_id=7)["moved_to_trash"] == [10]
        assert folder_of(db, 10) == "trash"

    def test_folder_counts(self, db: Engine) -> None:
        inbox = call(db, "folder_list")["folders"][0]
        assert (inbox["name"], inbox["total"], inbox["unread"]) == ("Inbox", 5, 3)

    def test_drafts_stay_drafts(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="message 6 is a draft"):
            call(db, "message_move", message_id=6, folder_id=4)
        with pytest.raises(InvalidRequest, match="only drafts live in Drafts"):
            call(db, "message_move", message_id=1, folder_id=3)
        assert call(db, "message_move", message_id=1, folder_id=1)["changed"] is False

    def test_delete_goes_through_trash(self, db: Engine) -> None:
        assert call(db, "message_delete", message_id=5)["moved_to_trash"] is True
        assert folder_of(db, 5) == "trash"
        assert call(db, "message_delete", message_id=5)["deleted_permanently"] is True
        assert folder_of(db, 5) == "gone"

    def test_labels(self, db: Engine) -> None:
        assert call(db, "message_label_add", message_id=3, label_id=2)["changed"] is False
        with pytest.raises(NotFound, match="does not carry label 3"):
            call(db, "message_label_remove", message_id=3, label_id=3)
        with pytest.raises(Conflict, match=r"label 3 is used by filter rules \[2\]"):
            call(db, "label_delete", label_id=3)
        assert call(db, "label_delete", label_id=2)["removed_from_messages"] == 2
        with pytest.raises(Conflict, match="label 1 is already named 'urgent'"):
            call(db, "label_create", name="URGENT")

    def test_contacts(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="contact 1 already has the address priya@example.com"):
            call(db, "contact_create", name="P", email="Priya@Example.com")
        assert [c["id"] for c in call(db, "contact_list", query="fisch")["contacts"]] == [3]
        with pytest.raises(NotFound, match="contact 42 does not exist; list contacts with mail.contact_list"):
            call(db, "contact_update", contact_id=42, name="X")

    def test_bulk_reports_each_item(self, db: Engine) -> None:
        result = call(db, "message_bulk_move", message_ids=[1, 6, 99, 1], folder_id=4)
        assert [(r["message_id"], r["ok"]) for r in result["results"]] == [(1, True), (6, False), (99, False)]
        assert "is a draft" in result["results"][1]["error"]
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "message_bulk_mark", message_ids=[1])


class TestSearch:
    """Search combines text, dates, flags and folders; wildcards are literal; Trash is left out."""

    def test_filters(self, db: Engine) -> None:
        def ids(**args: Any) -> list[int]:
            return [m["id"] for m in call(db, "message_search", **args)["messages"]]

        assert ids(query="budget") == [3, 2, 1]
        assert ids(from_contains="priya", unread=True) == [3]
        assert ids(since="2026-11-27", until="2026-11-28") == [10, 11]
        assert ids(since="2026-11-27T16:00:00+01:00", until="2026-11-28") == [10]
        assert ids(to_contains="marco") == [12, 6, 3]
        assert ids(query="digest") == [] and ids(query="digest", include_trash=True) == [9]
        assert ids(query="12%") == [1] and ids(query="%%") == []
        assert ids(label_id=2) == [3, 1]

    def test_list_defaults_to_the_inbox(self, db: Engine) -> None:
        assert call(db, "message_list")["total"] == 5
        assert call(db, "message_list", thread_id=1)["total"] == 3
        with pytest.raises(NotFound, match="folder 77 does not exist"):
            call(db, "message_list", folder_id=77)


class TestExchange:
    """.eml and mbox go out and come back; imports are checked."""

    def test_eml_round_trip(self, db: Engine) -> None:
        exported = call(db, "message_export", message_id=3)["content"]
        call(db, "folder_create", name="Copies")
        imported = call(db, "message_import", eml=exported, folder_id=8)["message"]
        original = call(db, "message_get", message_id=3)["message"]
        again = call(db, "message_get", message_id=imported["id"])["message"]
        for field in ("from", "to", "cc", "subject", "body", "internet_message_id", "received_at", "references"):
            assert again[field] == original[field], field
        with pytest.raises(Conflict, match="already has Message-ID <q3-budget-re2@mail.example.com>"):
            call(db, "message_import", eml=exported, folder_id=8)

    def test_nul_bytes_that_decoding_reveals_are_dropped_on_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        """The .eml text holds no NUL (the server refuses those), but a base64 body or an encoded
        Subject may decode to one, which PostgreSQL's text cannot hold (2026-12-02)."""
        engine = seeded(migrated(pg_schema()))
        eml = (
            "From: Ana <ana@example.com>\nTo: sam@example.com\nSubject: =?utf-8?b?UTEAcmVwb3J0?=\n"
            "Message-ID: <nul-1@example.com>\nContent-Type: text/plain; charset=utf-8\n"
            "Content-Transfer-Encoding: base64\n\naGVsbG8Ad29ybGQ=\n"
        )
        message = call(engine, "message_import", eml=eml)["message"]
        stored = call(engine, "message_get", message_id=message["id"])["message"]
        assert (stored["subject"], stored["body"]) == ("Q1report", "helloworld")

    def test_mbox_parses_back(self, db: Engine, tmp_path: Path) -> None:
        call(db, "draft_update", message_id=12, body="From the kitchen:\nFrom now on, lunch is at 12:30.")
        content = call(db, "thread_export", thread_id=9)["content"]
        assert "\n>From now on" in content
        path = tmp_path / "t.mbox"
        path.write_text(call(db, "thread_export", thread_id=1)["content"] + content)
        subjects = [m["subject"] for m in mailbox.mbox(path)]
        assert subjects == ["Q3 budget review", "Re: Q3 budget review", "Re: Q3 budget review", "Team lunch on Friday?"]
        page = call(db, "folder_export", folder_id=1, limit=2)
        assert (page["messages"], page["total"]) == (2, 5)

    def test_bad_imports(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="no From header"):
            call(db, "message_import", eml="Subject: hi\n\nbody")
        with pytest.raises(InvalidRequest, match="only drafts live in Drafts"):
            call(db, "message_import", eml="From: a@example.com\n\nbody", folder_id=3)

    def test_import_keeps_multipart_text_and_names_attachments(self, db: Engine) -> None:
        from email.message import EmailMessage

        mail = EmailMessage()
        mail["From"], mail["To"], mail["Subject"] = "Lena <lena@example.com>", "sam@example.com", "Contract"
        mail.set_content("Please sign the attached contract.")
        mail.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename="contract.pdf")
        result = call(db, "message_import", eml=mail.as_string())
        assert result["attachments_skipped"] == ["contract.pdf"]
        assert call(db, "message_get", message_id=result["message"]["id"])["message"]["body"] == (
            "Please sign the attached contract."
        )

    def test_raw_headers_of_a_draft_are_its_future_headers(self, db: Engine) -> None:
        dumped = call(db, "message_raw_headers", message_id=6)
        names = [h["name"] for h in dumped["headers"]]
        assert not dumped["as_sent_or_received"] and "In-Reply-To" in names and "Message-ID" in names


class TestFilters:
    """Stored rules need a condition and an action, and act on demand."""

    def test_validation(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="needs a condition"):
            call(db, "rule_create", name="x", flag=True)
        with pytest.raises(InvalidRequest, match="needs an action"):
            call(db, "rule_create", name="x", from_contains="a")
        with pytest.raises(InvalidRequest, match="cannot file mail in Drafts"):
            call(db, "rule_create", name="x", from_contains="a", move_to_folder_id=3)
        with pytest.raises(Conflict, match="rule 1 is already named"):
            call(db, "rule_create", name="Receipts to their folder", from_contains="a", flag=True)

    def test_apply(self, db: Engine) -> None:
        call(db, "message_move", message_id=7, folder_id=1)
        call(db, "rule_create", name="Budget", subject_contains="budget", mark_read=True, flag=True)
        result = call(db, "rule_apply")["rules"]
        assert result[0] == {"rule_id": 1, "matched": [7], "moved": [7]}
        assert result[2]["matched"] == [1, 3]
        message = call(db, "message_get", message_id=3)["message"]
        assert message["is_read"] and message["is_flagged"]
        assert folder_of(db, 7) == "custom"
        assert call(db, "rule_apply", rule_id=1)["rules"][0]["matched"] == []


class TestStats:
    """Statistics count the real store."""

    def test_counts(self, db: Engine) -> None:
        stats = call(db, "mailbox_stats")
        assert (stats["messages"], stats["unread"], stats["flagged"], stats["threads"]) == (12, 4, 1, 9)
        assert stats["top_senders"][:2] == [
            {"address": "lena@example.com", "messages": 2},
            {"address": "priya@example.com", "messages": 2},
        ]
        assert {f["name"]: f["messages"] for f in stats["folders"]}["Drafts"] == 2


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("folder_create", {"name": "   "}),
            ("label_create", {"name": "x", "color": "red"}),
            ("contact_create", {"name": "Bob", "email": "not-an-email"}),
            ("message_list", {"limit": 500}),
            ("message_get", {"message_id": 0}),
            ("message_bulk_delete", {"message_ids": []}),
            ("draft_create", {"subject": "x", "auth_token": "x"}),
            ("message_forward", {"message_id": 1, "to": []}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.input_model.model_validate(args)

    def test_domain_errors_name_the_fix(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "message_get", message_id=404)
        assert str(raised.value) == "not found: message 404 does not exist; list messages with mail.message_list"
