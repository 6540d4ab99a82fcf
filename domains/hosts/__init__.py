"""A host inventory, probes of the real network, and facts about the local machine."""

from domains.hosts.capabilities import domain

__all__ = ["domain"]
