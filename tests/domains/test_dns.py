"""The dns domain: every capability's example succeeds in any order on a freshly
seeded database (SQLite, and PostgreSQL when reachable), each record type is validated, CNAMEs
stand alone, every change bumps the serial and is kept in the history, zone files go out and
come back intact, and the migration builds exactly the schema of tables.py. The only name
resolved for real is `localhost`; resolver failures are simulated."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import dns.zone
import pytest
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.dns import domain, resolver, rules
from domains.dns.tables import Change, Record, Zone
from facade.serving.database import session_factory
from facade.kit import Conflict, DomainError, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, MigrationContract, count, sqlite_engine

dns_domain = DomainHarness(domain)
call, migrated, seeded = dns_domain.call, dns_domain.migrated, dns_domain.seeded


# Helpers and fixtures


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dns_domain.template(tmp_path_factory.mktemp("dns"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, seeded SQLite database of this test's own."""
    with dns_domain.copy(template, tmp_path) as engine:
        yield engine


def serial(engine: Engine, zone_id: int) -> int:
    with session_factory(engine)() as session:
        return int(session.scalar(select(Zone.serial).where(Zone.id == zone_id)) or 0)


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities in both tiers, every one with an
    example and a one-sentence description, and no identity fields."""

    def test_floors_and_tiers(self) -> None:
        assert domain.default_mode == "core"
        assert dns_domain.assert_tiers(at_least=15).count("full") >= 6

    def test_descriptions_are_one_short_sentence(self) -> None:
        dns_domain.assert_descriptions_are_one_sentence(max_length=90)
        dns_domain.assert_no_identity_fields()

    def test_annotations(self) -> None:
        destructive = sorted(c.action for c in domain.capabilities if c.annotations.destructive)
        assert destructive == ["record_delete", "zone_delete"]
        dns_domain.assert_annotations_follow_the_verbs(
            reads=("_get", "_list", "_validate", "_export", "_compare", "_history", "resolve")
        )


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database,
    succeeds and returns JSON-friendly data."""

    def test_sqlite(self, tmp_path: Path) -> None:
        db = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        dns_domain.assert_walk_succeeds(db)
        with session_factory(db)() as session:
            assert [z.name for z in session.scalars(select(Zone).order_by(Zone.id))] == [
                "example.com",
                "localhost",
                "113.0.203.in-addr.arpa",
                # zone 4 (oldbrand.example) was deleted by zone_delete's example
                "shop.example.net",
                "static.example.org",
            ]

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, tmp_path: Path, seed: int) -> None:
        db = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        dns_domain.assert_walk_succeeds(db, shuffle=seed)
        with session_factory(db)() as session:
            names = set(session.scalars(select(Zone.name)))
        assert names == {"example.com", "localhost", "113.0.203.in-addr.arpa", "shop.example.net", "static.example.org"}

    def test_postgresql(self, pg_schema: Callable[[], Engine]) -> None:
        dns_domain.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the three dns tables."""

    harness, tables = dns_domain, ["dns_change", "dns_record", "dns_zone"]


class TestSeed:
    """The seed is deterministic and idempotent."""

    def test_ids_follow_the_seed_lists(self, db: Engine) -> None:
        assert call(db, "zone_get", zone_id=2)["zone"]["name"] == "localhost"
        assert call(db, "record_get", record_id=15)["record"]["fqdn"] == "ftp.example.com"
        assert count(db, Record) == 25 and count(db, Change) == 0

    def test_seeding_twice_adds_nothing(self, db: Engine) -> None:
        seeded(db)
        assert (count(db, Zone), count(db, Record)) == (4, 25)


class TestRecordTypes:
    """Each record type holds only what it may, in one stored form."""

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            ({"type": "A", "value": "203.0.113.300"}, "not an IPv4 address"),
            ({"type": "AAAA", "value": "203.0.113.7"}, "not an IPv6 address"),
            ({"type": "A", "value": "203.0.113.7", "priority": 10}, "priority does not apply to A records"),
            ({"type": "MX", "value": "mail.example.com"}, "a MX record needs priority"),
            ({"type": "MX", "value": "203.0.113.25", "priority": 5}, "points at a host name, not an address"),
            ({"type": "SRV", "value": "sip.example.com", "priority": 1, "weight": 1}, "needs port"),
            ({"type": "NS", "value": "."}, "only meaningful for MX and SRV"),
            ({"type": "CNAME", "value": "bad..name"}, "not a valid domain name"),
            ({"type": "TXT", "value": "two\nlines"}, "control characters"),
        ],
    )
    def test_refused_values(self, db: Engine, args: dict[str, Any], message: str) -> None:
        with pytest.raises(InvalidRequest, match=message):
            call(db, "record_create", zone_id=1, name="new", **args)
        assert count(db, Record) == 25

    def test_srv_names_and_apex_cname(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match=r"_service\._proto"):
            call(
                db,
                "record_create",
                zone_id=1,
                name="sip",
                type="SRV",
                value="sip.example.com",
                priority=1,
                weight=1,
                port=5060,
            )
        with pytest.raises(InvalidRequest, match="cannot sit at the apex"):
            call(db, "record_create", zone_id=3, name="@", type="CNAME", value="example.com")
        with pytest.raises(InvalidRequest, match="own name"):
            call(db, "record_create", zone_id=1, name="loop", type="CNAME", value="loop.example.com")

    def test_ttl_bounds(self, db: Engine) -> None:
        for ttl in (59, 604_801):
            with pytest.raises(ValidationError):
                call(db, "record_create", zone_id=1, name="t", type="A", value="203.0.113.9", ttl=ttl)
        assert (
            call(db, "record_create", zone_id=1, name="t", type="A", value="203.0.113.9", ttl=60)["record"]["ttl"] == 60
        )

    def test_stored_forms(self, db: Engine) -> None:
        v6 = call(db, "record_create", zone_id=1, name="API.Example.COM.", type="AAAA", value="2001:DB8:0:0::60")[
            "record"
        ]
        assert (v6["name"], v6["value"], v6["effective_ttl"]) == ("api", "2001:db8::60", 3600)
        mx = call(db, "record_create", zone_id=1, name="@", type="MX", value="MX.Example.NET.", priority=30)["record"]
        assert mx["value"] == "mx.example.net"
        wild = call(db, "record_create", zone_id=1, name="*.dev", type="A", value="203.0.113.90")["record"]
        assert wild["fqdn"] == "*.dev.example.com"
        with pytest.raises(InvalidRequest, match=r"not inside the zone example\.com"):
            call(db, "record_create", zone_id=1, name="www.example.org.", type="A", value="203.0.113.9")


class TestCnameExclusivity:
    """A CNAME is the only record at its name, and no record is stored twice."""

    def test_cname_beside_other_records(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"mail.example.com already has records \(A 8\)"):
            call(db, "record_create", zone_id=1, name="mail", type="CNAME", value="example.com")
        with pytest.raises(Conflict, match=r"www.example.com is a CNAME \(record 5\)"):
            call(db, "record_create", zone_id=1, name="www", type="TXT", value="hello")
        with pytest.raises(Conflict, match="is a CNAME"):
            call(db, "record_update", record_id=8, name="www")

    def test_duplicates(self, db: Engine) -> None:
        with pytest.raises(Conflict, match=r"the same A record already exists at example.com \(record 3\)"):
            call(db, "record_create", zone_id=1, name="@", type="A", value="203.0.113.10")
        # Same host, another preference: a different record.
        call(db, "record_create", zone_id=1, name="@", type="MX", value="mail.example.com", priority=50)


class TestSerialAndHistory:
    """Every change bumps the zone's serial and is kept in the history, with who made it."""

    def test_every_change_bumps(self, db: Engine) -> None:
        seen = [serial(db, 1)]
        created = call(db, "record_create", zone_id=1, name="new", type="A", value="203.0.113.70")["record"]
        seen.append(serial(db, 1))
        call(db, "record_update", record_id=created["id"], value="203.0.113.71")
        seen.append(serial(db, 1))
        call(db, "record_delete", record_id=created["id"])
        seen.append(serial(db, 1))
        call(db, "zone_update", zone_id=1, ttl=1800)
        seen.append(serial(db, 1))
        assert seen == sorted(set(seen)) and len(seen) == 5
        assert seen[1] == rules.today_serial()  # YYYYMMDD00: the first change of the day
        history = call(db, "record_history", zone_id=1)
        assert [c["action"] for c in history["changes"]] == ["zone_update", "delete", "update", "create"]
        assert [c["serial"] for c in history["changes"]] == seen[:0:-1]
        assert {c["agent"] for c in history["changes"]} == {"test"}
        update = call(db, "record_history", zone_id=1, record_id=created["id"], limit=1, offset=1)
        assert update["total"] == 3 and update["changes"][0]["before"]["value"] == "203.0.113.70"

    def test_no_change_no_bump(self, db: Engine) -> None:
        before = serial(db, 1)
        assert call(db, "record_update", record_id=3, value="203.0.113.10")["serial"] == before
        assert call(db, "zone_update", zone_id=1, ttl=3600)["changed"] is False
        assert serial(db, 1) == before and count(db, Change) == 0

    def test_serial_wraps_past_32_bits(self) -> None:
        zone = Zone(name="wrap.example", serial=2**32 - 1)
        assert rules.bump(zone) == 1

    def test_type_change_clears_what_the_new_type_does_not_take(self, db: Engine) -> None:
        changed = call(db, "record_update", record_id=10, type="A", value="203.0.113.26", name="mail2")["record"]
        assert (changed["type"], changed["priority"], changed["fqdn"]) == ("A", None, "mail2.example.com")
        with pytest.raises(InvalidRequest, match="priority does not apply to A records"):
            call(db, "record_update", record_id=10, priority=5)
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(db, "record_update", record_id=10)
        with pytest.raises(InvalidRequest, match="type cannot be null"):
            call(db, "record_update", record_id=10, type=None)

    def test_zone_delete_takes_records_and_history(self, db: Engine) -> None:
        call(db, "record_create", zone_id=2, name="db", type="A", value="127.0.0.2")
        assert call(db, "zone_delete", zone_id=2)["deleted_records"] == 4
        assert count(db, Record, Record.zone_id == 2) == 0 and count(db, Change, Change.zone_id == 2) == 0
        with pytest.raises(NotFound, match=r"zone 2 does not exist; list zones with dns\.zone_list"):
            call(db, "record_history", zone_id=2)


