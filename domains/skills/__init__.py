"""The facade's own domain: what an agent can ask the facade about itself — its apps and modes,
and the tools behind them, including the ones its current mode hides.

It keeps no state of its own: every answer comes from `ctx.facade`, the same views that list
and enforce the catalogue, so what it reports cannot disagree with tools/list. Its examples
need a conversation in which `skills` is still in core mode (to ask for it) and one card of
that conversation (card 1, for card_status); tests/test_walk.py makes both before it walks.
"""

from domains.skills import discovery, elevation
from facade.kit import Domain

domain = Domain(
    "skills",
    description="What you can do here: your apps, modes and tools.",
    default_mode="full",
    toolsets=(discovery.tools, elevation.tools, discovery.full_tools),
)

__all__ = ["domain"]
