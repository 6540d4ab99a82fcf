"""The inventory domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable); stock never goes negative and always
equals its movements; purchasing, reservations and counts keep their rules; the migration builds
exactly the schema of tables.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, func, select, update
from sqlalchemy.exc import IntegrityError

from domains.inventory import domain
from domains.inventory.tables import Movement, PurchaseOrderLine, Stock
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract

inventory = DomainHarness(domain)
call, migrated, seeded = inventory.call, inventory.migrated, inventory.seeded
# Capabilities that raise Unavailable here, for want of their backend: none — inventory needs
# nothing but its database.
NEEDS_BACKEND: set[str] = set()


# Helpers and fixtures


def assert_walk_succeeds(engine: Engine, shuffle: int | None = None) -> None:
    inventory.assert_walk_succeeds(engine, unavailable=NEEDS_BACKEND, shuffle=shuffle)
    assert call(engine, "stock_audit")["consistent"] is True


def level(engine: Engine, item_id: int, location_id: int, lot: str = "") -> dict[str, str]:
    levels = call(engine, "stock_list", item_id=item_id, location_id=location_id, include_empty=True)["levels"]
    found = [lvl for lvl in levels if lvl["lot"] == lot]
    return found[0] if found else {"on_hand": "0", "reserved": "0", "available": "0"}


def receive(engine: Engine, order_id: int, location_id: int, *lines: dict[str, Any]) -> Any:
    args = {"purchase_order_id": order_id, "location_id": location_id, "lines": list(lines)}
    return call(engine, "purchase_order_receive", **args)


def record(engine: Engine, count_id: int, counted: dict[int, int]) -> Any:
    lines = [{"item_id": item_id, "counted_quantity": n} for item_id, n in counted.items()]
    return call(engine, "count_record", count_id=count_id, lines=lines)


def movement_count(engine: Engine) -> int:
    with session_factory(engine)() as session:
        return session.scalar(select(func.count()).select_from(Movement)) or 0


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return inventory.template(tmp_path_factory.mktemp("inventory"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database of this test's own."""
    with inventory.copy(template, tmp_path) as engine:
        yield engine


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers in the agreed mix,
    every one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        inventory.assert_tiers(at_least=50)
        assert domain.default_mode == "full"

    def test_descriptions_are_one_short_sentence(self) -> None:
        inventory.assert_descriptions_are_one_sentence(max_length=100)
        inventory.assert_descriptions_differ()

    def test_annotations_match_the_verbs(self) -> None:
        inventory.assert_annotations_follow_the_verbs(
            reads=("_get", "_list", "_report", "_snapshot", "_export", "_audit"), destructive=("_delete",)
        )

    def test_inputs_never_declare_identity(self) -> None:
        inventory.assert_no_identity_fields()


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds, returns JSON-friendly data, and leaves the books consistent."""

    def test_sqlite(self, db: Engine) -> None:
        assert_walk_succeeds(db)

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, db: Engine, seed: int) -> None:
        assert_walk_succeeds(db, shuffle=seed)

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the twelve inventory tables."""

    harness, tables = inventory, 12