class TestZones:
    """Zones have unique names, NS records from the start, and filters by kind."""

    def test_create(self, db: Engine) -> None:
        made = call(
            db, "zone_create", name="Shop.Example.NET.", primary_ns="ns1.example.com", admin_email="Ops@Example.net"
        )
        assert made["zone"]["name"] == "shop.example.net" and made["zone"]["admin_email"] == "ops@example.net"
        assert [(r["type"], r["value"]) for r in made["records"]] == [("NS", "ns1.example.com")]
        assert made["zone"]["serial"] == rules.today_serial() + 1
        with pytest.raises(Conflict, match=r"zone 5 is already named shop\.example\.net"):
            call(db, "zone_create", name="shop.example.net", primary_ns="ns1.example.com", admin_email="a@b.net")

    def test_list_filters(self, db: Engine) -> None:
        assert [z["id"] for z in call(db, "zone_list", kind="reverse")["zones"]] == [3]
        assert [z["id"] for z in call(db, "zone_list", kind="forward")["zones"]] == [1, 2, 4]
        assert call(db, "zone_list", name_contains="EXAMPLE")["total"] == 2  # example.com, oldbrand.example
        assert [r["id"] for r in call(db, "record_list", zone_id=1, name="@", type="NS")["records"]] == [1, 2]
        with pytest.raises(NotFound, match="zone 9 does not exist"):
            call(db, "record_list", zone_id=9)


