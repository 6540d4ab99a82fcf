"""Schedules are five-field cron expressions ("minute hour day month weekday", UTC), read with
croniter. One module validates them and computes their next times, for jobs and previews."""

from __future__ import annotations

from datetime import UTC, datetime

from croniter import CroniterBadDateError, CroniterError, croniter

MACROS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
HINT = "use five fields 'minute hour day month weekday' in UTC, e.g. '0 2 * * *' for 02:00 every day"


def check(expression: str) -> str:
    """The expression, tidied, if it is a cron schedule that fires; ValueError saying what to
    change otherwise (raised inside pydantic validation, so it reaches the caller as bad input)."""
    tidy = " ".join(expression.split())
    if tidy.lower() in MACROS:
        tidy = tidy.lower()
    # croniter also takes a sixth (seconds) field; a backup schedule finer than a minute is a typo.
    elif len(tidy.split(" ")) != 5 or not croniter.is_valid(tidy):
        raise ValueError(f"{expression!r} is not a valid cron expression; {HINT}")
    try:
        croniter(tidy, datetime.now(UTC)).get_next(datetime)
    except (CroniterBadDateError, CroniterError):
        raise ValueError(f"{expression!r} never fires (e.g. 30 February); {HINT}") from None
    return tidy


def next_times(expression: str, count: int, after: datetime | None = None) -> list[datetime]:
    """The next `count` times the schedule fires after `after` (now by default), in UTC."""
    start = (after or datetime.now(UTC)).astimezone(UTC)
    it = croniter(expression, start)
    times: list[datetime] = []
    try:
        for _ in range(count):
            times.append(it.get_next(datetime).astimezone(UTC))
    except CroniterBadDateError:
        pass  # a schedule that stops firing (a fixed year) just has fewer next times
    return times


def next_time(expression: str) -> datetime | None:
    found = next_times(expression, 1)
    return found[0] if found else None
