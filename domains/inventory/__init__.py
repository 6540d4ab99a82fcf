"""Items, warehouses and bin locations, stock levels and movements, purchase orders,
reservations and cycle counts."""

from domains.inventory.capabilities import domain

__all__ = ["domain"]