class TestZoneFiles:
    """Export writes a zone file dnspython reads back to the same records; import refuses
    malformed files naming the line, and never half-applies."""

    def test_export_parses_back(self, db: Engine) -> None:
        exported = call(db, "zone_export", zone_id=1)["text"]
        parsed = dns.zone.from_text(exported, relativize=False)
        assert parsed.origin is not None and parsed.origin.to_text() == "example.com."
        assert sum(len(rdataset) for _, node in parsed.nodes.items() for rdataset in node.rdatasets) == 15 + 1  # + SOA
        assert parsed.find_rdataset("sip.example.com.", "A").ttl == 300

    def test_round_trip_under_another_name(self, db: Engine) -> None:
        exported = call(db, "zone_export", zone_id=1)["text"]
        copy = call(db, "zone_import", text=exported.replace("$ORIGIN example.com.\n", ""), name="example.net")
        assert copy["created"] and copy["records_imported"] == 15
        # Relative names follow the new origin; absolute targets keep pointing at example.com.
        assert call(db, "record_list", zone_id=5, name="www")["records"][0]["value"] == "example.com"

    def test_long_and_quoted_txt(self, db: Engine) -> None:
        key = "v=DKIM1; k=rsa; p=" + "A" * 400 + ' "quoted" \\ end'
        call(db, "record_create", zone_id=2, name="mail._domainkey", type="TXT", value=key)
        exported = call(db, "zone_export", zone_id=2)["text"]
        assert '" "' in exported  # split into character-strings of at most 255 bytes
        again = call(db, "zone_import", text=exported, replace=True)
        assert again["records_replaced"] == 4 and again["records_imported"] == 4
        assert call(db, "record_list", zone_id=2, type="TXT")["records"][0]["value"] == key

    @pytest.mark.parametrize(
        ("extra", "message"),
        [
            ("foo IN AX 203.0.113.4\n", "line 6 is malformed: unknown rdatatype 'AX'"),
            ("foo IN A 203.0.113\n", "line 6 is malformed"),
            ("www IN CNAME ns1\nwww IN A 203.0.113.4\n", "line 7 gives www a CNAME and other records"),
            ('foo IN CAA 0 issue "ca.example"\n', "has a CAA record, which this domain does not manage"),
            ("foo 30 IN A 203.0.113.4\n", "TTL 30, outside 60-604800"),
            ("_x IN SRV 1 2 3 t.example.\n", "the record _x SRV is refused: an SRV record's name is _service._proto"),
        ],
    )
    def test_refused_files(self, db: Engine, extra: str, message: str) -> None:
        base = (
            "$ORIGIN t.example.\n$TTL 3600\n@ IN SOA ns1 admin 1 7200 3600 1209600 300\n"
            "@ IN NS ns1\nns1 IN A 203.0.113.5\n"
        )
        with pytest.raises(InvalidRequest, match=message):
            call(db, "zone_import", text=base + extra)
        assert count(db, Zone) == 4

    def test_missing_soa_and_origin(self, db: Engine) -> None:
        with pytest.raises(InvalidRequest, match="no SOA record"):
            call(db, "zone_import", text="$ORIGIN t.example.\n@ 3600 IN NS ns1\n")
        with pytest.raises(InvalidRequest, match="no \\$ORIGIN; give the zone's name"):
            call(db, "zone_import", text="@ 3600 IN SOA ns1 admin 1 7200 3600 1209600 300\n@ 3600 IN NS ns1\n")

    def test_existing_zone_needs_replace(self, db: Engine) -> None:
        exported = call(db, "zone_export", zone_id=3)["text"]
        with pytest.raises(Conflict, match="pass replace=true"):
            call(db, "zone_import", text=exported)
        before = serial(db, 3)
        shrunk = exported.replace("2\tIN\tPTR\tns1.example.com.\n", "")
        replaced = call(db, "zone_import", text=shrunk, replace=True)
        assert (replaced["records_replaced"], replaced["records_imported"]) == (4, 3)
        assert replaced["zone"]["serial"] > before
        assert call(db, "record_history", zone_id=3)["changes"][0]["action"] == "import"

    def test_refused_replace_leaves_the_zone_alone(self, db: Engine) -> None:
        exported = call(db, "zone_export", zone_id=1)["text"]
        with pytest.raises(InvalidRequest):
            call(db, "zone_import", text=exported + "bad 10 IN A 203.0.113.1\n", replace=True)
        assert count(db, Record, Record.zone_id == 1) == 15 and serial(db, 1) == 2026090101


