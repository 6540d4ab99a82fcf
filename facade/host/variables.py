"""The variables the host reads (`facade chat`, `facade run`), named once — by its settings model
(facade.host.settings): the server's command line accepts them beside its own settings, so that
one shell can set both."""

from __future__ import annotations

from facade.host.settings import variables

VARIABLES = variables()
