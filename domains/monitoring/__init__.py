"""Checks of this machine and its services, with alerts, silences and metric samples."""

from domains.monitoring.capabilities import domain

__all__ = ["domain"]
