"""Full-tier capabilities of the catalogue and the books: archiving, bulk work, reports, history
export and the consistency audit."""

from __future__ import annotations

from typing import Any

from domains.inventory import bulk, history, inputs, inputs_flow, reports, rules, serialize
from domains.inventory.entities import ITEM, WAREHOUSE
from facade.kit import CallContext, Domain

Result = dict[str, Any]


def register(domain: Domain) -> None:
    @domain.capability("item_archive", idempotent=True, example={"item_id": 9})
    def item_archive(ctx: CallContext, args: inputs.ItemRef) -> Result:
        """Archive an item with no stock, hiding it and refusing new stock for it."""
        item = ITEM.fetch(ctx.db, args.item_id)
        changed = rules.set_archived(ctx.db, item, True)
        return {"item": serialize.item(item), "changed": changed}

    @domain.capability("item_unarchive", idempotent=True, example={"item_id": 10})
    def item_unarchive(ctx: CallContext, args: inputs.ItemRef) -> Result:
        """Unarchive an item so that it can be stocked again."""
        item = ITEM.fetch(ctx.db, args.item_id)
        changed = rules.set_archived(ctx.db, item, False)
        return {"item": serialize.item(item), "changed": changed}

    @domain.capability(
        "location_bulk_create",
        example={"warehouse_id": 3, "codes": ["A-01", "A-02", "A-03"], "description": "Aisle A"},
    )
    def location_bulk_create(ctx: CallContext, args: inputs.LocationBulkCreate) -> Result:
        """Create many bin locations in a warehouse, reporting each one's result."""
        warehouse = WAREHOUSE.fetch(ctx.db, args.warehouse_id)
        return bulk.create_locations(ctx.db, warehouse, args.codes, args.description)

    @domain.capability(
        "item_bulk_import",
        example={
            "items": [
                {
                    "sku": "WASHER-M8",
                    "name": "Flat washer M8, zinc plated",
                    "unit": "pcs",
                    "category_id": 1,
                    "supplier_id": 1,
                    "unit_cost": 0.02,
                    "reorder_point": 500,
                    "reorder_quantity": 2000,
                },
                {"sku": "NUT-M8", "name": "Hex nut M8, zinc plated", "unit": "pcs", "reorder_point": 800},
            ],
            "update_existing": True,
        },
    )
    def item_bulk_import(ctx: CallContext, args: inputs.ItemBulkImport) -> Result:
        """Create or update many items by SKU, reporting each one's result."""
        return bulk.import_items(ctx.db, args.items, args.update_existing)

    @domain.capability(
        "stock_bulk_adjust",
        example={
            "lines": [
                {"item_id": 5, "location_id": 5, "quantity": -3},
                {"item_id": 8, "location_id": 4, "quantity": 1},
            ],
            "reason": "Spot check after the inventory walk",
        },
    )
    def stock_bulk_adjust(ctx: CallContext, args: inputs.StockBulkAdjust) -> Result:
        """Correct many stock levels with one reason, reporting each line's result."""
        return bulk.adjust(ctx.db, args.lines, args.reason, created_by=ctx.agent)

    @domain.capability("valuation_report", read_only=True, example={})
    def valuation_report(ctx: CallContext, args: inputs_flow.ValuationReport) -> Result:
        """Value stock on hand per item at its moving average cost."""
        return reports.valuation(ctx.db, args)

    @domain.capability("reorder_report", read_only=True, example={})
    def reorder_report(ctx: CallContext, args: inputs_flow.ReorderReport) -> Result:
        """Suggest what to reorder: items at or below their reorder point, counting open orders."""
        return reports.reorder(ctx.db, args)

    @domain.capability("dead_stock_report", read_only=True, example={"days": 90})
    def dead_stock_report(ctx: CallContext, args: inputs_flow.DeadStockReport) -> Result:
        """Find stock on hand that has not gone out for a number of days."""
        return reports.dead_stock(ctx.db, args)

    @domain.capability("stock_snapshot", read_only=True, example={"as_of": "2026-06-30"})
    def stock_snapshot(ctx: CallContext, args: inputs_flow.StockSnapshot) -> Result:
        """Show stock levels as they stood at the end of a past day."""
        return history.snapshot(ctx.db, args)

    @domain.capability("movement_history_export", read_only=True, example={"format": "csv", "item_id": 1})
    def movement_history_export(ctx: CallContext, args: inputs_flow.MovementHistoryExport) -> Result:
        """Export the movement history as CSV or JSON."""
        return history.export(ctx.db, args)

    @domain.capability("stock_audit", read_only=True, example={})
    def stock_audit(ctx: CallContext, args: inputs_flow.StockAudit) -> Result:
        """Check that every stock level equals the sum of its movements."""
        return history.audit(ctx.db, args)
