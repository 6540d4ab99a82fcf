"""Messages as RFC 5322: a stored message becomes an `EmailMessage` to send or export, a reply
or forward gets the headers and quoted body mail clients expect, and .eml text is read back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import message_from_string, policy
from email.errors import MessageError
from email.message import EmailMessage
from email.parser import HeaderParser
from email.utils import format_datetime, make_msgid, parsedate_to_datetime

from domains.mail import addresses, threads
from domains.mail.tables import Message
from facade.kit import InvalidRequest

FORWARD_MARK = "---------- Forwarded message ---------"


def new_message_id(sender: str) -> str:
    """A fresh `<unique@domain>` under the sender's own domain, as RFC 5322 recommends."""
    domain = addresses.email_of(sender).rpartition("@")[2] or "facade.localhost"
    return make_msgid(domain=domain)


def to_email(m: Message, sent_at: datetime | None = None) -> EmailMessage:
    """The message as it goes on the wire (Bcc included: smtplib strips it before sending)."""
    out = EmailMessage()
    out["From"] = m.from_addr
    for header, stored in (("To", m.to_addrs), ("Cc", m.cc_addrs), ("Bcc", m.bcc_addrs)):
        if stored:
            out[header] = stored
    out["Subject"] = m.subject
    out["Date"] = format_datetime((sent_at or m.received_at).astimezone(UTC))
    out["Message-ID"] = m.message_id
    if m.in_reply_to:
        out["In-Reply-To"] = m.in_reply_to
    if m.reference_ids:
        out["References"] = m.reference_ids
    out.set_content(m.body)
    return out


def header_text(mail: EmailMessage) -> str:
    """The header block of `mail`, one `Name: value` line each (long values unfolded)."""
    return "".join(f"{name}: {' '.join(str(value).split())}\n" for name, value in mail.items())


def header_pairs(stored: str) -> list[tuple[str, str]]:
    return [(name, " ".join(str(value).split())) for name, value in HeaderParser().parsestr(stored).items()]


def reply_to_of(m: Message) -> str | None:
    """The Reply-To of a stored message, when its headers name one."""
    value = HeaderParser().parsestr(m.headers).get("Reply-To") if m.headers else None
    return str(value) if value else None


def quote(m: Message) -> str:
    when = m.received_at.astimezone(UTC).strftime("%a, %d %b %Y at %H:%M UTC")
    quoted = "\n".join(f"> {line}" if line else ">" for line in m.body.splitlines())
    return f"On {when}, {m.from_addr} wrote:\n{quoted}"


def forwarded(m: Message) -> str:
    lines = [FORWARD_MARK, f"From: {m.from_addr}", f"Date: {format_datetime(m.received_at.astimezone(UTC))}"]
    lines += [f"Subject: {m.subject}", f"To: {m.to_addrs}"]
    if m.cc_addrs:
        lines.append(f"Cc: {m.cc_addrs}")
    return "\n".join(lines) + "\n\n" + m.body


def prefixed(prefix: str, subject: str) -> str:
    """`Re: subject`, without stacking `Re: Re:` (a `Fwd:` of a reply keeps its `Re:`)."""
    if subject.lower().startswith(prefix.lower()):
        return subject
    return f"{prefix} {threads.clean_subject(subject) if prefix == 'Re:' else subject}"[:500]


@dataclass
class Parsed:
    """The fields of an .eml file this store keeps."""

    from_addr: str
    to_addrs: str
    cc_addrs: str
    subject: str
    message_id: str | None
    in_reply_to: str | None
    reference_ids: str
    received_at: datetime | None
    body: str
    headers: str
    attachments: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # A base64 body or an encoded Subject may decode to NUL bytes, which PostgreSQL's text
        # cannot hold; no reader misses them.
        for name, value in list(vars(self).items()):
            if isinstance(value, str) and "\x00" in value:
                setattr(self, name, value.replace("\x00", ""))


def parse_eml(text: str) -> Parsed:
    """Read an .eml (RFC 5322) text; InvalidRequest says what is missing or malformed."""
    try:
        mail = message_from_string(text, policy=policy.default)
        sender = str(mail.get("From") or "")
        to, cc = str(mail.get("To") or ""), str(mail.get("Cc") or "")
    except (MessageError, ValueError, IndexError) as exc:
        raise InvalidRequest(f"the .eml text cannot be parsed ({exc}); pass the whole message, headers first") from None
    if not sender:
        raise InvalidRequest("the .eml text has no From header; pass a complete RFC 5322 message, headers first")
    message_id = threads.message_ids(str(mail.get("Message-ID") or ""))
    in_reply_to = threads.message_ids(str(mail.get("In-Reply-To") or ""))
    return Parsed(
        from_addr=addresses.normalise(sender, "From"),
        to_addrs=addresses.join(addresses.split(to), "To") if to else "",
        cc_addrs=addresses.join(addresses.split(cc), "Cc") if cc else "",
        subject=" ".join(str(mail.get("Subject") or "").split())[:500],
        message_id=message_id[0] if message_id else None,
        in_reply_to=in_reply_to[0] if in_reply_to else None,
        reference_ids=" ".join(threads.message_ids(str(mail.get("References") or ""))),
        received_at=_date_of(mail.get("Date")),
        body=_body_of(mail),
        headers="".join(f"{name}: {' '.join(str(value).split())}\n" for name, value in mail.items()),
        attachments=[part.get_filename() or part.get_content_type() for part in mail.iter_attachments()]
        if mail.is_multipart()
        else [],
    )


def _date_of(value: object) -> datetime | None:
    if not value:
        return None
    try:
        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None  # an unreadable Date is replaced by the import time, not fatal
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _body_of(mail: EmailMessage) -> str:
    part = mail.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    try:
        return str(part.get_content()).strip()
    except (LookupError, ValueError):  # an unknown charset: keep what can be decoded
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", errors="replace").strip() if isinstance(payload, bytes) else ""
