"""Services this machine runs: definitions in the database, processes, ports and health probes."""

from domains.services.capabilities import domain

__all__ = ["domain"]
