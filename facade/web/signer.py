"""What the dashboard signs: its session cookie, the CSRF token of its forms, and the message a
decision leaves for the next page.

All are HMACs keyed by the operator token, so that they are valid on every replica that shares
the token and stop working the moment it rotates. The CSRF token and the message are bound to
the session they were made for: no other session, and nobody without the key, can make one.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time

SESSION_SECONDS = 12 * 3600
FLASH_CHARS = 1000  # a cookie holds ~4 KB; a decision's message is much shorter


class Signer:
    """Signs sessions, CSRF tokens and flash messages with a key derived from the operator token."""

    def __init__(self, operator_token: str) -> None:
        self.key = hashlib.sha256(b"facade-dashboard\x00" + operator_token.encode()).digest()

    def _mac(self, text: str) -> str:
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def session(self, now: float | None = None) -> str:
        issued = str(int(now if now is not None else time.time()))
        return f"{issued}.{self._mac('session:' + issued)}"

    def valid_session(self, cookie: str | None) -> bool:
        if not cookie or "." not in cookie:
            return False
        issued, mac = cookie.split(".", 1)
        if not (issued.isascii() and issued.isdigit()) or time.time() - int(issued) > SESSION_SECONDS:
            return False
        return _same(mac, self._mac("session:" + issued))

    def csrf(self, cookie: str) -> str:
        return self._mac("csrf:" + cookie)

    def valid_csrf(self, cookie: str, token: str | None) -> bool:
        return bool(token) and _same(self.csrf(cookie), token or "")

    def flash(self, cookie: str, message: str, error: bool) -> str:
        """A message for this session's next page, signed so that nobody else can write one."""
        payload = json.dumps({"m": message[:FLASH_CHARS], "e": error}, ensure_ascii=True).encode()
        body = base64.urlsafe_b64encode(payload).decode().rstrip("=")
        return f"{body}.{self._mac(f'flash:{cookie}:{body}')}"

    def read_flash(self, cookie: str, value: str | None) -> tuple[str, bool]:
        """(message, is_error) of a flash cookie signed for this session, else ("", False)."""
        body, _, mac = (value or "").partition(".")
        if not body or not _same(mac, self._mac(f"flash:{cookie}:{body}")):
            return "", False
        try:
            data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            return str(data["m"]), bool(data["e"])
        except (binascii.Error, ValueError, KeyError, TypeError):
            return "", False


def _same(given: str, expected: str) -> bool:
    # As bytes: compare_digest refuses str with non-ASCII characters, which a forged cookie may hold.
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode())

