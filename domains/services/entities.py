"""The service entity (facade.kit.records builds its get, list, update and delete from it)."""

from __future__ import annotations

from domains.services import serialize
from domains.services.tables import Service
from facade.kit import Entity

SERVICE: Entity[Service] = Entity("services", "service", "services", Service, render=serialize.service)
