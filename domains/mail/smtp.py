"""Delivery through the configured SMTP server (stdlib smtplib). An unreachable server is an
`Unavailable` that names the address and the settings, raised before anything is stored, so a
draft stays a draft and nothing is lost."""

from __future__ import annotations

import smtplib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage

from domains.mail.settings import MailSettings, settings
from facade.kit import InvalidRequest, Unavailable

Send = Callable[[EmailMessage], list[str]]


def _unreachable(s: MailSettings, reason: object, outcome: str = "nothing was sent or changed") -> Unavailable:
    return Unavailable(
        f"no SMTP server answers at {s.smtp_host}:{s.smtp_port} ({reason}); start one there or point "
        f"FACADE_MAIL_SMTP_HOST and FACADE_MAIL_SMTP_PORT at one — {outcome}"
    )


@contextmanager
def connection() -> Iterator[Send]:
    """An open SMTP session; yields `send(mail) -> refused recipients`. Refusals of some
    recipients are returned, refusal of all of them is an InvalidRequest naming them."""
    s = settings()
    try:
        client = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=s.smtp_timeout)
    except (OSError, smtplib.SMTPException) as exc:
        raise _unreachable(s, exc.strerror if isinstance(exc, OSError) and exc.strerror else exc) from None

    def send(mail: EmailMessage) -> list[str]:
        try:
            return sorted(client.send_message(mail))
        except smtplib.SMTPRecipientsRefused as exc:
            raise InvalidRequest(
                f"the SMTP server refused every recipient ({', '.join(sorted(exc.recipients))}); check the addresses"
            ) from None
        except smtplib.SMTPSenderRefused as exc:
            raise InvalidRequest(
                f"the SMTP server refused the sender {exc.sender!r} ({exc.smtp_code}); set FACADE_MAIL_FROM to an "
                "address it accepts"
            ) from None
        except smtplib.SMTPDataError as exc:
            raise InvalidRequest(f"the SMTP server rejected the message ({exc.smtp_code} {exc.smtp_error!r})") from None
        except (OSError, smtplib.SMTPServerDisconnected) as exc:
            raise _unreachable(s, exc, "this message was not sent") from None

    try:
        yield send
    finally:
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            client.close()
