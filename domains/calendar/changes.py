"""How events are made and changed, each rule written once: an event ends after it starts, a
series starts on its first occurrence, one occurrence is changed through an override and
cancelled through an EXDATE, and the series owns its rule, zone and calendar."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from domains.calendar import recurrence, times
from domains.calendar.inputs import EventFields, EventUpdate
from domains.calendar.tables import Calendar, Event, Exdate
from facade.kit import Conflict, InvalidRequest, NotFound

When = datetime | date
MAX_LENGTH = timedelta(days=366)
SERIES_ONLY = frozenset({"rrule", "calendar_id", "timezone"})
REQUIRED = frozenset({"title", "start", "all_day", "timezone", "show_as", "location", "description", "calendar_id"})


@dataclass(frozen=True, slots=True)
class Timing:
    start_at: datetime
    end_at: datetime
    all_day: bool


def timing(start: When, end: When | None, all_day: bool | None, tz_name: str) -> Timing:
    """Start and end as UTC instants; an all-day event runs from local midnight of its first
    day to local midnight after its last (given inclusive)."""
    tz = times.zone(tz_name)
    whole_days = all_day if all_day is not None else not isinstance(start, datetime)
    if whole_days:
        first = times.day_of(start, tz)
        last = times.day_of(end, tz) if end is not None else first
        if last < first:
            raise InvalidRequest(f"the last day ({last}) comes before the first ({first}); swap them")
        begins, ends = times.midnight(first, tz), times.midnight(last + timedelta(days=1), tz)
    else:
        begins = times.instant(start, tz)
        ends = times.instant(end, tz) if end is not None else begins + timedelta(hours=1)
        if ends <= begins:
            raise InvalidRequest(f"end ({ends.isoformat()}) must come after start ({begins.isoformat()})")
    if ends - begins > MAX_LENGTH:
        raise InvalidRequest("an event lasts at most 366 days; split it, or make it a series with rrule")
    return Timing(begins, ends, whole_days)


def new_event(db: Session, calendar: Calendar, fields: EventFields, uid: str | None = None) -> Event:
    """A single event or series in `calendar`, checked before anything is written."""
    tz_name = fields.timezone or calendar.timezone
    t = timing(fields.start, fields.end, fields.all_day, tz_name)
    rule = recurrence.checked(fields.rrule, t.start_at, times.zone(tz_name)) if fields.rrule else None
    event = Event(
        calendar=calendar,
        uid=uid or f"{uuid.uuid4()}@facade",
        title=fields.title,
        description=fields.description,
        location=fields.location,
        start_at=t.start_at,
        end_at=t.end_at,
        all_day=t.all_day,
        timezone=tz_name,
        rrule=rule,
        show_as=fields.show_as or ("free" if t.all_day else "busy"),
    )
    db.add(event)
    db.flush()
    return event


def _retime(event: Event, args: EventUpdate, given: set[str], tz_name: str) -> None:
    """Apply new start/end/all-day/zone; a new start alone keeps the event's length."""
    old_tz = times.zone(event.timezone)
    all_day = args.all_day if "all_day" in given and args.all_day is not None else event.all_day
    if "start" in given and "all_day" not in given and not isinstance(args.start, datetime):
        all_day = True  # a bare date asks for a whole day
    start: When = args.start if "start" in given else (
        event.start_at.astimezone(old_tz).date() if all_day and event.all_day else event.start_at
    )
    if "end" in given:
        end: When | None = args.end
    elif "start" in given or all_day != event.all_day:
        end = None
    else:
        last_day = (event.end_at.astimezone(old_tz) - timedelta(days=1)).date()
        end = last_day if all_day and event.all_day else event.end_at
    t = timing(start, end, all_day, tz_name)
    end_at = t.end_at
    if "start" in given and "end" not in given and all_day == event.all_day:
        if all_day:  # whole days, not hours: a day across a DST change is 23 or 25 hours long
            days = round((event.end_at - event.start_at) / timedelta(days=1))
            tz = times.zone(tz_name)
            end_at = times.midnight(t.start_at.astimezone(tz).date() + timedelta(days=days), tz)
        else:
            end_at = t.start_at + (event.end_at - event.start_at)
    if end_at <= t.start_at:
        raise InvalidRequest(f"end ({end_at.isoformat()}) must come after start ({t.start_at.isoformat()})")
    event.start_at, event.end_at, event.all_day, event.timezone = t.start_at, end_at, t.all_day, tz_name


def _wall_clock(event: Event) -> tuple[datetime, ZoneInfo]:
    tz = times.zone(event.timezone)
    return event.start_at.astimezone(tz).replace(tzinfo=None), tz