class TestSeed:
    """The seed is deterministic, idempotent, and its stock equals its movements."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        skus = [i["sku"] for i in call(db, "item_list", include_archived=True, limit=200)["items"]]
        assert skus[:2] == ["BOLT-M8X40", "NUT-M8"] and len(skus) == 11
        assert [w["code"] for w in call(db, "warehouse_list")["warehouses"]] == ["MAIN", "EAST"]
        assert call(db, "movement_list", limit=200)["total"] == 19
        assert [o["status"] for o in call(db, "purchase_order_list")["purchase_orders"]] == [
            "received",
            "received",
            "partially_received",
            "draft",
            "draft",
            "ordered",
        ]
        draft = call(db, "purchase_order_get", purchase_order_id=4)["purchase_order"]
        assert [line["id"] for line in draft["lines"]] == [7, 8]

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        before = movement_count(db), call(db, "item_list", include_archived=True)["total"]
        seeded(db)
        assert (movement_count(db), call(db, "item_list", include_archived=True)["total"]) == before

    def test_levels_equal_movements(self, db: Engine) -> None:
        audit = call(db, "stock_audit")
        assert audit == {"levels_checked": 9, "consistent": True, "mismatches": [], "over_reserved": []}
        assert level(db, 1, 2) == {**level(db, 1, 2), "on_hand": "950", "reserved": "200", "available": "750"}

    def test_timestamps_come_back_utc_aware(self, db: Engine) -> None:
        moved = call(db, "stock_receive", item_id=6, location_id=1, quantity=1)["movement"]
        assert moved["occurred_at"].endswith("+00:00")
        with session_factory(db)() as session:
            row = session.get(Movement, moved["id"])
            assert row is not None and row.occurred_at.utcoffset() is not None


class TestStockNeverNegative:
    """An issue, transfer or adjustment beyond what is on hand is refused, naming the item, the
    location, the on-hand and the requested quantities, and changes nothing."""

    def test_issue_beyond_on_hand(self, db: Engine) -> None:
        before = movement_count(db)
        with pytest.raises(InvalidRequest) as raised:
            call(db, "stock_issue", item_id=4, location_id=3, quantity=16)
        message = str(raised.value)
        assert "item 4 (MCB-B16)" in message and "location 3 (MAIN/A-02)" in message
        assert "has 15 pcs on hand; 16 requested" in message
        assert movement_count(db) == before and level(db, 4, 3)["on_hand"] == "15"

    def test_transfer_beyond_on_hand(self, db: Engine) -> None:
        expected = r"item 1 \(BOLT-M8X40\) at location 6 \(EAST/A-01\) has 300 pcs on hand; 301 requested"
        with pytest.raises(InvalidRequest, match=expected):
            call(db, "stock_transfer", item_id=1, from_location_id=6, to_location_id=2, quantity=301)
        assert level(db, 1, 6)["on_hand"] == "300" and level(db, 1, 2)["on_hand"] == "950"

    def test_issue_from_an_empty_location(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="has 0 pcs on hand; 1 requested"):
            call(db, "stock_issue", item_id=1, location_id=5, quantity=1)

    def test_adjust_below_zero(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="has 15 pcs on hand; 20 requested"):
            call(db, "stock_adjust", item_id=4, location_id=3, quantity=-20, reason="Lost in the flood")
        assert call(db, "stock_adjust", item_id=4, location_id=3, quantity=-15, reason="Lost in the flood")

    def test_the_database_refuses_a_negative_level_too(self, db: Engine) -> None:
        with session_factory(db)() as session, pytest.raises(IntegrityError):
            session.execute(update(Stock).where(Stock.id == 1).values(on_hand=Decimal("-1")))
            session.commit()

    def test_transfer_moves_exactly(self, db: Engine) -> None:
        result = call(db, "stock_transfer", item_id=1, from_location_id=6, to_location_id=5, quantity=0.5)
        out, into = result["movements"]
        assert (out["quantity"], into["quantity"], into["pair_id"]) == ("-0.5", "0.5", out["id"])
        assert (result["from"]["on_hand"], result["to"]["on_hand"]) == ("299.5", "0.5")

    def test_fractions_cancel_exactly(self, db: Engine) -> None:
        call(db, "stock_receive", item_id=9, location_id=1, quantity=0.1)
        call(db, "stock_receive", item_id=9, location_id=1, quantity=0.2)
        call(db, "stock_issue", item_id=9, location_id=1, quantity=0.3)
        with pytest.raises(InvalidRequest, match="has 0 roll on hand; 0.001 requested"):
            call(db, "stock_issue", item_id=9, location_id=1, quantity=0.001)
        assert call(db, "stock_snapshot", as_of="2099-12-31", item_id=9)["total"] == 0
        assert call(db, "stock_audit", item_id=9)["consistent"] is True

    def test_transfer_to_the_same_location(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="two different locations"):
            call(db, "stock_transfer", item_id=1, from_location_id=2, to_location_id=2, quantity=1)


class TestReservations:
    """Available = on hand − reserved: reserved stock leaves only through its reservation."""

    def test_issue_into_reserved_stock_is_refused(self, db: Engine) -> None:
        expected = "has 950 on hand but 200 reserved, so 750 pcs available; 800 requested"
        with pytest.raises(InvalidRequest, match=expected):
            call(db, "stock_issue", item_id=1, location_id=2, quantity=800)
        assert call(db, "stock_issue", item_id=1, location_id=2, quantity=750)["level"]["available"] == "0"

    def test_cannot_reserve_more_than_available(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="10 pcs available; 11 cannot be reserved"):
            call(db, "reservation_create", item_id=4, location_id=3, quantity=11, reference="Job J-90")
        assert call(db, "reservation_create", item_id=4, location_id=3, quantity=10, reference="Job J-90")

    def test_fulfil_issues_and_closes(self, db: Engine) -> None:
        result = call(db, "reservation_fulfill", reservation_id=1)
        assert result["reservation"]["status"] == "fulfilled" and result["movement"]["quantity"] == "-200"
        assert level(db, 1, 2) == {**level(db, 1, 2), "on_hand": "750", "reserved": "0", "available": "750"}
        with pytest.raises(Conflict, match="reservation 1 is already fulfilled"):
            call(db, "reservation_release", reservation_id=1)

    def test_release_frees_stock(self, db: Engine) -> None:
        call(db, "reservation_release", reservation_id=1)
        assert level(db, 1, 2)["available"] == "950"

    def test_adjusting_below_reserved_warns(self, db: Engine) -> None:
        result = call(db, "stock_adjust", item_id=4, location_id=3, quantity=-12, reason="Water damage")
        assert "2 pcs more is reserved than is on hand" in result["warning"]
        assert call(db, "stock_audit")["over_reserved"][0]["reserved"] == "5"


class TestLots:
    """A lot-tracked item moves only by lot; other items take no lot."""

    def test_lot_required(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="item 7 \\(GLOVE-NITRILE-L\\) tracks lots"):
            call(db, "stock_issue", item_id=7, location_id=4, quantity=1)
        assert call(db, "stock_issue", item_id=7, location_id=4, quantity=1, lot="L2603-A")["level"]["on_hand"] == "11"

    def test_lot_refused_for_plain_items(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="does not track lots"):
            call(db, "stock_receive", item_id=1, location_id=2, quantity=1, lot="X1")

    def test_lots_are_separate_levels(self, db: Engine) -> None:
        call(db, "stock_receive", item_id=7, location_id=4, quantity=10, lot="L2611-B", unit_cost=8.10)
        with pytest.raises(InvalidRequest, match="lot L2603-A has 12 box on hand; 13 requested"):
            call(db, "stock_issue", item_id=7, location_id=4, quantity=13, lot="L2603-A")


class TestPurchasing:
    """Draft → ordered → partially/fully received; receipts are receive movements; a line is
    never received beyond its quantity."""

    def test_receiving_a_draft_is_refused(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="purchase order 4 is draft; place it"):
            call(db, "purchase_order_receive", purchase_order_id=4, location_id=3)

    def test_over_receiving_is_refused(self, db: Engine) -> None:
        expected = r"line 5 \(BOX-403020\) ordered 400, received 300, so 100 outstanding; 101"
        with pytest.raises(InvalidRequest, match=expected):
            receive(db, 3, 5, {"line_id": 5, "quantity": 101})
        with pytest.raises(InvalidRequest, match="line 1 is not a line of purchase order 3"):
            receive(db, 3, 5, {"line_id": 1, "quantity": 1})
        assert call(db, "purchase_order_get", purchase_order_id=3)["purchase_order"]["lines"][0]["outstanding"] == "100"

    def test_full_flow(self, db: Engine) -> None:
        call(db, "purchase_order_place", purchase_order_id=4)
        partial = receive(db, 4, 3, {"line_id": 7, "quantity": 30})
        assert partial["purchase_order"]["status"] == "partially_received"
        assert partial["movements"][0]["po_line_id"] == 7 and partial["movements"][0]["kind"] == "receive"
        rest = call(db, "purchase_order_receive", purchase_order_id=4, location_id=3)
        assert rest["purchase_order"]["status"] == "received" and rest["purchase_order"]["closed_at"]
        assert [(m["sku"], m["quantity"]) for m in rest["movements"]] == [("MCB-B16", "20"), ("CABLE-NYM-3X1.5", "500")]
        assert level(db, 4, 3)["on_hand"] == "65"
        with pytest.raises(Conflict, match="nothing is outstanding"):
            call(db, "purchase_order_receive", purchase_order_id=4, location_id=3)

    def test_open_orders_keep_their_lines(self, db: Engine) -> None:
        call(db, "purchase_order_place", purchase_order_id=4)
        with pytest.raises(Conflict, match="already ordered; its lines cannot change"):
            call(db, "purchase_order_update", purchase_order_id=4, lines=[{"item_id": 4, "quantity": 1}])
        with pytest.raises(Conflict, match="only drafts can be deleted"):
            call(db, "purchase_order_delete", purchase_order_id=4)
        assert call(db, "purchase_order_update", purchase_order_id=4, notes="Call before delivery")

    def test_draft_lines_are_replaced(self, db: Engine) -> None:
        order = call(db, "purchase_order_update", purchase_order_id=4, lines=[{"item_id": 3, "quantity": 250}])
        assert [(line["sku"], line["quantity"], line["unit_cost"]) for line in order["purchase_order"]["lines"]] == [
            ("CABLE-NYM-3X1.5", "250", "0.85")
        ]
        with pytest.raises(InvalidRequest, match="appears twice"):
            call(
                db,
                "purchase_order_create",
                supplier_id=1,
                lines=[{"item_id": 1, "quantity": 1}, {"item_id": 1, "quantity": 2}],
            )

    def test_lot_items_need_explicit_lines(self, db: Engine) -> None:
        lines = [{"item_id": 7, "quantity": 10}]
        order = call(db, "purchase_order_create", supplier_id=1, lines=lines)["purchase_order"]
        call(db, "purchase_order_place", purchase_order_id=order["id"])
        with pytest.raises(InvalidRequest, match="GLOVE-NITRILE-L track lots"):
            call(db, "purchase_order_receive", purchase_order_id=order["id"], location_id=4)
        line = order["lines"][0]["id"]
        got = receive(db, order["id"], 4, {"line_id": line, "quantity": 10, "lot": "L2612-C"})
        assert got["movements"][0]["lot"] == "L2612-C"

    def test_cancel_keeps_what_arrived(self, db: Engine) -> None:
        assert call(db, "purchase_order_cancel", purchase_order_id=3)["purchase_order"]["status"] == "cancelled"
        assert level(db, 5, 5)["on_hand"] == "180"
        with pytest.raises(Conflict, match="already received"):
            call(db, "purchase_order_cancel", purchase_order_id=1)


class TestCounts:
    """Count → variance → apply as adjustments; one open count per location."""

    def test_count_flow(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match=r"uncounted lines \(BOLT-M8X40, NUT-M8\)"):
            call(db, "count_apply", count_id=1)
        recorded = record(db, 1, {1: 298, 2: 303})
        assert [line["variance"] for line in recorded["count"]["lines"]] == ["-2", "3"]
        applied = call(db, "count_apply", count_id=1)
        assert [(m["quantity"], m["count_id"]) for m in applied["adjustments"]] == [("-2", 1), ("3", 1)]
        assert (level(db, 1, 6)["on_hand"], level(db, 2, 6)["on_hand"]) == ("298", "303")
        with pytest.raises(Conflict, match="count 1 is applied"):
            call(db, "count_record", count_id=1, lines=[{"item_id": 1, "counted_quantity": 1}])

    def test_second_open_count_is_refused(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="count 1 of location 6 \\(EAST/A-01\\) is still open"):
            call(db, "count_create", location_id=6)

    def test_an_unexpected_find_is_a_variance(self, db: Engine) -> None:
        record(db, 1, {1: 300, 2: 300, 3: 12})
        applied = call(db, "count_apply", count_id=1)
        assert [(m["sku"], m["quantity"]) for m in applied["adjustments"]] == [("CABLE-NYM-3X1.5", "12")]


class TestCorrections:
    """History is append-only: a mistake is undone by a reversal, once."""

    def test_reversing_a_transfer_reverses_both_halves(self, db: Engine) -> None:
        reversals = call(db, "movement_reverse", movement_id=9, reason="Booked to the wrong depot")["reversals"]
        assert [(r["reverses_id"], r["quantity"]) for r in reversals] == [(10, "-300"), (9, "300")]
        assert (level(db, 1, 6)["on_hand"], level(db, 1, 2)["on_hand"]) == ("0", "1250")
        with pytest.raises(Conflict, match="movement 10 was already reversed"):
            call(db, "movement_reverse", movement_id=10, reason="Again")
        with pytest.raises(InvalidRequest, match="is itself a reversal"):
            call(db, "movement_reverse", movement_id=reversals[0]["id"], reason="Undo the undo")

    def test_reversing_a_receipt_reopens_its_order_line(self, db: Engine) -> None:
        call(db, "purchase_order_place", purchase_order_id=4)
        receipt = call(db, "purchase_order_receive", purchase_order_id=4, location_id=3)["movements"][0]
        assert call(db, "purchase_order_get", purchase_order_id=4)["purchase_order"]["status"] == "received"
        call(db, "movement_reverse", movement_id=receipt["id"], reason="Delivery was for another customer")
        order = call(db, "purchase_order_get", purchase_order_id=4)["purchase_order"]
        assert order["status"] == "partially_received" and order["closed_at"] is None
        assert [line["received_quantity"] for line in order["lines"]] == ["0", "500"]
        assert level(db, 4, 3)["on_hand"] == "15"

    def test_a_reversal_cannot_take_more_than_is_left(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="has 180 pcs on hand; 300 requested"):
            call(db, "movement_reverse", movement_id=17, reason="Delivery was for another customer")
        with pytest.raises(InvalidRequest, match="300 on hand but 100 reserved"):
            call(db, "movement_reverse", movement_id=12, reason="Booked to the wrong depot")
        with session_factory(db)() as session:
            line = session.get(PurchaseOrderLine, 5)
            assert line is not None and line.received_quantity == 300


class TestValuation:
    """Stock is valued at moving average cost; reports count open orders and reservations."""

    def test_moving_average(self, db: Engine) -> None:
        call(db, "item_create", sku="PIN-6", name="Dowel pin 6 mm", unit="pcs")
        call(db, "stock_receive", item_id=11, location_id=2, quantity=100, unit_cost=1)
        call(db, "stock_receive", item_id=11, location_id=3, quantity=300, unit_cost=2)
        detail = call(db, "item_get", item_id=11)
        assert detail["item"]["unit_cost"] == "1.75" and detail["totals"]["value"] == "700.00"
        call(db, "stock_issue", item_id=11, location_id=3, quantity=200)
        assert call(db, "item_get", item_id=11)["totals"]["value"] == "350.00"

    def test_seeded_valuation(self, db: Engine) -> None:
        report = call(db, "valuation_report")
        assert report["total_value"] == "1013.80" and report["total"] == 7
        assert call(db, "valuation_report", warehouse_id=2)["total_value"] == "219.00"

    def test_reorder_suggestions_count_open_orders(self, db: Engine) -> None:
        suggested = {s["sku"]: s["suggested_quantity"] for s in call(db, "reorder_report")["suggestions"]}
        assert suggested == {"CABLE-NYM-3X1.5": "500", "GLOVE-NITRILE-L": "30", "MCB-B16": "50"}
        call(db, "purchase_order_place", purchase_order_id=4)
        assert [s["sku"] for s in call(db, "reorder_report")["suggestions"]] == ["GLOVE-NITRILE-L"]

    def test_dead_stock(self, db: Engine) -> None:
        report = call(db, "dead_stock_report", days=90, as_of="2026-11-30")
        assert [i["sku"] for i in report["items"]] == ["HELMET-WHITE", "NUT-M8", "CABLE-NYM-3X1.5", "MCB-B16"]
        assert report["items"][0]["last_outbound_at"] is None
        earlier = call(db, "dead_stock_report", days=90, as_of="2026-07-01")
        assert [i["sku"] for i in earlier["items"]] == ["HELMET-WHITE", "GLOVE-NITRILE-L"]
        assert earlier["items"][1]["on_hand"] == "18"

    def test_snapshot(self, db: Engine) -> None:
        snapshot = call(db, "stock_snapshot", as_of="2026-04-12", item_id=1)
        assert [(lvl["location"], lvl["on_hand"]) for lvl in snapshot["levels"]] == [("MAIN/A-01", "1400")]
        assert call(db, "stock_snapshot", as_of="2026-01-31")["total"] == 0

    def test_export(self, db: Engine) -> None:
        lines = call(db, "movement_history_export", item_id=1)["data"].splitlines()
        assert lines[0].startswith("id,occurred_at,kind,sku") and len(lines) == 6
        assert lines[1].split(",")[2:7] == ["receive", "BOLT-M8X40", "MAIN/A-01", "", "2000"]
        data = call(db, "movement_history_export", format="json", date_from="2026-04-15", date_to="2026-04-15")["data"]
        assert [m["kind"] for m in data] == ["transfer_out", "transfer_in", "transfer_out", "transfer_in"]

    def test_audit_can_fail(self, db: Engine) -> None:
        with session_factory(db)() as session:
            session.execute(update(Stock).where(Stock.item_id == 2, Stock.location_id == 2).values(on_hand=Decimal(1)))
            session.commit()
        audit = call(db, "stock_audit")
        assert not audit["consistent"] and audit["mismatches"][0]["from_movements"] == "1100"


class TestItemRules:
    """SKUs are unique; what gives stock its meaning cannot change under it; items with history
    are archived, not deleted."""

    def test_sku_unique_case_insensitively(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="item 2 already has the sku 'NUT-M8'"):
            call(db, "item_create", sku="nut-m8", name="Nut", unit="pcs")

    def test_unit_and_cost_are_frozen_by_stock(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="its unit cannot change"):
            call(db, "item_update", item_id=1, unit="box")
        with pytest.raises(Conflict, match="cannot be set while stock is on hand"):
            call(db, "item_update", item_id=1, unit_cost=0.5)
        assert call(db, "item_update", item_id=9, unit_cost=2.9)["item"]["unit_cost"] == "2.9"

    def test_delete_and_archive(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="item 1 \\(BOLT-M8X40\\) has .*movements.*item_archive"):
            call(db, "item_delete", item_id=1)
        with pytest.raises(Conflict, match="still has 1250 pcs on hand"):
            call(db, "item_archive", item_id=1)
        with pytest.raises(Conflict, match="item 10 \\(WRAP-17MY\\) is archived"):
            call(db, "stock_receive", item_id=10, location_id=1, quantity=1)
        assert call(db, "item_archive", item_id=10)["changed"] is False

    def test_location_with_history_is_kept(self, db: Engine) -> None:
        with pytest.raises(Conflict, match="location 2 \\(MAIN/A-01\\) has .*movements"):
            call(db, "location_delete", location_id=2)

    def test_bulk_reports_each_line(self, db: Engine) -> None:
        result = call(
            db,
            "stock_bulk_adjust",
            lines=[{"item_id": 4, "location_id": 3, "quantity": -99}, {"item_id": 4, "location_id": 3, "quantity": 1}],
            reason="Shelf check",
        )
        assert [r["ok"] for r in result["results"]] == [False, True]
        assert "15 pcs on hand" in result["results"][0]["error"]
        assert level(db, 4, 3)["on_hand"] == "16"


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("stock_issue", {"item_id": 1, "location_id": 2, "quantity": 0}),
            ("stock_issue", {"item_id": 1, "location_id": 2, "quantity": -5}),
            ("stock_receive", {"item_id": 1, "location_id": 2, "quantity": 1.0001}),
            ("stock_adjust", {"item_id": 1, "location_id": 2, "quantity": 0, "reason": "none"}),
            ("stock_adjust", {"item_id": 1, "location_id": 2, "quantity": 1}),
            ("item_create", {"sku": "has space", "name": "x", "unit": "pcs"}),
            ("item_list", {"limit": 500}),
            ("count_record", {"count_id": 1, "lines": []}),
            ("stock_issue", {"item_id": 1, "location_id": 2, "quantity": 1, "auth_token_x": "x"}),
            ("item_create", {"sku": "PIN-6", "name": "Pin\x00", "unit": "pcs"}),
            ("location_bulk_create", {"warehouse_id": 1, "codes": ["A-09"], "description": "Aisle\x00A"}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.parsed_model.model_validate({**args, "auth_token": "", "conversation_id": "c1"})

    def test_skus_and_codes_are_uppercased(self, db: Engine) -> None:
        assert call(db, "item_create", sku="pin-6", name="Dowel pin", unit="pcs")["item"]["sku"] == "PIN-6"
        assert call(db, "location_create", warehouse_id=2, code="b-02")["location"]["label"] == "EAST/B-02"

    def test_domain_errors_name_the_fix(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "purchase_order_get", purchase_order_id=404)
        assert str(raised.value) == (
            "not found: purchase_order 404 does not exist; list purchase_orders with inventory.purchase_order_list"
        )
        with pytest.raises(NotFound, match="location 99 does not exist"):
            call(db, "stock_list", location_id=99)
