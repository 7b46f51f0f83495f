"""AsyncLightbox: the same surface with await and async for."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import pytest

import lightbox
from lightbox import AsyncLightbox, AsyncPage, NotModified
from conftest import Keys
from support import Relay, Server


async def test_crud_pages_and_conditional_gets(alb: AsyncLightbox) -> None:
    made = await asyncio.gather(*(alb.listings.create(address=f"{n} Async Ave", status="archived") for n in range(25)))
    page = await alb.listings.list(status="archived", limit=10)
    assert isinstance(page, AsyncPage) and len(page.data) == 10
    seen = [g.id async for g in page]
    assert {g.id for g in made} <= set(seen) and len(seen) == len(set(seen))

    gallery = await alb.listings.get(made[0].id)
    assert gallery.last_response is not None and gallery.last_response.etag
    assert isinstance(await alb.listings.get(gallery.id, if_none_match=gallery.last_response.etag), NotModified)
    updated = await alb.listings.update(gallery.id, beds=2)
    assert updated.beds == 2
    await alb.listings.delete(gallery.id)
    with pytest.raises(lightbox.NotFoundError):
        await alb.listings.get(gallery.id)
    with pytest.raises(lightbox.ValidationError) as caught:
        await alb.clients.create(name="", email="not-an-email")
    assert {d["field"] for d in caught.value.details} >= {"name"}


async def test_async_uploads(alb: AsyncLightbox, jpeg: bytes, tmp_path: Path) -> None:
    gallery = await alb.listings.create(address="1 Async Upload")
    path = tmp_path / "a.jpg"
    path.write_bytes(jpeg)
    made = await alb.media.upload(gallery.id, [path, ("b.jpg", jpeg)])
    assert [m.filename for m in made] == ["a.jpg", "b.jpg"]
    assert await alb.media.download(gallery.id, made[0].id) == jpeg

    data = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + os.urandom(500_000)
    video = tmp_path / "v.mp4"
    video.write_bytes(data)
    progress: list[int] = []
    media = await alb.media.upload_resumable(
        gallery.id, video, chunk_size=200_000, on_progress=lambda s, t: progress.append(s)
    )
    assert media.sha256 == hashlib.sha256(data).hexdigest() and progress[-1] == len(data)
    assert len(progress) == 3


async def test_async_retried_post_makes_one_resource(keys: Keys, server: Server) -> None:
    relay = Relay(server.port)
    relay.drop_response_to = b"POST /v1/clients "
    try:
        async with AsyncLightbox(api_key=keys.full, base_url=relay.url) as alb:
            alb._http.random = lambda: 0.0
            client = await alb.clients.create(name="Async Once", email="async.once@example.com")
            assert relay.dropped == 1
            found = [c.id async for c in await alb.clients.list(search="async.once@")]
            assert found == [client.id]
    finally:
        relay.close()


async def test_async_connection_error() -> None:
    async with AsyncLightbox(api_key="lbx_x", base_url="http://127.0.0.1:9", max_retries=0) as alb:
        with pytest.raises(lightbox.ConnectionError):
            await alb.events.list()


async def test_async_resumable_upload_cut_and_resumed(keys: Keys, server: Server, tmp_path: Path) -> None:
    relay = Relay(server.port)
    data = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + os.urandom(800_000)
    video = tmp_path / "cut.mp4"
    video.write_bytes(data)
    try:
        async with AsyncLightbox(api_key=keys.full, base_url=relay.url) as alb:
            alb._http.random = lambda: 0.0
            gallery = await alb.listings.create(address="1 Async Cut")
            relay.cut_request = (b"PATCH ", 150_000)
            media = await alb.media.upload_resumable(gallery.id, video, chunk_size=300_000)
        assert relay.cut == 1
        assert media.sha256 == hashlib.sha256(data).hexdigest()
    finally:
        relay.close()


async def test_async_resumable_upload_resumes_by_url_after_a_restart(keys: Keys, alb: AsyncLightbox, tmp_path: Path) -> None:
    """A process dies after its first acknowledged chunk; another resumes from the server's offset."""
    import subprocess
    import sys

    gallery = await alb.listings.create(address="1 Async Restart Row")
    data = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + os.urandom(700_000)
    video = tmp_path / "restart.mp4"
    video.write_bytes(data)
    url_file = tmp_path / "upload-url"
    src = Path(__file__).resolve().parents[1] / "src"
    code = f"""
import asyncio, os, sys
sys.path.insert(0, {str(src)!r})
from lightbox import AsyncLightbox
async def main():
    async with AsyncLightbox(api_key={keys.full!r}, base_url={keys.url!r}) as alb:
        await alb.media.upload_resumable({gallery.id!r}, {str(video)!r}, chunk_size=250_000,
            on_upload_url=lambda u: open({str(url_file)!r}, "w").write(u), on_progress=lambda s, t: os._exit(3))
asyncio.run(main())
"""
    done = await asyncio.to_thread(subprocess.run, [sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr.decode()
    progress: list[int] = []
    media = await alb.media.upload_resumable(
        gallery.id, video, upload_url=url_file.read_text(), chunk_size=250_000, on_progress=lambda s, t: progress.append(s)
    )
    assert progress == [250_000, 500_000, len(data)]
    assert media.sha256 == hashlib.sha256(data).hexdigest()
    assert [m.id async for m in await alb.media.list(gallery.id)] == [media.id]


async def test_async_share_links(alb: AsyncLightbox) -> None:
    """docs/api.md §28 on AsyncLightbox: create, list (async for), get, update, rotate, favorites, delete."""
    gallery = await alb.listings.create(address="2 Async Proofing")
    share = await alb.listings.create_share_link(gallery.id, label="Stagers", favorites_enabled=False)
    assert isinstance(share, lightbox.ShareLink) and share.favorites_enabled is False
    page = await alb.listings.list_share_links(gallery.id)
    assert isinstance(page, AsyncPage) and [s.id async for s in page] == [share.id]
    fetched = await alb.listings.get_share_link(gallery.id, share.id)
    assert fetched.last_response is not None and fetched.last_response.etag
    # The tag is the account's version (docs/api.md §17): a job of an earlier test of this session
    # (the video's poster and web rendition) may raise it between two reads. Then the answer is the
    # link again, with the new tag, and the next read with that tag is 304; never more than a few.
    etag = fetched.last_response.etag
    for _ in range(5):
        unchanged = await alb.listings.get_share_link(gallery.id, share.id, if_none_match=etag)
        if isinstance(unchanged, NotModified):
            break
        assert unchanged.id == share.id and unchanged.last_response is not None
        etag = unchanged.last_response.etag
    assert isinstance(unchanged, NotModified)
    updated = await alb.listings.update_share_link(gallery.id, share.id, favorites_enabled=True, selection_max=5)
    assert updated.favorites_enabled is True and updated.selection_max == 5
    assert (await alb.listings.rotate_share_link(gallery.id, share.id)).url != share.url
    favorites = await alb.listings.share_link_favorites(gallery.id, share.id)
    assert favorites.media_ids == [] and favorites.comments == [] and favorites.submitted_at is None
    with pytest.raises(lightbox.ConflictError):
        await alb.listings.notify_share_link(gallery.id, share.id)
    assert await alb.listings.delete_share_link(gallery.id, share.id) is None
    with pytest.raises(lightbox.NotFoundError):
        await alb.listings.get_share_link(gallery.id, share.id)


async def test_async_products_and_invoices(alb: AsyncLightbox) -> None:
    """docs/api.md §29 on AsyncLightbox: a product, an invoice issued, paid, its payments and PDF."""
    product = await alb.products.create(name="Async drone", unit_amount=4000)
    assert product.id in [p.id async for p in await alb.products.list()]
    gallery = await alb.listings.create(address="4 Async Invoice Row")
    client = await alb.clients.create(name="Cy Async", email="cy.invoices@example.com")
    await alb.clients.assign(client.id, gallery.id, notify=False)
    draft = await alb.invoices.create(listing_id=gallery.id, items=[{"product_id": product.id, "quantity": 3}])
    assert (draft.subtotal, draft.total) == (12000, 12000)
    assert (await alb.invoices.update(draft.id, tax_rate_bps=1000)).total == 13200
    issued = await alb.invoices.issue(draft.id)
    assert issued.status == "open" and (await alb.invoices.get(draft.id)).number == issued.number
    assert [i.id async for i in await alb.invoices.list(client_id=client.id)] == [draft.id]
    assert (await alb.invoices.download_pdf(draft.id)).startswith(b"%PDF-")
    payment = await alb.invoices.create_payment(draft.id, amount=13200, method="card")
    assert [p.id async for p in await alb.invoices.list_payments(draft.id)] == [payment.id]
    assert (await alb.invoices.get(draft.id)).status == "paid"
    with pytest.raises(lightbox.ConflictError):
        await alb.invoices.void(draft.id)
    spare = await alb.invoices.create(listing_id=gallery.id, items=[{"description": "Spare", "unit_amount": 1}])
    assert await alb.invoices.delete(spare.id) is None
    assert await alb.products.delete(product.id) is None
