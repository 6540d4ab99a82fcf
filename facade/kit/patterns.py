"""Regular expressions a caller supplies, run in linear time. Python's `re` backtracks: a pattern
such as `(a+)+$` on a line of 24 `a`s and a `!` took 5-9 s, doubling with each character, and
held the GIL, so /healthz and every other agent waited (issue 13). RE2 matches in time linear in
the text, whatever the pattern; it has no backreferences or lookaround, which is the price.

The one rule for every domain: a pattern from a caller goes through `user_pattern`, never
through `re.compile`."""

from __future__ import annotations

import re2

from facade.errors import InvalidRequest

Pattern = re2._Regexp  # noqa: SLF001 — the binding names its compiled type no other way

# What RE2 refuses that Python's `re` accepts, and what to write instead.
UNSUPPORTED = (
    (("invalid perl operator: (?=", "invalid perl operator: (?!", "invalid perl operator: (?<"),
     "lookahead and lookbehind ((?=...), (?!...), (?<=...), (?<!...)) are not supported; "
     "match the surrounding text itself instead"),
    (("invalid escape sequence: \\1", "invalid escape sequence: \\2", "invalid escape sequence: \\3",
      "invalid escape sequence: \\4", "invalid escape sequence: \\5", "invalid escape sequence: \\6",
      "invalid escape sequence: \\7", "invalid escape sequence: \\8", "invalid escape sequence: \\9"),
     "backreferences such as \\1 are not supported in a pattern (a replacement may still use \\1); "
     "spell out the repeated text instead"),
    (("invalid repetition size",),
     "a repetition count is at most 1000 ({n,m} with n, m <= 1000)"),
    (("pattern too large",), "the pattern is too large; make it shorter or less repetitive"),
)


def user_pattern(
    text: str, *, field: str, regex: bool = True, ignore_case: bool = False, literal_flag: str | None = "regex"
) -> Pattern:
    """`text` compiled for RE2, as a regular expression or (regex=False) as literal text.
    A pattern RE2 cannot run is an InvalidRequest naming `field` and what to change;
    `literal_flag` names the argument that turns the pattern into plain text, if there is one."""
    options = re2.Options()
    options.log_errors = False  # the refusal goes to the caller, not to the server's stderr
    options.literal = not regex
    options.case_sensitive = not ignore_case
    try:
        return re2.compile(text, options)
    except re2.error as exc:
        reason = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        hint = next((advice for starts, advice in UNSUPPORTED if reason.startswith(starts)), None)
        if hint is None:
            hint = "fix it"
        literal = f", or pass {literal_flag}=false to match the text literally" if literal_flag else ""
        raise InvalidRequest(
            f"{field} is not a regular expression this server runs ({reason}): {hint}; "
            f"patterns use RE2 syntax (linear time){literal}"
        ) from None


def substitute(pattern: Pattern, template: str, text: str, *, count: int = 0, field: str) -> tuple[str, int]:
    """`pattern.subn` with `template` (\\1 and \\g<name> insert groups); a template that refers to a
    group the pattern lacks is an InvalidRequest naming `field`."""
    try:
        return pattern.subn(template, text, count=count)
    except (re2.error, IndexError) as exc:
        raise InvalidRequest(
            f"{field} does not fit the pattern ({exc}); refer only to groups the pattern has"
        ) from None
