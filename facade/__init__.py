"""Facade: an MCP tool-catalogue server that serves each agent only what its mode allows."""

__version__ = "0.1.0"
