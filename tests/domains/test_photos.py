"""The photos domain: every capability's example succeeds in any order on a freshly
seeded database and library (SQLite, and PostgreSQL when reachable), the sandbox holds, image
work is real (EXIF, thumbnails, edits), and the migration builds exactly the schema of tables.py."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import ExifTags, Image
from pydantic import ValidationError
from sqlalchemy import Engine, select

from domains.photos import domain
from domains.photos.seed import PHOTOS
from domains.photos.tables import AlbumPhoto, Photo
from facade.serving.database import session_factory
from facade.kit.domain import tier_for
from facade.kit import Conflict, DomainError, Forbidden, InvalidRequest, NotFound
from tests.domains.harness import SHUFFLES, DomainHarness, Library, MigrationContract, count, sqlite_engine

photos = DomainHarness(domain, root_env="FACADE_PHOTOS_ROOT")
call, migrated, seeded = photos.call, photos.migrated, photos.seeded


# Helpers and fixtures


def exif_of(path: Path) -> Image.Exif:
    with Image.open(path) as image:
        return image.getexif()


def pixels_of(path: Path) -> bytes:
    with Image.open(path) as image:
        return image.tobytes()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return photos.template(tmp_path_factory.mktemp("photos-template"))


@pytest.fixture
def lib(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Library]:
    root = photos.sandbox(tmp_path, monkeypatch)
    with photos.copy(template, tmp_path) as engine:
        yield Library(engine, root)


# Tests


class TestCatalogue:
    """The domain declares a real catalogue: enough capabilities, both tiers by the shared
    criterion, every one with an example and a one-sentence description."""

    def test_floors_and_tiers(self) -> None:
        photos.assert_tiers(at_least=28)
        assert domain.default_mode == "full"

    def test_tiers_come_from_the_criterion(self) -> None:
        assert [c.name for c in domain.capabilities if c.tier != tier_for(c.action)] == []

    def test_descriptions_are_one_short_sentence(self) -> None:
        photos.assert_descriptions_are_one_sentence(max_length=90)

    def test_no_model_declares_identity_fields(self) -> None:
        photos.assert_no_identity_fields()

    def test_annotations(self) -> None:
        destructive = {c.action for c in domain.capabilities if c.annotations.destructive}
        assert destructive == {"photo_delete", "exif_strip", "album_delete", "thumbnail_purge"}
        reads = {c.action for c in domain.capabilities if c.annotations.read_only}
        assert {"photo_list", "photo_get", "photo_search", "exif_read", "exif_dump", "library_stats"} <= reads
        assert not reads & {"photo_rotate", "exif_update", "album_export", "library_rescan"}


class TestExampleWalk:
    """Every capability, run with its example in registration order (and shuffled) on a fresh seeded database
    and library, succeeds and returns JSON-friendly data."""

    def test_sqlite(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        photos.sandbox(tmp_path, monkeypatch)
        engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        photos.assert_walk_succeeds(engine)
        assert (tmp_path / "root/exports/lisbon-may-2026.zip").is_file()
        assert count(engine, Photo) == 13  # 8 seeded - 1 deleted + 1 added + 4 edits + 1 rescanned

    @pytest.mark.parametrize("seed", SHUFFLES)
    def test_any_order(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
        photos.sandbox(tmp_path, monkeypatch)
        engine = seeded(migrated(sqlite_engine(tmp_path / "facade.db")))
        photos.assert_walk_succeeds(engine, shuffle=seed)
        assert (tmp_path / "root/exports/lisbon-may-2026.zip").is_file()
        assert count(engine, Photo) == 13

    def test_postgresql(
        self, pg_schema: Callable[[], Engine], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        photos.sandbox(tmp_path, monkeypatch)
        photos.assert_walk_succeeds(seeded(migrated(pg_schema())))


class TestMigration(MigrationContract):
    """The migration against tables.py, for the five photos tables."""

    harness, tables = photos, 5


class TestSeed:
    """The seed draws real images with EXIF and imports them, deterministically and once."""

    def test_ids_follow_the_seed_list(self, lib: Library) -> None:
        with session_factory(lib.engine)() as session:
            paths = list(session.scalars(select(Photo.path).order_by(Photo.id)))
        assert paths == [p.path for p in PHOTOS if p.registered]
        albums = call(lib.engine, "album_list")["albums"]
        assert [(a["id"], a["photo_ids"]) for a in albums] == [(1, [1, 2]), (2, [4, 5]), (3, [6]), (4, [7])]

    def test_images_carry_exif(self, lib: Library) -> None:
        first = exif_of(lib.root / "2026/lisbon/IMG_2041.jpg")
        assert first[ExifTags.Base.Make] == "Canon"
        assert first.get_ifd(ExifTags.IFD.Exif)[ExifTags.Base.DateTimeOriginal] == "2026:05:14 19:42:10"
        assert first.get_ifd(ExifTags.IFD.GPSInfo)[ExifTags.GPS.GPSLatitudeRef] == "N"
        photo = call(lib.engine, "photo_get", photo_id=1)["photo"]
        assert photo["taken_at"] == "2026-05-14T18:42:10+00:00"  # +01:00 in Lisbon
        assert (photo["latitude"], photo["longitude"]) == (38.708912, -9.147203)
        assert (lib.root / "2026/lisbon/IMG_2042-copy.jpg").read_bytes() == (lib.root / "2026/lisbon/IMG_2042.jpg").read_bytes()

    def test_sideways_photo_is_recorded_upright(self, lib: Library) -> None:
        with Image.open(lib.root / "2026/family/PXL_20260720_101500.jpg") as image:
            assert image.size == (640, 480)
        photo = call(lib.engine, "photo_get", photo_id=6)["photo"]
        assert (photo["width"], photo["height"]) == (480, 640)

    def test_seeding_twice_changes_nothing(self, lib: Library) -> None:
        before = [count(lib.engine, Photo), count(lib.engine, AlbumPhoto)]
        seeded(lib.engine)
        assert [count(lib.engine, Photo), count(lib.engine, AlbumPhoto)] == before

    def test_a_users_image_is_kept(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        photos.sandbox(tmp_path, monkeypatch)
        mine = tmp_path / "root/2026/garden/DSC00311.jpg"
        mine.parent.mkdir(parents=True)
        Image.new("RGB", (20, 10), "purple").save(mine)
        engine = seeded(migrated(sqlite_engine(tmp_path / "f.db")))
        assert Image.open(mine).size == (20, 10)
        assert call(engine, "photo_get", photo_id=4)["photo"]["width"] == 20


class TestSandbox:
    """No path reaches outside the library folder, for imports, edits and exports alike."""

    @pytest.mark.parametrize("path", ["../x.jpg", "inbox/../../x.jpg", "inbox/\x00.jpg", "/etc/hostname"])
    def test_refused_paths(self, lib: Library, path: str) -> None:
        with pytest.raises(Forbidden):
            call(lib.engine, "photo_add", path=path)
        with pytest.raises(Forbidden):
            call(lib.engine, "photo_rotate", photo_id=1, degrees=90, dest=path)

    def test_symlink_escape(self, lib: Library) -> None:
        outside = lib.root.parent / "outside"
        outside.mkdir()
        Image.new("RGB", (8, 8), "red").save(outside / "secret.jpg")
        (lib.root / "link").symlink_to(outside)
        with pytest.raises(Forbidden, match="symbolic link"):
            call(lib.engine, "photo_add", path="link/secret.jpg")
        with pytest.raises(Forbidden):
            call(lib.engine, "album_export", album_id=1, dest="link/album.zip")
        assert call(lib.engine, "library_rescan")["imported"] == [
            {"id": 9, "path": "imports/IMG_3003.jpg"},
            {"id": 10, "path": "inbox/IMG_3001.jpg"},
            {"id": 11, "path": "inbox/IMG_3002.jpg"},
        ]
        assert sorted(p.name for p in outside.iterdir()) == ["secret.jpg"]


class TestImport:
    """Importing reads the file's dimensions and EXIF, and refuses what is not a usable image."""

    def test_reads_exif(self, lib: Library) -> None:
        photo = call(lib.engine, "photo_add", path="inbox/IMG_3001.jpg")["photo"]
        assert photo["id"] == 9 and photo["taken_at"] == "2026-10-04T17:55:00+00:00"
        assert (photo["camera_model"], photo["latitude"], photo["longitude"]) == ("Canon EOS R6", 41.1406, -8.611)
        with pytest.raises(Conflict, match="is already photo 9"):
            call(lib.engine, "photo_add", path="inbox/IMG_3001.jpg")

    def test_refuses_non_images(self, lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
        (lib.root / "inbox/notes.txt").write_text("hello")
        with pytest.raises(InvalidRequest, match="not an image file name"):
            call(lib.engine, "photo_add", path="inbox/notes.txt")
        (lib.root / "inbox/broken.jpg").write_bytes(b"\xff\xd8garbage")
        with pytest.raises(InvalidRequest, match="not an image this library can read"):
            call(lib.engine, "photo_add", path="inbox/broken.jpg")
        monkeypatch.setenv("FACADE_PHOTOS_MAX_PIXELS", "1000")
        with pytest.raises(InvalidRequest, match="over the 1,000-pixel limit"):
            call(lib.engine, "photo_add", path="inbox/IMG_3002.jpg")
        assert count(lib.engine, Photo) == 8


class TestExif:
    """EXIF changes land in the file without touching the pixels, and the row follows."""

    def test_update_writes_the_file_losslessly(self, lib: Library) -> None:
        path = lib.root / "2026/garden/DSC00311.jpg"
        before = pixels_of(path)
        photo = call(lib.engine, "exif_update", photo_id=4, latitude=-33.8568, longitude=151.2153,
                      taken_at="2026-06-02T19:15:00+10:00", description="Harbour view")["photo"]
        assert pixels_of(path) == before
        gps = exif_of(path).get_ifd(ExifTags.IFD.GPSInfo)
        assert (gps[ExifTags.GPS.GPSLatitudeRef], gps[ExifTags.GPS.GPSLongitudeRef]) == ("S", "E")
        assert (photo["latitude"], photo["longitude"]) == (-33.8568, 151.2153)
        assert photo["taken_at"] == "2026-06-02T09:15:00+00:00"
        assert call(lib.engine, "exif_read", photo_id=4)["exif"]["description"] == "Harbour view"

    def test_update_refusals(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match="latitude and longitude together"):
            call(lib.engine, "exif_update", photo_id=4, latitude=10.0)
        with pytest.raises(InvalidRequest, match="nothing to change"):
            call(lib.engine, "exif_update", photo_id=4)
        gif = lib.root / "inbox/anim.gif"
        Image.new("P", (10, 10)).save(gif)
        gif_id = call(lib.engine, "photo_add", path="inbox/anim.gif")["photo"]["id"]
        with pytest.raises(InvalidRequest, match="convert it first with photos.photo_convert"):
            call(lib.engine, "exif_update", photo_id=gif_id, artist="Me")

    def test_png_exif(self, lib: Library) -> None:
        call(lib.engine, "exif_update", photo_id=7, artist="Dana Whitfield", camera_make="Screenshot")
        assert exif_of(lib.root / "screenshots/dashboard-2026-09.png")[ExifTags.Base.Artist] == "Dana Whitfield"
        assert call(lib.engine, "photo_get", photo_id=7)["photo"]["camera_make"] == "Screenshot"

    def test_strip(self, lib: Library) -> None:
        gone = call(lib.engine, "exif_strip", photo_id=1, fields=["gps", "camera"])
        assert gone["photo"]["latitude"] is None and gone["photo"]["camera_make"] is None
        assert gone["photo"]["taken_at"] is not None and "Make" in gone["removed"]
        everything = call(lib.engine, "exif_strip", photo_id=6)
        left = exif_of(lib.root / "2026/family/PXL_20260720_101500.jpg")
        assert dict(left) == {ExifTags.Base.Orientation: 6} and "Model" in everything["removed"]
        assert (everything["photo"]["width"], everything["photo"]["taken_at"]) == (480, None)

    def test_dump_is_raw_and_json(self, lib: Library) -> None:
        dump = call(lib.engine, "exif_dump", photo_id=6)
        assert dump["exif"]["IFD0"]["Orientation"] == 6 and dump["exif"]["GPSInfo"]["GPSLatitudeRef"] == "N"
        json.dumps(dump)


class TestThumbnails:
    """Thumbnails are real JPEG files, made once, upright, and purged when orphaned."""

    def test_cached_and_upright(self, lib: Library) -> None:
        shown = call(lib.engine, "thumbnail_get", photo_id=6, size=128, include_data=True)
        again = call(lib.engine, "thumbnail_get", photo_id=6, size=128)
        first, (image,) = shown.data, shown.blocks  # the JPEG comes as an image block beside the data
        assert (first["cached"], again["cached"], first["path"]) == (False, True, again["path"])
        assert (first["width"], first["height"]) == (96, 128)
        assert image.mime_type == "image/jpeg" and Image.open(io.BytesIO(image.data)).format == "JPEG"
        assert (lib.root / first["path"]).is_file()

    def test_purge_orphans_only(self, lib: Library) -> None:
        call(lib.engine, "thumbnail_get", photo_id=4)
        call(lib.engine, "thumbnail_get", photo_id=5)
        call(lib.engine, "exif_update", photo_id=4, artist="Priya")  # a new hash orphans its thumbnail
        purged = call(lib.engine, "thumbnail_purge")
        assert (purged["deleted"], purged["kept"]) == (1, 1) and purged["freed_bytes"] > 0
        assert call(lib.engine, "thumbnail_purge", scope="all")["deleted"] == 1


class TestEdits:
    """Edits write new files, never the original unless asked, and import the result."""

    def test_rotate_makes_a_new_photo(self, lib: Library) -> None:
        original = (lib.root / "2026/lisbon/IMG_2041.jpg").read_bytes()
        made = call(lib.engine, "photo_rotate", photo_id=1, degrees=270)["photo"]
        assert (made["id"], made["path"], made["width"], made["height"]) == (9, "2026/lisbon/IMG_2041-rotated-270.jpg", 480, 640)
        assert (made["caption"], made["tags"], made["rating"]) == ("Sunset over the Tagus", ["lisbon", "sunset"], 4)
        assert made["taken_at"] == "2026-05-14T18:42:10+00:00"  # EXIF carried over
        assert (lib.root / "2026/lisbon/IMG_2041.jpg").read_bytes() == original
        assert call(lib.engine, "photo_rotate", photo_id=1, degrees=270)["photo"]["path"].endswith("-rotated-270-2.jpg")

    def test_dest_rules(self, lib: Library) -> None:
        with pytest.raises(Conflict, match="already exists"):
            call(lib.engine, "photo_crop", photo_id=1, left=0, top=0, width=10, height=10, dest="2026/lisbon/IMG_2042.jpg")
        with pytest.raises(InvalidRequest, match=r"must end in \.jpg"):
            call(lib.engine, "photo_crop", photo_id=1, left=0, top=0, width=10, height=10, dest="crops/a.png")
        made = call(lib.engine, "photo_crop", photo_id=1, left=0, top=0, width=10, height=20, dest="crops/a.jpeg")
        assert (made["photo"]["path"], made["size"]) == ("crops/a.jpeg", [10, 20])

    def test_replace_original(self, lib: Library) -> None:
        result = call(lib.engine, "photo_resize", photo_id=6, height=320, replace_original=True)
        assert result["photo"]["id"] == 6 and (result["photo"]["width"], result["photo"]["height"]) == (240, 320)
        assert result["cleared_boxes"] == ["Maria"] and result["photo"]["people"][0]["box"] is None
        with Image.open(lib.root / "2026/family/PXL_20260720_101500.jpg") as image:
            assert image.size == (240, 320) and ExifTags.Base.Orientation not in image.getexif()
        assert count(lib.engine, Photo) == 8

    def test_refusals(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match="which is 640x480 pixels"):
            call(lib.engine, "photo_crop", photo_id=1, left=600, top=0, width=100, height=10)
        with pytest.raises(InvalidRequest, match="give width, height or both"):
            call(lib.engine, "photo_resize", photo_id=1)
        with pytest.raises(InvalidRequest, match="20000x15000 is over the 100,000,000-pixel limit"):
            call(lib.engine, "photo_resize", photo_id=1, width=20_000)
        with pytest.raises(InvalidRequest, match="already JPEG"):
            call(lib.engine, "photo_convert", photo_id=1, format="jpeg")
        assert count(lib.engine, Photo) == 8

    def test_convert_flattens_transparency(self, lib: Library) -> None:
        Image.new("RGBA", (30, 20), (255, 0, 0, 0)).save(lib.root / "inbox/clear.png")
        png = call(lib.engine, "photo_add", path="inbox/clear.png")["photo"]["id"]
        made = call(lib.engine, "photo_convert", photo_id=png, format="jpeg")["photo"]
        with Image.open(lib.root / made["path"]) as image:
            assert (image.format, image.getpixel((5, 5))) == ("JPEG", (255, 255, 255))
        webp = call(lib.engine, "photo_convert", photo_id=1, format="webp", quality=60)["photo"]
        assert (webp["format"], webp["path"]) == ("webp", "2026/lisbon/IMG_2041.webp")


class TestAlbums:
    """Albums have unique names, keep their order, and never take photos with them."""

    def test_names_are_unique_ignoring_case(self, lib: Library) -> None:
        with pytest.raises(Conflict, match="album 2 is already named"):
            call(lib.engine, "album_create", name="GARDEN")
        with pytest.raises(Conflict, match="album 1 is already named"):
            call(lib.engine, "album_update", album_id=3, name="lisbon, may 2026")

    def test_order_and_idempotence(self, lib: Library) -> None:
        assert call(lib.engine, "album_photo_add", album_id=1, photo_ids=[6, 1, 3])["added"] == [6, 3]
        assert call(lib.engine, "album_get", album_id=1)["album"]["photo_ids"] == [1, 2, 6, 3]
        with pytest.raises(NotFound, match=r"photos \[5\] are not in album 1"):
            call(lib.engine, "album_photo_remove", album_id=1, photo_ids=[2, 5])
        with pytest.raises(NotFound, match="photo 99 does not exist"):
            call(lib.engine, "album_photo_add", album_id=1, photo_ids=[99])

    def test_delete_keeps_photos(self, lib: Library) -> None:
        assert call(lib.engine, "album_delete", album_id=1)["released_photo_ids"] == [1, 2]
        assert count(lib.engine, Photo) == 8 and call(lib.engine, "photo_get", photo_id=1)["photo"]["album_ids"] == []

    def test_bulk_move(self, lib: Library) -> None:
        call(lib.engine, "album_photo_add", album_id=2, photo_ids=[1])
        result = call(lib.engine, "album_bulk_move", album_id=3, photo_ids=[1, 99])
        assert result["results"][0] == {"photo_id": 1, "left_album_ids": [1, 2]} and result["failed"] == 1
        assert call(lib.engine, "photo_get", photo_id=1)["photo"]["album_ids"] == [3]
        with pytest.raises(InvalidRequest, match="the target album itself"):
            call(lib.engine, "album_bulk_move", album_id=3, photo_ids=[1], from_album_id=3)

    def test_export_zip(self, lib: Library) -> None:
        result = call(lib.engine, "album_export", album_id=1)
        with zipfile.ZipFile(lib.root / result["path"]) as archive:
            assert archive.namelist() == ["001-IMG_2041.jpg", "002-IMG_2042.jpg", "album.json"]
            assert json.loads(archive.read("album.json"))[0]["caption"] == "Sunset over the Tagus"
            assert archive.read("001-IMG_2041.jpg") == (lib.root / "2026/lisbon/IMG_2041.jpg").read_bytes()
        with pytest.raises(Conflict, match="pass overwrite=true"):
            call(lib.engine, "album_export", album_id=1)
        (lib.root / "2026/lisbon/IMG_2042.jpg").unlink()
        again = call(lib.engine, "album_export", album_id=1, overwrite=True)
        assert again["photos"] == 1 and again["missing"][0].startswith("2026/lisbon/IMG_2042.jpg")


class TestLabels:
    """Tags and people labels are unique per photo and checked against the picture."""

    def test_people(self, lib: Library) -> None:
        with pytest.raises(InvalidRequest, match="which is 640x480 pixels"):
            call(lib.engine, "person_add", photo_id=1, name="Ana", box={"left": 600, "top": 0, "width": 50, "height": 50})
        with pytest.raises(Conflict, match="already labelled"):
            call(lib.engine, "person_add", photo_id=6, name="  maria ")
        with pytest.raises(NotFound, match="it shows: Maria, Tomás"):
            call(lib.engine, "person_remove", photo_id=6, name="João")
        assert [p["id"] for p in call(lib.engine, "photo_search", person="MARIA")["photos"]] == [6]

    def test_tags(self, lib: Library) -> None:
        assert call(lib.engine, "tag_add", photo_id=2, tags=[" Boats ", "lisbon"])["added"] == ["boats"]
        with pytest.raises(NotFound, match="photo 2 has no tag 'sunset'; its tags are: boats, lisbon"):
            call(lib.engine, "tag_remove", photo_id=2, tag="sunset")
        assert call(lib.engine, "tag_list", prefix="gar")["tags"] == [{"name": "garden", "photos": 2}]


class TestSearch:
    """Search combines filters; dates are inclusive days in UTC; undated photos come last."""

    def test_filters(self, lib: Library) -> None:
        def ids(**filters: Any) -> list[int]:
            return [p["id"] for p in call(lib.engine, "photo_search", **filters)["photos"]]

        assert ids(taken_from="2026-06-02", taken_to="2026-06-02") == [4, 5]
        assert ids(has_gps=True) == [1, 2, 3, 6]  # 3 is a byte copy of 2
        assert ids(min_rating=4) == [1, 4, 6]
        assert ids(text="tiergarten") == [6]
        assert ids(camera="sony", tag="blurry") == [5]
        assert ids(album_id=1, camera="canon") == [1, 2]
        with pytest.raises(InvalidRequest, match="swap them"):
            ids(taken_from="2026-07-01", taken_to="2026-06-01")
        with pytest.raises(NotFound, match="album 9 does not exist"):
            ids(album_id=9)

    def test_list_filters(self, lib: Library) -> None:
        assert [p["id"] for p in call(lib.engine, "photo_list", folder="2026/garden")["photos"]] == [4, 5]
        assert call(lib.engine, "photo_list", format="png")["total"] == 1
        with pytest.raises(NotFound, match="album 9 does not exist; list albums with photos.album_list"):
            call(lib.engine, "photo_list", album_id=9)


class TestMaintenance:
    """Duplicates, statistics and rescans read the library as it is on disk."""

    def test_duplicates(self, lib: Library) -> None:
        found = call(lib.engine, "duplicate_find")
        assert [[p["id"] for p in g["photos"]] for g in found["groups"]] == [[2, 3]] and found["wasted_bytes"] > 0

    def test_rescan(self, lib: Library) -> None:
        Image.new("RGB", (64, 32), "orange").save(lib.root / "2026/garden/DSC00312.jpg")
        (lib.root / "2026/lisbon/IMG_2042-copy.jpg").unlink()
        (lib.root / "inbox/broken.png").write_bytes(b"\x89PNG broken")
        result = call(lib.engine, "library_rescan")
        assert [i["path"] for i in result["imported"]] == ["imports/IMG_3003.jpg", "inbox/IMG_3001.jpg", "inbox/IMG_3002.jpg"]
        assert result["updated_photo_ids"] == [5] and result["missing"] == [{"id": 3, "path": "2026/lisbon/IMG_2042-copy.jpg"}]
        assert [f["path"] for f in result["failed"]] == ["inbox/broken.png"]
        assert call(lib.engine, "photo_get", photo_id=5)["photo"]["width"] == 64
        assert call(lib.engine, "library_rescan", remove_missing=True)["missing_removed"] is True
        with pytest.raises(NotFound):
            call(lib.engine, "photo_get", photo_id=3)

    def test_stats(self, lib: Library) -> None:
        stats = call(lib.engine, "library_stats")
        assert (stats["photos"], stats["with_gps"], stats["albums"], stats["by_format"]) == (8, 4, 4, {"jpeg": 7, "png": 1})
        assert stats["by_camera"][0] == {"camera": "Canon EOS R6", "photos": 4}
        assert stats["by_month"]["2026-05"] == 4 and stats["ratings"] == {"1": 1, "3": 1, "4": 2, "5": 1}


class TestInputs:
    """Input models refuse what makes no sense before any handler runs."""

    @pytest.mark.parametrize(
        ("action", "args"),
        [
            ("photo_update", {"photo_id": 1, "rating": 6}),
            ("photo_rotate", {"photo_id": 1, "degrees": 45}),
            ("thumbnail_get", {"photo_id": 1, "size": 100}),
            ("exif_update", {"photo_id": 1, "latitude": 91, "longitude": 0}),
            ("tag_add", {"photo_id": 1, "tags": ["#x"]}),
            ("photo_list", {"limit": 0}),
            ("photo_add", {"path": "a.jpg", "conversation_id": "x"}),
        ],
    )
    def test_refused(self, action: str, args: dict[str, Any]) -> None:
        cap = next(c for c in domain.capabilities if c.action == action)
        with pytest.raises(ValidationError):
            cap.input_model.model_validate(args)

    def test_errors_are_domain_errors(self, lib: Library) -> None:
        with pytest.raises(DomainError) as raised:
            call(lib.engine, "photo_get", photo_id=404)
        assert str(raised.value) == "not found: photo 404 does not exist; list photos with photos.photo_list"
        with pytest.raises(InvalidRequest, match="caption cannot be null"):
            call(lib.engine, "photo_update", photo_id=1, caption=None)
