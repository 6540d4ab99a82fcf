"""Managed DNS zones and records, zone files in and out, and the system resolver's view."""

from domains.dns.capabilities import domain

__all__ = ["domain"]
