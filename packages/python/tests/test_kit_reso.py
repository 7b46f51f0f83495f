"""The listing kit (contract section 32) and the RESO Media feed (section 33) through the library,
against a real server: the feed walked page after page by ``@odata.nextLink`` (sync and async),
and a kit built for real, its items downloaded in memory, to a file and by range."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

import lightbox
from lightbox import AsyncLightbox, Lightbox
from conftest import _JPEG, Keys
from support import Server


def _until(what: str, ready: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def _photos_ready(lb: Lightbox, gallery_id: str) -> None:
    """Variants made and analysis done: the analysis reads the room (the feed's ImageOf), which
    moves a record's MediaModificationTimestamp, so the feed stands still only after it."""
    _until(
        "the photos' variants and analysis",
        lambda: all(
            m.variants.status == "ready" and (m.analysis is None or m.analysis.status != "pending")
            for m in lb.media.list(gallery_id).data
        ),
        180,
    )


@pytest.fixture(scope="module")
def feed_studio(server: Server, keys: Keys) -> tuple[str, str, list[str]]:
    """A studio of its own with one active gallery of three ready photos: (key, gallery id, photo ids)."""
    server.account("owner@feed.example")
    key = server.key("owner@feed.example")
    with Lightbox(api_key=key, base_url=keys.url) as lb:
        gallery = lb.listings.create(address="33 Feed Street", status="active", mls_number="PY-33")
        made = lb.media.upload(gallery.id, [(f"{n}.jpg", _JPEG) for n in ("front", "hall", "garden")])
        _photos_ready(lb, gallery.id)
    return key, gallery.id, [m.id for m in made]


def test_the_feed_is_walked_page_after_page_by_the_next_link(keys: Keys, feed_studio: tuple[str, str, list[str]]) -> None:
    key, gallery_id, photos = feed_studio
    with Lightbox(api_key=key, base_url=keys.url) as lb:
        pages = list(lb.reso.iter_media_pages(top=1))
        assert [len(p.value) for p in pages] == [1, 1, 1]
        assert all("@odata.nextLink" in p.to_dict() for p in pages[:-1])
        assert "@odata.nextLink" not in pages[-1].to_dict()

        records = list(lb.reso.iter_media(top=2))
        assert sorted(r.MediaKey for r in records) == sorted(photos)
        assert [r.MediaKey for r in records] == [p.value[0].MediaKey for p in pages]
        stamps = [r.MediaModificationTimestamp for r in records]
        assert stamps == sorted(stamps)  # oldest change first, the feed's one order
        assert all(isinstance(r, lightbox.ResoMedia) for r in records)
        assert {(r.ResourceRecordKey, r.ResourceRecordID, r.MediaCategory) for r in records} == {
            ("PY-33", gallery_id, "Photo")
        }

        # The filter rides along on every page; one that matches nothing is one empty page.
        assert [r.MediaKey for r in lb.reso.iter_media(filter="ResourceRecordKey eq 'PY-33'", top=1)] == [
            r.MediaKey for r in records
        ]
        later = lb.reso.iter_media(filter=f"MediaModificationTimestamp gt {stamps[0]}", top=1)
        assert [r.MediaKey for r in later] == [r.MediaKey for r in records[1:]]
        assert list(lb.reso.iter_media(filter="ResourceRecordKey eq 'nothing'")) == []
        with pytest.raises(lightbox.ValidationError):
            list(lb.reso.iter_media(filter="City eq 'Brighton'"))

        # A photo changed during the walk comes again later in it, never skipped.
        walk = lb.reso.iter_media(top=1)
        first = next(walk)
        lb.media.update(gallery_id, first.MediaKey, caption="The front, at dusk")
        rest = [r for r in walk]
        assert [r.MediaKey for r in rest] == [r.MediaKey for r in records[1:]] + [first.MediaKey]
        assert rest[-1].ShortDescription == "The front, at dusk"


async def test_the_feed_walked_with_async_for(keys: Keys, feed_studio: tuple[str, str, list[str]]) -> None:
    key, _, photos = feed_studio
    async with AsyncLightbox(api_key=key, base_url=keys.url) as alb:
        keys_seen = [r.MediaKey async for r in alb.reso.iter_media(top=1)]
        assert sorted(keys_seen) == sorted(photos) and len(keys_seen) == 3
        assert [len(p.value) async for p in alb.reso.iter_media_pages(top=2)] == [2, 1]


def test_a_kit_before_its_build(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="31 Unbuilt Lane", status="active")
    kit = lb.listings.get_kit(gallery.id)
    assert isinstance(kit, lightbox.Kit) and (kit.status, kit.built_at, kit.mls_zip) == ("none", None, None)
    with pytest.raises(lightbox.NotFoundError):
        lb.listings.download_kit_item(gallery.id, "flyer")
    with pytest.raises(lightbox.ConflictError):
        lb.listings.build_kit(gallery.id)  # no ready photo yet


@pytest.fixture(scope="module")
def built_kit(keys: Keys) -> lightbox.Kit:
    """An active gallery of one photo, its kit built for real (videos too: up to a few minutes)."""
    with Lightbox(api_key=keys.full, base_url=keys.url) as lb:
        gallery = lb.listings.create(address="32 Kit Lane", status="active", beds=3)
        lb.media.upload(gallery.id, [("front.jpg", _JPEG)])
        _photos_ready(lb, gallery.id)
        building = lb.listings.build_kit(gallery.id)
        assert (building.listing_id, building.status) == (gallery.id, "building")
        _until("the kit", lambda: lb.listings.get_kit(gallery.id).status in ("ready", "failed"), 240)
        kit = lb.listings.get_kit(gallery.id)
    assert isinstance(kit, lightbox.Kit) and kit.status == "ready"
    return kit


def test_a_kit_item_in_memory_by_range_and_to_a_file(lb: Lightbox, built_kit: lightbox.Kit, tmp_path: Path) -> None:
    gallery_id = built_kit.listing_id
    assert built_kit.mls_zip is not None and built_kit.flyer is not None
    pack = lb.listings.download_kit_item(gallery_id, "mls_zip")
    assert pack[:2] == b"PK" and len(pack) == built_kit.mls_zip.size
    assert lb.listings.download_kit_item(gallery_id, "mls_zip", range="bytes=0-1") == b"PK"
    written = lb.listings.download_kit_item_to(gallery_id, "flyer", tmp_path / "flyer.pdf")
    assert written == built_kit.flyer.size and (tmp_path / "flyer.pdf").read_bytes()[:5] == b"%PDF-"


async def test_a_kit_item_downloaded_with_await(alb: AsyncLightbox, built_kit: lightbox.Kit, tmp_path: Path) -> None:
    gallery_id = built_kit.listing_id
    kit = await alb.listings.get_kit(gallery_id)
    assert kit == built_kit and kit.social is not None
    square = next(s for s in kit.social if s.format == "square")
    data = await alb.listings.download_kit_item(gallery_id, "social_square")
    assert data[:2] == b"\xff\xd8" and len(data) == square.size
    written = await alb.listings.download_kit_item_to(gallery_id, "social_square", tmp_path / "square.jpg")
    assert written == square.size and (tmp_path / "square.jpg").read_bytes() == data


def test_the_readme_feed_sync_runs_as_written(keys: Keys, feed_studio: tuple[str, str, list[str]]) -> None:
    from test_examples import _readme_block

    key, _, photos = feed_studio
    code = _readme_block("Pagination", 1)
    assert "lb.reso.iter_media(" in code

    class Mls:
        def __init__(self) -> None:
            self.photos: list[tuple[str, int, str]] = []

        def upsert_photo(self, listing: str, order: int, url: str) -> None:
            self.photos.append((listing, order, url))

    with Lightbox(api_key=key, base_url=keys.url) as lb:
        mls = Mls()
        namespace: dict[str, object] = {"lb": lb, "mls": mls, "last_seen": "2000-01-01T00:00:00Z"}
        exec(compile(code, "README.md", "exec"), namespace)
        assert len(mls.photos) == len(photos) and {p[0] for p in mls.photos} == {"PY-33"}
        # A second run from where the first stopped sees nothing new.
        again = Mls()
        exec(compile(code, "README.md", "exec"), {**namespace, "mls": again})
        assert again.photos == []