class TestValidate:
    """Validation finds dangling in-zone targets, aliases behind MX/NS, TTL splits and missing NS."""

    def test_seeded_zone_has_one_dangling_mx(self, db: Engine) -> None:
        report = call(db, "zone_validate", zone_id=1)
        assert (report["valid"], report["errors"], report["warnings"]) == (False, 1, 0)
        assert report["findings"][0]["record_ids"] == [10] and "mail2.example.com" in report["findings"][0]["problem"]
        call(db, "record_create", zone_id=1, name="mail2", type="A", value="203.0.113.26")
        assert call(db, "zone_validate", zone_id=1)["valid"] is True

    def test_alias_targets_ttl_splits_and_missing_ns(self, db: Engine) -> None:
        call(db, "record_update", record_id=10, value="www.example.com")  # MX -> a CNAME
        call(db, "record_create", zone_id=1, name="ns1", type="A", value="203.0.113.4", ttl=120)
        problems = [f["problem"] for f in call(db, "zone_validate", zone_id=1)["findings"]]
        assert "MX record 10 points at www.example.com, which is an alias (CNAME)" in problems
        assert "the A records of ns1.example.com have different TTLs" in problems
        call(db, "record_delete", record_id=16)
        assert (
            call(db, "zone_validate", zone_id=2)["findings"][0]["problem"] == "localhost has no NS record at its apex"
        )


