"""A domain's own settings: `FACADE_<DOMAIN>_*` environment variables, declared by the domain as
a pydantic-settings model and read here, the same way for every domain.

They are read per call, so that an operator (or a test) can move a root or point at another
server without a restart; constructing them is cheap. A value that does not parse makes the
domain Unavailable with the variable named: where the fault lies is the operator's business,
and the model only learns that the domain cannot work until it is fixed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings

from facade.errors import RegistryError, Unavailable

S = TypeVar("S", bound=BaseSettings)
PREFIX = "FACADE_"


def settings_reader(model: type[S]) -> Callable[[], S]:
    """A function that returns `model` as the environment says now. The model's `env_prefix`
    (`FACADE_<DOMAIN>_`) names the domain in messages, so it is checked here, at import."""
    prefix = str(model.model_config.get("env_prefix") or "")
    domain = prefix.removeprefix(PREFIX).removesuffix("_").lower()
    if not (prefix.startswith(PREFIX) and prefix.endswith("_") and domain):
        raise RegistryError(
            f"{model.__name__}: a domain's settings are FACADE_<DOMAIN>_* variables; give it "
            f"model_config = SettingsConfigDict(env_prefix='FACADE_<DOMAIN>_'), not env_prefix={prefix!r}"
        )

    def read() -> S:
        try:
            return model()
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]).upper() if first["loc"] else "*"
            # A field read through an alias (mail's FACADE_MAIL_FROM) is reported by its full name.
            where = field if field.startswith(prefix) else prefix + field
            raise Unavailable(
                f"the {domain} domain is misconfigured ({where}: {first['msg']}); an operator must fix it"
            ) from None

    read.__doc__ = f"The {domain} domain's settings ({prefix}*) as the environment says now."
    return read
