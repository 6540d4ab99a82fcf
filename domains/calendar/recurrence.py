"""Recurrence: RRULE strings (RFC 5545) checked and expanded with dateutil. A series expands in
its own zone, so its wall-clock time holds across DST; its start must be its first occurrence,
so that "the series" and "its occurrences" never disagree about where it begins."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from dateutil.rrule import DAILY, HOURLY, MINUTELY, MONTHLY, SECONDLY, WEEKLY, YEARLY, rrule, rrulestr

from facade.kit import InvalidRequest

# No series expands past this many occurrences in one query: a guard, not a limit a calendar
# of meetings reaches (a daily event over the longest allowed range has 366).
MAX_OCCURRENCES = 2000
FORBIDDEN_PARTS = ("DTSTART", "EXDATE", "RDATE", "EXRULE")
# Periods (days of a DAILY rule, hours of an HOURLY one...) dateutil may examine in a row without
# finding an occurrence: about a second of CPU. dateutil otherwise searches a rule that never
# fires until the year 9999 (FREQ=DAILY;BYSETPOS=2 spent 42-68 s, HOURLY ~24 times that,
# measured 2026-11). 137 years of days or 5.7 of hours: wider than the gap of any rule that fires.
MAX_EMPTY_PERIODS = 50_000
PERIODS_PER_YEAR = {YEARLY: 1, MONTHLY: 12, WEEKLY: 53, DAILY: 366, HOURLY: 8784, MINUTELY: 527_040}


def normalise(text: str) -> str:
    """The rule part alone, upper-case, without an `RRULE:` prefix."""
    rule = " ".join(text.split()).upper()
    rule = rule.removeprefix("RRULE:").strip()
    if not rule or any(part in rule for part in FORBIDDEN_PARTS) or "\n" in text.strip():
        raise InvalidRequest(
            f"rrule {text!r} must be one RRULE value such as 'FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10'; "
            "give the start separately and cancel occurrences with calendar.event_delete"
        )
    return rule


# The longest each month can be (February in a leap year).
MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _never_fires(rule_text: str) -> None:
    """Refuse the rules that can never occur: dateutil would search for them until the year 9999
    (~10 s of CPU for a daily rule, measured 2026-11). A day of the month no listed month has is
    the likely mistake; year-day and week-number filters are refused beside a month filter."""
    parts = dict(part.partition("=")[::2] for part in rule_text.split(";"))
    months = [int(m) for m in parts["BYMONTH"].split(",")] if parts.get("BYMONTH", "").strip() else range(1, 13)
    try:
        days = [int(d) for d in parts["BYMONTHDAY"].split(",")] if parts.get("BYMONTHDAY") else []
        months = [m for m in months if 1 <= int(m) <= 12]
    except ValueError:
        return  # malformed numbers: dateutil names the problem below
    if days and not any(abs(d) <= MONTH_DAYS[m - 1] for m in months for d in days if d):
        raise InvalidRequest(
            f"rrule {rule_text!r} never occurs: no listed month has those days; fix BYMONTHDAY or BYMONTH"
        )
    if parts.get("BYMONTH") and (parts.get("BYYEARDAY") or parts.get("BYWEEKNO")):
        raise InvalidRequest(f"rrule {rule_text!r} combines BYMONTH with BYYEARDAY or BYWEEKNO; use one of them")


class NeverFires(InvalidRequest):
    """The bounded search found no occurrence."""


class BoundedRule(rrule):
    """An rrule whose search for its next occurrence gives up after MAX_EMPTY_PERIODS periods.
    dateutil offers no such bound; it rebuilds its year masks once per year examined, reading
    `_byweekno` as it does, so that read counts the years (the kit's rules already read dateutil's
    private fields: it exposes its parts no other way)."""

    def __init__(self, text: str, **parts: object) -> None:
        self._empty_periods = 0.0
        self.text = text  # the rule as the caller wrote it, for the refusal
        super().__init__(**parts)  # type: ignore[arg-type]

    @property  # type: ignore[override]
    def _byweekno(self) -> object:
        self._empty_periods += PERIODS_PER_YEAR.get(self._freq, 1) / self._interval
        if self._empty_periods > MAX_EMPTY_PERIODS:
            raise NeverFires(
                f"rrule {self.text!r} has no occurrence in "
                f"{MAX_EMPTY_PERIODS} periods in a row, so it likely never fires: remove BYSETPOS or make it "
                "at most the number of occurrences each period has, and check that INTERVAL does not skip "
                "every period the BY parts allow"
            )
        return self._byweekno_value

    @_byweekno.setter
    def _byweekno(self, value: object) -> None:
        self._byweekno_value = value

    def _iter(self) -> Iterator[datetime]:  # type: ignore[override]
        self._empty_periods = 0.0
        for occurrence in super()._iter():
            self._empty_periods = 0.0
            yield occurrence

    def replace(self, **kwargs: object) -> BoundedRule:  # type: ignore[override]
        return bounded(super().replace(**kwargs), self.text)


def bounded(rule: rrule, text: str) -> BoundedRule:
    """`rule` with its search bounded (dateutil's own `replace` lists the same parts)."""
    parts = {"interval": rule._interval, "count": rule._count, "dtstart": rule._dtstart, "freq": rule._freq,  # noqa: SLF001
             "until": rule._until, "wkst": rule._wkst, **rule._original_rule}  # noqa: SLF001
    return BoundedRule(text, **parts)


UNTIL = re.compile(r"UNTIL=(\d{8})(T(\d{6}))?(Z?)")


def _until_in_utc(rule_text: str, tz: ZoneInfo) -> str:
    """UNTIL as RFC 5545 wants it beside a zoned start: in UTC. A bare date means the end of
    that day, and a time without Z that time, both read in the series' zone."""

    def utc(match: re.Match[str]) -> str:
        day, clock, zulu = match.group(1), match.group(3), match.group(4)
        if zulu:
            return match.group(0)
        try:
            moment = datetime.strptime(day + (clock or "235959"), "%Y%m%d%H%M%S").replace(tzinfo=tz)
        except ValueError:
            return match.group(0)  # dateutil names the malformed date below
        return "UNTIL=" + moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")

    return UNTIL.sub(utc, rule_text)


def rule_for(text: str, start: datetime, tz: ZoneInfo) -> BoundedRule:
    """The dateutil rule of `text` starting at the UTC instant `start`, read in `tz`."""
    rule_text = _until_in_utc(normalise(text), tz)
    _never_fires(rule_text)
    try:
        rule = rrulestr(rule_text, dtstart=start.astimezone(tz))
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise InvalidRequest(
            f"rrule {rule_text!r} is not a valid RFC 5545 RRULE ({exc}); write e.g. 'FREQ=WEEKLY;BYDAY=MO;COUNT=6' "
            "or 'FREQ=MONTHLY;BYMONTHDAY=1;UNTIL=20271231'"
        ) from None
    if not isinstance(rule, rrule):
        raise InvalidRequest(f"rrule {rule_text!r} must be a single RRULE")
    if rule._freq in (SECONDLY, MINUTELY):  # noqa: SLF001 — dateutil exposes the frequency no other way
        raise InvalidRequest("a series repeats at most hourly; use FREQ=HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY")
    return bounded(rule, normalise(text))


def checked(text: str, start: datetime, tz: ZoneInfo) -> str:
    """`text` normalised, if it is valid and `start` is its first occurrence."""
    rule = rule_for(text, start, tz)
    local_start = start.astimezone(tz)
    # Bounded at the start itself, so this answers at once even for a rule that never fires.
    if list(rule.replace(count=None, until=local_start)) != [local_start]:
        upcoming = rule.between(local_start, local_start + timedelta(days=400))[:1]
        hint = f"; its next occurrence is {upcoming[0].isoformat()}" if upcoming else ""
        raise InvalidRequest(
            f"start {local_start.isoformat()} is not an occurrence of {normalise(text)!r}{hint}; "
            "move the start to the first occurrence or change the rule"
        )
    return _until_in_utc(normalise(text), tz)


def starts(rule: rrule, after: datetime, before: datetime, duration: timedelta) -> Iterator[datetime]:
    """The occurrence starts of `rule` whose [start, start + duration) overlaps [after, before)."""
    for count, occurrence in enumerate(rule.between(after - duration, before, inc=True)):
        if count >= MAX_OCCURRENCES:
            return
        if occurrence + duration > after and occurrence < before:
            yield occurrence


def is_occurrence(rule: rrule, moment: datetime) -> bool:
    return moment in rule
