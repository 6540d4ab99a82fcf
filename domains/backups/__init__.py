"""Backup jobs over folders of a sandbox: real .tar.gz archives with manifests, verify, restore."""

from domains.backups.capabilities import domain

__all__ = ["domain"]
