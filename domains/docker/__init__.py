"""A Docker Engine, through its HTTP API: containers, images, networks and volumes."""

from domains.docker.capabilities import domain

__all__ = ["domain"]