def _shift_exceptions(series: Event, before: tuple[datetime, ZoneInfo]) -> None:
    """Moving a series moves its cancelled and changed occurrences' original starts with it (by
    wall-clock time, so DST does not bend them), or they would pin nothing after the move. A
    changed occurrence keeps its own time: it was set on purpose."""
    old_start, old_tz = before
    new_start, new_tz = _wall_clock(series)
    delta = new_start - old_start
    if not delta:
        return

    def moved(moment: datetime) -> datetime:
        return (moment.astimezone(old_tz).replace(tzinfo=None) + delta).replace(tzinfo=new_tz).astimezone(UTC)

    for exdate in series.exdates:
        exdate.original_start = moved(exdate.original_start)
    for override in series.overrides:
        if override.recurrence_id is not None:
            override.recurrence_id = moved(override.recurrence_id)


def apply(db: Session, event: Event, args: EventUpdate, given: set[str]) -> dict[str, Any]:
    """Change `event` (a single event, a series or one changed occurrence) in place."""
    nulls = sorted(f for f in given & REQUIRED if getattr(args, f) is None)
    if nulls:
        raise InvalidRequest(f"{', '.join(nulls)} cannot be null; omit a field to keep its value")
    if event.series_id is not None and given & SERIES_ONLY:
        raise InvalidRequest(
            f"event {event.id} is one changed occurrence of series {event.series_id}; change "
            f"{', '.join(sorted(given & SERIES_ONLY))} on the series (event_id={event.series_id})"
        )
    report: dict[str, Any] = {}
    if given & {"start", "end", "all_day", "timezone"}:
        before = _wall_clock(event)
        _retime(event, args, given, args.timezone or event.timezone)
        if event.rrule is not None and event.series_id is None:
            _shift_exceptions(event, before)
    for field in ("title", "location", "description", "show_as"):
        if field in given:
            setattr(event, field, getattr(args, field))
    if "rrule" in given and args.rrule is None and event.rrule is not None:
        report["dropped_changed_occurrences"] = [o.id for o in event.overrides]
        report["dropped_cancelled_occurrences"] = len(event.exdates)
        event.overrides.clear()
        event.exdates.clear()
        event.rrule = None
    elif "rrule" in given:
        event.rrule = args.rrule
    if event.rrule is not None and given & {"rrule", "start", "end", "all_day", "timezone"}:
        event.rrule = recurrence.checked(event.rrule, event.start_at, times.zone(event.timezone))
    if "calendar_id" in given and args.calendar_id != event.calendar_id:
        for override in event.overrides:
            override.calendar_id = args.calendar_id
        event.calendar_id = args.calendar_id
    db.flush()
    return report


def original_start(series: Event, value: When) -> datetime:
    """The UTC start of the occurrence of `series` a caller names; NotFound if it has none there."""
    if series.series_id is not None:
        raise InvalidRequest(
            f"event {series.id} already is one occurrence (of series {series.series_id}); act on it without "
            "occurrence_start"
        )
    if series.rrule is None:
        raise InvalidRequest(f"event {series.id} does not repeat; act on it without occurrence_start")
    tz = times.zone(series.timezone)
    moment = times.instant(value, tz)
    rule = recurrence.rule_for(series.rrule, series.start_at, tz)
    if not recurrence.is_occurrence(rule, moment.astimezone(tz)):
        raise NotFound(
            f"event {series.id} has no occurrence starting {moment.isoformat()}; list its occurrences with "
            "calendar.occurrence_list"
        )
    return moment.astimezone(UTC)


def override_for(db: Session, series: Event, original: datetime) -> Event:
    """The changed-occurrence record of `series` at `original`, made from the series if new."""
    if any(x.original_start == original for x in series.exdates):
        raise Conflict(
            f"the occurrence of event {series.id} at {original.isoformat()} is cancelled; bring it back with "
            "calendar.occurrence_restore first"
        )
    found = next((o for o in series.overrides if o.recurrence_id == original), None)
    if found is not None:
        return found
    override = Event(
        calendar_id=series.calendar_id,
        recurrence_id=original,
        title=series.title,
        description=series.description,
        location=series.location,
        start_at=original,
        end_at=original + (series.end_at - series.start_at),
        all_day=series.all_day,
        timezone=series.timezone,
        show_as=series.show_as,
    )
    series.overrides.append(override)
    db.flush()
    return override


def cancel(db: Session, series: Event, original: datetime) -> dict[str, Any]:
    """Cancel one occurrence: an EXDATE, and its changed record (if any) removed."""
    removed = [o.id for o in series.overrides if o.recurrence_id == original]
    series.overrides[:] = [o for o in series.overrides if o.recurrence_id != original]
    if not any(x.original_start == original for x in series.exdates):
        series.exdates.append(Exdate(original_start=original))
    db.flush()
    cancelled = {"event_id": series.id, "occurrence_start": original.isoformat()}
    return {"cancelled": cancelled, "removed_event_ids": removed}
