"""The mail domain's settings, read from `FACADE_MAIL_*` variables (or facade.toml) at call time."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from facade.kit import settings_reader


class MailSettings(BaseSettings):
    """Where outgoing mail goes and whom it comes from."""

    model_config = SettingsConfigDict(env_prefix="FACADE_MAIL_", extra="ignore", populate_by_name=True)

    smtp_host: str = Field(default="127.0.0.1", description="The SMTP server that relays outgoing mail.")
    smtp_port: int = Field(
        default=8025, ge=1, le=65535, description="Its port; 8025 is the usual port of a local development relay."
    )
    smtp_timeout: float = Field(default=10.0, gt=0, description="Seconds to wait for the server before calling it unreachable.")
    # The demo mailbox's owner, so that replies to the seeded mail leave their own address out;
    # example.com is reserved (RFC 2606), so a deployment that forgets to set it mails no one real.
    sender: str = Field(
        default="Sam Rivera <sam@example.com>",
        validation_alias="FACADE_MAIL_FROM",
        description='The From address of outgoing mail, "Name <addr>" or "addr".',
    )


settings = settings_reader(MailSettings)
