"""The calendar domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable); series expand across DST, occurrences
are changed and cancelled one by one, free/busy, slots and conflicts read the real events,
iCalendar round-trips; and the migration builds exactly the schema of tables.py."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import icalendar
import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, func, select

from domains.calendar import domain
from domains.calendar.tables import Event
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract

calendar = DomainHarness(domain)
call, migrated, seeded = calendar.call, calendar.migrated, calendar.seeded
# Generous: the bounded search refuses in about a second; unbounded, HOURLY took many minutes.
NEVER_FIRES_BOUND = 30.0
BERLIN_WEEK = {"start": "2026-12-07", "end": "2026-12-14", "timezone": "Europe/Berlin"}


# Helpers and fixtures


def occurrences(engine: Engine, **args: Any) -> list[dict[str, Any]]:
    return list(call(engine, "occurrence_list", **{**BERLIN_WEEK, **args})["occurrences"])


def starts_of(engine: Engine, event_id: int, **args: Any) -> list[str]:
    """The local starts of one series' occurrences (its changed ones included)."""
    return [
        o["local_start"]
        for o in occurrences(engine, **args)
        if o["event_id"] == event_id or o.get("series_id") == event_id
    ]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return calendar.template(tmp_path_factory.mktemp("calendar"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Iterator[Engine]:
    """A fresh copy of the seeded SQLite database."""
    with calendar.copy(template, tmp_path) as engine:
        yield engine


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers in proportion, every
    one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        calendar.assert_tiers(at_least=28)
        assert domain.default_mode == "full"

    def test_descriptions_are_one_short_sentence(self) -> None:
        calendar.assert_descriptions_are_one_sentence(max_length=100)
        calendar.assert_descriptions_differ()

    def test_no_identity_fields_and_every_example_validates(self) -> None:
        calendar.assert_no_identity_fields()
        calendar.assert_examples_validate()

    def test_annotations_match_the_verbs(self) -> None:
        calendar.assert_annotations_follow_the_verbs(
            reads=("_get", "_list", "_find", "_export", "_stats", "_preview"), destructive=("_delete", "_remove")
        )


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds and returns JSON-friendly data."""

    def test_sqlite(self, db: Engine) -> None:
        calendar.assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        calendar.assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        calendar.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the five calendar tables."""

    harness, tables = calendar, 5


class TestSeed:
    """The seed is deterministic and idempotent; instants come back as UTC."""

    def test_ids_and_idempotence(self, db: Engine) -> None:
        seeded(db)
        with session_factory(db)() as session:
            assert session.scalar(select(func.count()).select_from(Event)) == 13
            standup = session.get_one(Event, 1)
            assert standup.title == "Team standup" and standup.start_at.utcoffset() is not None
        assert call(db, "event_get", event_id=4)["event"]["series_id"] == 3

    def test_the_week_as_seeded(self, db: Engine) -> None:
        assert starts_of(db, 1) == [
            "2026-12-07T09:30:00+01:00",  # the 9th is cancelled
            "2026-12-11T09:30:00+01:00",
        ]
        assert starts_of(db, 3, end="2026-12-21") == ["2026-12-17T15:00:00+01:00"]  # moved from 11:00


class TestTimes:
    """Times are stored in UTC; inputs take offsets, bare times in the calendar's zone, and dates."""

    def test_offsets_and_local_times(self, db: Engine) -> None:
        made = call(db, "event_create", calendar_id=3, title="Call", start="2026-12-08T10:00:00-05:00")["event"]
        assert (made["start"], made["end"]) == ("2026-12-08T15:00:00+00:00", "2026-12-08T16:00:00+00:00")
        assert made["timezone"] == "UTC"
        naive = call(db, "event_create", calendar_id=1, title="Lunch", start="2026-12-08T12:30")["event"]
        assert naive["start"] == "2026-12-08T11:30:00+00:00" and naive["local_start"] == "2026-12-08T12:30:00+01:00"

    def test_all_day_events(self, db: Engine) -> None:
        trip = call(db, "event_create", calendar_id=2, title="Trip", start="2026-12-18", end="2026-12-20")["event"]
        assert trip["all_day"] and (trip["start_date"], trip["end_date"]) == ("2026-12-18", "2026-12-20")
        assert trip["start"] == "2026-12-17T23:00:00+00:00" and trip["show_as"] == "free"
        agenda = call(db, "agenda_get", day="2026-12-19", timezone="Europe/Berlin")["days"][0]["items"]
        assert [i["title"] for i in agenda] == ["Trip"]
        # Moved across the spring DST change it keeps three whole days, not 72 hours.
        moved = call(db, "event_update", event_id=trip["id"], start="2027-03-27")["event"]
        assert (moved["start_date"], moved["end_date"]) == ("2027-03-27", "2027-03-29")

    def test_bad_times(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="end .* must come after start"):
            call(db, "event_create", calendar_id=1, title="x", start="2026-12-08T10:00Z", end="2026-12-08T09:00Z")
        with pytest.raises(InvalidRequest, match="'Mars/Olympus' is not an IANA zone"):
            call(db, "event_create", calendar_id=1, title="x", start="2026-12-08T10:00Z", timezone="Mars/Olympus")
        with pytest.raises(InvalidRequest, match="more than 366 days"):
            occurrences(db, end="2028-01-01")


class TestRecurrence:
    """RRULEs are validated and expanded in the series' zone, across DST."""

    def test_wall_clock_holds_across_dst(self, db: Engine) -> None:
        spring = {"start": "2027-03-22", "end": "2027-04-01", "calendar_ids": [2]}
        runs = [o for o in occurrences(db, **spring) if o["event_id"] == 8]
        assert [o["local_start"] for o in runs] == ["2027-03-23T19:00:00+01:00", "2027-03-30T19:00:00+02:00"]
        assert [o["start"] for o in runs] == ["2027-03-23T18:00:00+00:00", "2027-03-30T17:00:00+00:00"]

    @pytest.mark.parametrize(
        ("rrule", "message"),
        [
            ("FREQ=SOMETIMES", "not a valid RFC 5545 RRULE"),
            ("FREQ=MINUTELY", "at most hourly"),
            ("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "never occurs"),
            ("FREQ=WEEKLY;BYDAY=TU", "not an occurrence .* next occurrence is 2026-12-15"),
            ("FREQ=WEEKLY\nDTSTART:20261201", "must be one RRULE value"),
        ],
    )
    def test_invalid_rules(self, db: Engine, rrule: str, message: str) -> None:
        with pytest.raises(InvalidRequest, match=message):
            call(db, "event_create", calendar_id=1, title="x", start="2026-12-14T10:00", rrule=rrule)

    @pytest.mark.parametrize(
        "rrule",
        [
            "FREQ=DAILY;BYSETPOS=2",  # one candidate a day: the second never exists
            "FREQ=HOURLY;BYSETPOS=2",  # the same, 24 times the periods to search
            "FREQ=WEEKLY;BYDAY=MO;BYSETPOS=3",
            "FREQ=DAILY;INTERVAL=7;BYDAY=TU",  # every 7th day from a Monday is never a Tuesday
            "FREQ=MINUTELY;BYSETPOS=2",
        ],
    )
    def test_rules_that_never_fire_are_refused_promptly(self, db: Engine, rrule: str) -> None:
        """dateutil searches a rule with no occurrence until the year 9999 (42-68 s of CPU for the
        daily one, measured 2026-11): the search is bounded and refused with what to change. Run
        in a thread joined with a generous bound, so a regression fails instead of hanging."""
        outcome: list[BaseException | None] = []

        def create() -> None:
            try:
                call(db, "event_create", calendar_id=1, title="x", start="2026-12-14T10:00", rrule=rrule)
                outcome.append(None)
            except BaseException as exc:  # noqa: BLE001 — judged below
                outcome.append(exc)

        worker = threading.Thread(target=create, daemon=True)
        worker.start()
        worker.join(NEVER_FIRES_BOUND)
        assert outcome, f"{rrule} was still being expanded after {NEVER_FIRES_BOUND} s"
        assert isinstance(outcome[0], InvalidRequest), outcome[0]
        assert re.search(r"at most hourly|never occurs|change|remove", str(outcome[0])), outcome[0]

    def test_until_as_a_date_means_that_whole_day(self, db: Engine) -> None:
        made = call(db, "event_create", calendar_id=1, title="Daily", start="2026-12-07T17:00",
                    rrule="RRULE:freq=daily;until=20261209")["event"]
        assert made["rrule"] == "FREQ=DAILY;UNTIL=20261209T225959Z"
        assert len(starts_of(db, made["id"])) == 3

    def test_preview(self, db: Engine) -> None:
        preview = call(db, "recurrence_preview", rrule="FREQ=MONTHLY;BYDAY=-1FR", start="2026-12-25T16:00",
                       timezone="Europe/Berlin", count=3)
        assert [o["local_start"][:10] for o in preview["occurrences"]] == ["2026-12-25", "2027-01-29", "2027-02-26"]
        assert preview["finite"] is False


class TestOccurrenceEdits:
    """"This occurrence" changes through an override or an EXDATE; "the whole series" changes all."""

    def test_change_one_occurrence_twice(self, db: Engine) -> None:
        first = call(db, "event_update", event_id=1, occurrence_start="2026-12-11T09:30", title="Standup (demo day)")
        again = call(db, "event_update", event_id=1, occurrence_start="2026-12-11T09:30", start="2026-12-11T11:00")
        assert first["event"]["id"] == again["event"]["id"] == 14
        assert again["event"]["title"] == "Standup (demo day)"
        assert again["event"]["local_end"] == "2026-12-11T11:15:00+01:00"
        assert starts_of(db, 1) == ["2026-12-07T09:30:00+01:00", "2026-12-11T11:00:00+01:00"]

    def test_whole_series(self, db: Engine) -> None:
        call(db, "event_update", event_id=1, start="2026-12-07T09:00")
        assert starts_of(db, 1) == ["2026-12-07T09:00:00+01:00", "2026-12-11T09:00:00+01:00"]
        moved = call(db, "event_update", event_id=1, calendar_id=2)["event"]
        assert moved["calendar_id"] == 2

    def test_cancel_restore_and_their_rules(self, db: Engine) -> None:
        call(db, "event_delete", event_id=1, occurrence_start="2026-12-11T08:30:00Z")
        assert starts_of(db, 1) == ["2026-12-07T09:30:00+01:00"]
        with pytest.raises(Conflict, match="is cancelled; bring it back with calendar.occurrence_restore"):
            call(db, "event_update", event_id=1, occurrence_start="2026-12-11T08:30:00Z", title="x")
        restored = call(db, "occurrence_restore", event_id=1, occurrence_start="2026-12-11T09:30:00+01:00")
        assert restored["was_cancelled"] is True
        assert len(starts_of(db, 1)) == 2
        with pytest.raises(NotFound, match="neither cancelled nor changed"):
            call(db, "occurrence_restore", event_id=1, occurrence_start="2026-12-11T08:30:00Z")

    def test_deleting_a_changed_occurrence_cancels_it(self, db: Engine) -> None:
        result = call(db, "event_delete", event_id=4)
        assert result["cancelled"] == {"event_id": 3, "occurrence_start": "2026-12-17T10:00:00+00:00"}
        assert starts_of(db, 3, end="2026-12-21") == []
        assert call(db, "event_get", event_id=3)["event"]["cancelled_occurrences"] == ["2026-12-17T10:00:00+00:00"]

    def test_occurrence_rules(self, db: Engine) -> None:
        with pytest.raises(NotFound, match="event 1 has no occurrence starting 2026-12-08T08:30:00\\+00:00"):
            call(db, "event_update", event_id=1, occurrence_start="2026-12-08T09:30", title="x")
        with pytest.raises(InvalidRequest, match="event 2 does not repeat"):
            call(db, "event_delete", event_id=2, occurrence_start="2026-12-10T14:00")
        with pytest.raises(InvalidRequest, match="one changed occurrence of series 3.*event_id=3"):
            call(db, "event_update", event_id=4, rrule="FREQ=DAILY")
        with pytest.raises(InvalidRequest, match="belong to the whole series"):
            call(db, "event_update", event_id=3, occurrence_start="2026-12-31T11:00", calendar_id=2)
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "event_update", event_id=3)

    def test_ending_the_recurrence_drops_its_exceptions(self, db: Engine) -> None:
        result = call(db, "event_update", event_id=3, rrule=None)
        assert result["dropped_changed_occurrences"] == [4] and result["event"]["rrule"] is None
        with pytest.raises(NotFound):
            call(db, "event_get", event_id=4)


class TestAvailability:
    """Free/busy, slots and conflicts follow ownership, attendance, RSVPs and show-as."""

    def test_freebusy(self, db: Engine) -> None:
        busy = call(db, "freebusy_get", **BERLIN_WEEK, emails=["lena@example.com", "marco@example.com"])["people"]
        assert [b["local_start"] for b in busy["lena@example.com"]] == ["2026-12-10T14:00:00+01:00"]
        call(db, "attendee_update", attendee_id=6, rsvp="declined")
        busy = call(db, "freebusy_get", **BERLIN_WEEK, emails=["lena@example.com"])["people"]
        assert busy["lena@example.com"] == []
        by_calendar = call(db, "freebusy_get", **BERLIN_WEEK, calendar_ids=[2])["calendars"]["2"]
        assert "2026-12-12" not in json.dumps(by_calendar)  # the birthday shows as free

    def test_slots_avoid_everyone_busy(self, db: Engine) -> None:
        people = ["sam@example.com", "priya@example.com", "marco@example.com"]
        slots = call(db, "slot_find", start="2026-12-08", end="2026-12-09", timezone="Europe/Berlin",
                     emails=people, duration_minutes=90, limit=20)["slots"]
        starts = [s["local_start"][11:16] for s in slots]
        assert starts == ["12:00", "12:30", "13:00", "13:30", "14:00", "14:30", "15:00", "15:30"]
        weekend = call(db, "slot_find", start="2026-12-12", end="2026-12-14", timezone="Europe/Berlin",
                       emails=people, duration_minutes=60)
        assert weekend["slots"] == []
        with pytest.raises(InvalidRequest, match="day_end"):
            call(db, "slot_find", **BERLIN_WEEK, emails=people, duration_minutes=30, day_start="18:00", day_end="09:00")

    def test_conflicts(self, db: Engine) -> None:
        pairs = call(db, "conflict_list", **BERLIN_WEEK)["conflicts"]
        assert [(p["first"]["event_id"], p["second"]["event_id"], p["overlap_minutes"]) for p in pairs] == [
            (5, 6, 30),
            (2, 10, 60),
        ]
        assert call(db, "conflict_list", **BERLIN_WEEK, email="lena@example.com")["total"] == 0

    def test_agenda_week(self, db: Engine) -> None:
        days = call(db, "agenda_get", day="2026-12-07", span="week", timezone="Europe/Berlin")["days"]
        assert [d["date"] for d in days][::6] == ["2026-12-07", "2026-12-13"]
        saturday = next(d for d in days if d["date"] == "2026-12-12")["items"]
        assert saturday[0]["title"] == "Mum's birthday" and saturday[0]["all_day"]
        tuesday = [i["title"] for i in days[1]["items"]]
        assert tuesday == ["Offsite planning", "Vendor call: Quinta da Serra", "Running club"]


class TestPeopleAndReminders:
    """Attendees and reminders belong to a series or single event; reminders fire before it."""

    def test_attendees(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="priya@example.com already is attendee 4 of event 2"):
            call(db, "attendee_add", event_id=2, email="Priya@Example.com")
        with pytest.raises(InvalidRequest, match="belong to the series: use event_id=3"):
            call(db, "attendee_add", event_id=4, email="tom@example.com")
        with pytest.raises(NotFound, match="attendee 99 does not exist; an event's attendees are listed by"):
            call(db, "attendee_remove", attendee_id=99)
        assert [a["email"] for a in call(db, "event_get", event_id=4)["event"]["attendees"]] == [
            "priya@example.com", "sam@example.com"
        ]

    def test_reminders_fire_before_each_occurrence(self, db: Engine) -> None:
        call(db, "reminder_add", event_id=1, minutes_before=10)
        due = call(db, "reminder_list", start="2026-12-11T00:00", end="2026-12-12T00:00", timezone="Europe/Berlin")
        assert [(r["local_fires_at"][11:16], r["occurrence"]["title"]) for r in due["reminders"]] == [
            ("09:20", "Team standup")
        ]
        with pytest.raises(Conflict, match="already has a display reminder 10 minutes before"):
            call(db, "reminder_add", event_id=1, minutes_before=10)


class TestICalendar:
    """Export and import round-trip series, exceptions, changed occurrences, attendees and alarms."""

    def test_round_trip(self, db: Engine) -> None:
        def seen(calendar_id: int) -> list[tuple[str, str, str, str | None]]:
            found = call(db, "occurrence_list", start="2026-12-01", end="2027-06-01", calendar_ids=[calendar_id])
            return [(o["title"], o["start"], o["end"], o.get("occurrence_start")) for o in found["occurrences"]]

        before = seen(1)
        exported = call(db, "calendar_export", calendar_id=1)["ics"]
        parsed = icalendar.Calendar.from_ical(exported)
        assert [v.name for v in parsed.walk("VTIMEZONE")] == ["VTIMEZONE"]
        # A UID lives once in a store: the original goes before its export comes back.
        call(db, "calendar_delete", calendar_id=1, force=True)
        imported = call(db, "calendar_import", ics=exported, name="Work again")
        assert imported["failed"] == 0 and len(imported["changed_occurrences"]) == 1
        after = seen(imported["calendar"]["id"])
        assert after == before and len(after) > 40
        moved = ("2026-12-17T14:00:00+00:00", "2026-12-17T14:30:00+00:00", "2026-12-17T10:00:00+00:00")
        assert ("1:1 Priya / Sam", *moved) in after
        assert not any(start == "2026-12-09T08:30:00+00:00" for _t, start, _e, _o in after)  # the EXDATE came back
        again = imported["calendar"]["id"]
        listed = call(db, "event_list", calendar_id=again)["events"]
        series = next(e for e in listed if e["title"] == "Q3 budget review")
        assert [(a["email"], a["rsvp"]) for a in series["attendees"]][2] == ("lena@example.com", "needs_action")
        assert [r["minutes_before"] for r in series["reminders"]] == [15]

    def test_import_twice_adds_nothing(self, db: Engine) -> None:
        ics = call(db, "event_export", event_id=4)["ics"]  # a changed occurrence exports its series
        result = call(db, "event_import", calendar_id=2, ics=ics)
        assert result["failed"] == 2 and "UID seed-3@calendar.example.com already is event 3" in json.dumps(result)

    def test_floating_and_all_day_import(self, db: Engine) -> None:
        ics = (
            "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//t//EN\n"
            "BEGIN:VEVENT\nUID:a@t\nDTSTAMP:20261101T000000Z\nSUMMARY:Floating\nDTSTART:20261215T090000\n"
            "DURATION:PT45M\nEND:VEVENT\n"
            "BEGIN:VEVENT\nUID:b@t\nDTSTAMP:20261101T000000Z\nSUMMARY:Days off\nDTSTART;VALUE=DATE:20261228\n"
            "DTEND;VALUE=DATE:20261231\nEND:VEVENT\nEND:VCALENDAR\n"
        )
        events = call(db, "event_import", calendar_id=1, ics=ics)["events"]
        floating, days_off = (call(db, "event_get", event_id=e["event_id"])["event"] for e in events)
        assert floating["local_start"] == "2026-12-15T09:00:00+01:00"
        assert floating["local_end"] == "2026-12-15T09:45:00+01:00"
        assert (days_off["start_date"], days_off["end_date"]) == ("2026-12-28", "2026-12-30")

    def test_bad_ics(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="not a VCALENDAR|cannot be read"):
            call(db, "event_import", calendar_id=1, ics="BEGIN:VEVENT\nSUMMARY:x\nEND:VEVENT")
        broken = "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:c@t\nSUMMARY:No start\nEND:VEVENT\nEND:VCALENDAR"
        result = call(db, "event_import", calendar_id=1, ics=broken)
        assert result["failed"] == 1 and "no DTSTART" in result["events"][0]["error"]


class TestCalendarsAndBulk:
    """Calendars keep unique names and their events unless forced; bulk work reports each item."""

    def test_calendar_rules(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="calendar 1 is already named 'Work'"):
            call(db, "calendar_create", name="work")
        with pytest.raises(Conflict, match="still has 5 events; pass force=true.*event_bulk_move"):
            call(db, "calendar_delete", calendar_id=1)
        with pytest.raises(InvalidRequest, match="not an IANA zone"):
            call(db, "calendar_update", calendar_id=1, timezone="Berlin")

    def test_bulk(self, db: Engine) -> None:
        created = call(db, "event_bulk_create", calendar_id=2, events=[
            {"title": "Ok", "start": "2026-12-20T10:00"},
            {"title": "Bad", "start": "2026-12-20T10:00", "end": "2026-12-20T09:00"},
        ])
        assert [r["ok"] for r in created["results"]] == [True, False]
        moved = call(db, "event_bulk_move", from_calendar_id=1, to_calendar_id=2)
        assert moved["moved_event_ids"] == [1, 2, 3, 5, 6] and moved["left"] == 0
        assert call(db, "event_get", event_id=4)["event"]["calendar_id"] == 2  # changed occurrence moved along
        with pytest.raises(InvalidRequest, match="both calendars are 2"):
            call(db, "event_bulk_move", from_calendar_id=2, to_calendar_id=2)
        deleted = call(db, "event_bulk_delete", event_ids=[7, 404])
        assert [r["ok"] for r in deleted["results"]] == [True, False]

    def test_duplicates_and_stats(self, db: Engine) -> None:
        duplicates = call(db, "event_duplicate_find")["duplicates"]
        assert [[e["event_id"] for e in d["events"]] for d in duplicates] == [[2, 10]]
        stats = call(db, "calendar_stats", **BERLIN_WEEK, calendar_ids=[1])
        assert (stats["occurrences"], stats["events"], stats["series"]) == (5, 4, 1)
        assert stats["busy_hours"] == 4.0 and stats["attendee_rsvps"]["tentative"] == 1
        assert stats["by_weekday"]["tuesday"] == 2


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("calendar_create", {"name": "  "}),
            ("calendar_create", {"name": "x", "color": "blue"}),
            ("event_create", {"calendar_id": 1, "title": "x", "start": "next tuesday"}),
            ("attendee_add", {"event_id": 1, "email": "nobody"}),
            ("attendee_update", {"attendee_id": 1, "rsvp": "maybe"}),
            ("reminder_add", {"event_id": 1, "minutes_before": -5}),
            ("slot_find", {**BERLIN_WEEK, "emails": [], "duration_minutes": 30}),
            ("event_get", {"event_id": 1, "conversation_id": "x"}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.input_model.model_validate(args)

    def test_domain_errors_name_the_fix(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "event_get", event_id=404)
        assert str(raised.value) == "not found: event 404 does not exist; list events with calendar.event_list"
