"""The facade's own domain: what an agent can ask the facade about itself — its apps and modes,
and the tools behind them, including the ones its current mode hides.

It keeps no state of its own: every answer comes from `ctx.facade`, the same views that list
and enforce the catalogue, so what it reports cannot disagree with tools/list. Two of its
examples need the facade's state rather than a seed: `elevate` a conversation in which
`skills` is still in core mode, and `card_status` a card 1 of the calling conversation;
tests/test_walk.py makes both before it walks (it elevates its walking conversation first,
which makes card 1, and asks from a second one), so no example relies on another.
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