class TestReverse:
    """PTR records are generated into the managed reverse zone, once, without overwriting."""

    def test_generate(self, db: Engine) -> None:
        before = serial(db, 3)
        dry = call(db, "reverse_generate", zone_id=1, dry_run=True)
        assert [c["record_id"] for c in dry["created"]] == [7, 8, 14] and count(db, Record, Record.zone_id == 3) == 4
        result = call(db, "reverse_generate", zone_id=1)
        assert [(c["ptr"], c["host"]) for c in result["created"]] == [
            ("3.113.0.203.in-addr.arpa", "ns2.example.com"),
            ("25.113.0.203.in-addr.arpa", "mail.example.com"),
            ("40.113.0.203.in-addr.arpa", "sip.example.com"),
        ]
        assert [c["record_id"] for c in result["already_present"]] == [3, 6]
        assert [c["address"] for c in result["no_reverse_zone"]] == ["2001:db8::10"]
        assert serial(db, 3) == max(before + 1, rules.today_serial())  # one bump for the batch
        assert call(db, "reverse_generate", zone_id=1)["created"] == []

    def test_conflicting_ptr_is_reported_not_overwritten(self, db: Engine) -> None:
        call(db, "record_create", zone_id=3, name="25", type="PTR", value="smtp.example.com")
        result = call(db, "reverse_generate", zone_id=1)
        assert result["conflicts"][0]["existing"][0]["value"] == "smtp.example.com"
        assert count(db, Record, Record.zone_id == 3, Record.name == "25") == 1


class TestResolver:
    """Lookups go through the system resolver; a failure is data. Only localhost is resolved."""

    def test_localhost(self, db: Engine) -> None:
        expected = sorted({info[4][0] for info in socket.getaddrinfo("localhost", None, 0, socket.SOCK_STREAM)})
        answer = call(db, "resolve", name="localhost")
        assert answer["resolved"] is True and sorted(answer["addresses"]) == expected

    def test_reverse_lookup_of_loopback(self, db: Engine) -> None:
        answer = call(db, "resolve", name="127.0.0.1")
        assert answer["resolved"] is True and answer["hostname"] == socket.gethostbyaddr("127.0.0.1")[0]

    def test_failure_is_data(self, db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
        def fail(*args: Any, **kwargs: Any) -> Any:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

        monkeypatch.setattr(resolver.socket, "getaddrinfo", fail)
        answer = call(db, "resolve", name="nowhere.invalid")
        assert answer == {**answer, "resolved": False, "error": "Name or service not known"}
        compared = call(db, "zone_compare", zone_id=2)
        assert compared["unresolved"] == 1 and compared["names"][0]["status"] == "unresolved"

    def test_compare_localhost_zone(self, db: Engine) -> None:
        answered = {info[4][0] for info in socket.getaddrinfo("localhost", None, 0, socket.SOCK_STREAM)}
        result = call(db, "zone_compare", zone_id=2)["names"][0]
        assert result["name"] == "localhost" and result["answered"] == sorted(answered)
        assert result["missing"] == sorted({"127.0.0.1", "::1"} - answered)
        assert result["status"] == ("match" if answered == {"127.0.0.1", "::1"} else "mismatch")

    def test_bad_names_are_refused(self) -> None:
        cap = next(c for c in domain.capabilities if c.action == "resolve")
        with pytest.raises(ValidationError):
            cap.input_model.model_validate({"name": "local host"})


class TestErrors:
    """Domain errors name the problem and the tool that fixes it."""

    def test_message(self, db: Engine) -> None:
        with pytest.raises(DomainError) as raised:
            call(db, "record_delete", record_id=404)
        assert str(raised.value) == "not found: record 404 does not exist; list records with dns.record_list"
