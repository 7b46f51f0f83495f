from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import lightbox
from conftest import Keys
from lightbox import Lightbox, AsyncLightbox, NotModified
from support import Server

ROOT = Path(__file__).resolve().parents[1]


def test_listings_round_trip_with_typed_models(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="12 Harbour Rd, Portsmouth", beds=3, baths=1.5)
    assert isinstance(gallery, lightbox.Listing)
    assert gallery.id.startswith("lst_")
    assert gallery.beds == 3 and gallery.status == "draft" and gallery.client_link is None
    assert gallery.last_response is not None and gallery.last_response.status == 201
    assert gallery.last_response.request_id

    updated = lb.listings.update(gallery.id, status="active", description=None)
    assert updated.status == "active" and updated.description is None
    assert lb.listings.get(gallery.id).to_dict() == updated.to_dict()

    lb.listings.delete(gallery.id)
    try:
        lb.listings.get(gallery.id)
    except lightbox.NotFoundError as err:
        assert err.status == 404 and err.code == "not_found"
    else:
        raise AssertionError("a deleted gallery was found")


def test_assign_gives_a_client_link_with_counters(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="3 Quay St")
    client = lb.clients.create(name="Ada Byron", email="ada.resources@example.com")
    assigned = lb.clients.assign(client.id, gallery.id, notify=False)
    assert assigned.client_id == client.id
    assert isinstance(assigned.client_link, lightbox.ClientLink)
    assert assigned.client_link.views == 0
    fetched = lb.clients.get(client.id)
    assert [g.id for g in fetched.listings] == [gallery.id]
    assert isinstance(fetched.listings[0], lightbox.ListingItem)
    assert [g.id for g in lb.clients.listings(client.id)] == [gallery.id]

    notification = lb.clients.notify(client.id, gallery.id)
    assert notification.id.startswith("ntf_") and notification.to == "ada.resources@example.com"
    assert lb.notifications.get(notification.id).id == notification.id
    assert notification.id in [n.id for n in lb.notifications.list(limit=5)]

    rotated = lb.clients.rotate_portal(client.id)
    assert rotated.id == client.id and rotated.portal_url != fetched.portal_url
    assert "/c/" in rotated.portal_url

    film = {"url": "https://youtu.be/dQw4w9WgXcQ", "label": "Film", "unbranded": True}
    toured = lb.listings.update(gallery.id, tours=[film])
    assert [t.url for t in toured.tours] == ["https://youtu.be/dQw4w9WgXcQ"] and toured.tours[0].unbranded is True

    replaced = lb.listings.replace_client_link(gallery.id)
    assert replaced.client_link is not None and replaced.client_link.url != assigned.client_link.url
    lb.clients.unassign(client.id, gallery.id)
    assert lb.listings.get(gallery.id).client_id is None


def test_events_and_webhook_endpoints(lb: Lightbox) -> None:
    endpoint = lb.webhook_endpoints.create(url="https://hooks.example.com/lightbox", events=["listing.created"])
    assert endpoint.secret.startswith("whsec_")
    assert endpoint.events == ["listing.created"]
    assert lb.webhook_endpoints.get(endpoint.id).url == endpoint.url
    disabled = lb.webhook_endpoints.update(endpoint.id, enabled=False, description="off for now")
    assert disabled.enabled is False and disabled.description == "off for now"
    rotated = lb.webhook_endpoints.rotate_secret(endpoint.id)
    assert rotated.secret != endpoint.secret
    assert endpoint.id in [e.id for e in lb.webhook_endpoints.list()]
    assert list(lb.webhook_endpoints.deliveries(endpoint.id)) == []
    lb.webhook_endpoints.delete(endpoint.id)

    gallery = lb.listings.create(address="9 Event Lane")
    events = lb.events.list(type="listing.created", limit=10)
    event = next(e for e in events.data if e.data.object.id == gallery.id)
    assert isinstance(event, lightbox.Event) and event.type == "listing.created"
    assert event.data.object.address == "9 Event Lane"  # an untyped object, by attribute
    assert lb.events.get(event.id).id == event.id


def test_test_mode_and_delete_test_data(lb: Lightbox, server: Server, keys: Keys) -> None:
    """docs/api.md §20: a test key sees only test data, its events say livemode false, and
    account.delete_test_data() empties it (a live key is refused with 403)."""
    test_key = server.key("owner@harbour.example", test=True)
    assert test_key.startswith("lbx_test_")
    with Lightbox(api_key=test_key, base_url=keys.url) as sandbox:
        assert sandbox.account.get().livemode is False
        gallery = sandbox.listings.create(address="1 Sandbox Road")
        assert all(e.livemode is False for e in sandbox.events.list(limit=10).data)
        kept = lb.listings.create(address="1 Kept Road")
        with pytest.raises(lightbox.PermissionError):
            lb.account.delete_test_data()
        deleted = sandbox.account.delete_test_data()
        assert isinstance(deleted, lightbox.TestDataDeletion) and deleted.deleted is True
        with pytest.raises(lightbox.NotFoundError):
            sandbox.listings.get(gallery.id)
        assert lb.listings.get(kept.id).address == "1 Kept Road"


def test_media_reorder_update_and_download(lb: Lightbox, jpeg: bytes) -> None:
    gallery = lb.listings.create(address="1 Media Row")
    first, second = lb.media.upload(gallery.id, [("a.jpg", jpeg), ("b.jpg", jpeg)])
    assert [first.position, second.position] == [1, 2]
    page = lb.media.reorder(gallery.id, media_ids=[second.id, first.id])
    assert [m.id for m in page.data] == [second.id, first.id]
    changed = lb.media.update(gallery.id, first.id, caption="Front", hidden=True)
    assert changed.caption == "Front" and changed.hidden is True
    assert [m.id for m in lb.media.list(gallery.id)] == [second.id, first.id]
    assert lb.media.get(gallery.id, first.id).sha256 == first.sha256
    assert lb.media.download(gallery.id, first.id) == jpeg
    assert lb.media.download(gallery.id, first.id, range="bytes=0-9") == jpeg[:10]
    lb.media.delete(gallery.id, second.id)
    assert [m.id for m in lb.media.list(gallery.id)] == [first.id]


def _not_modified(read: Callable[[str], object], etag: str) -> tuple[NotModified, str]:
    """Reads with ``etag`` until the answer is 304. The tag is the account's version (docs/api.md
    §17): a background job of an earlier test of this session (an invoice's email or receipt, a
    video's poster) may raise it between two reads. Then the answer is the object again with the
    new tag, and the next read with that tag is 304; never more than a few."""
    for _ in range(5):
        answer = read(etag)
        if isinstance(answer, NotModified):
            assert answer.etag == etag
            return answer, etag
        response = getattr(answer, "last_response", None)
        assert response is not None and response.etag
        etag = response.etag
    raise AssertionError("the tag kept changing")


def test_media_suggested_order(lb: Lightbox, jpeg: bytes) -> None:
    gallery = lb.listings.create(address="2 Order Lane")
    first, second, third = lb.media.upload(gallery.id, [("a.jpg", jpeg), ("b.jpg", jpeg), ("c.jpg", jpeg)])
    lb.media.update(gallery.id, second.id, hidden=True)
    suggested = lb.media.suggested_order(gallery.id)
    assert isinstance(suggested, lightbox.SuggestedOrder)
    # Every visible photo once (the hidden one left out), a reason for each, in the same order.
    assert sorted(suggested.media_ids) == sorted([first.id, third.id])
    assert [r.media_id for r in suggested.reasons] == suggested.media_ids
    assert all(r.note for r in suggested.reasons)
    # Applied with reorder: the suggestion first, the rest after.
    page = lb.media.reorder(gallery.id, media_ids=[*suggested.media_ids, second.id])
    assert [m.id for m in page.data] == [*suggested.media_ids, second.id]


def test_conditional_get(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="5 Etag Close")
    fetched = lb.listings.get(gallery.id)
    assert fetched.last_response is not None and fetched.last_response.etag
    _, etag = _not_modified(lambda tag: lb.listings.get(gallery.id, if_none_match=tag), fetched.last_response.etag)
    lb.listings.update(gallery.id, beds=4)
    changed = lb.listings.get(gallery.id, if_none_match=etag)
    assert isinstance(changed, lightbox.Listing) and changed.beds == 4

    # A list too: unchanged, 304; after a change, the new page.
    page = lb.listings.list(limit=1)
    assert page.last_response is not None and page.last_response.etag
    unchanged, etag = _not_modified(lambda tag: lb.listings.list(limit=1, if_none_match=tag), page.last_response.etag)
    assert unchanged.last_response is not None and unchanged.last_response.status == 304
    lb.listings.create(address="6 Etag Close")
    fresh = lb.listings.list(limit=1, if_none_match=etag)
    assert isinstance(fresh, lightbox.SyncPage) and [g.address for g in fresh.data] == ["6 Etag Close"]


def test_openapi_and_upload_capabilities(lb: Lightbox) -> None:
    doc = lb.openapi()
    assert doc["openapi"].startswith("3.1")
    gallery = lb.listings.create(address="2 Tus Way")
    caps = lb.media.describe_uploads(gallery.id)
    assert caps.version == "1.0.0" and "creation" in caps.extensions and caps.max_size


def test_every_operation_has_a_method_on_both_clients(keys: object) -> None:
    """The completeness check, at run time: every /v1 operationId of the document is a method."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate", ROOT / "scripts" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    document = json.loads(generate.DOCUMENT.read_text())
    gen = generate.Generator(document)
    sync = Lightbox(api_key="lbx_x", base_url="http://127.0.0.1:9")
    asyn = AsyncLightbox(api_key="lbx_x", base_url="http://127.0.0.1:9")
    missing = []
    for entry in gen.operations():
        op_id = entry["op"]["operationId"]
        target = generate.HAND_WRITTEN.get(op_id) or ".".join(gen.name_of(entry["path"], op_id))
        resource, method = target.split(".")
        for client in (sync, asyn):
            owner = client if resource == "client" else getattr(client, resource, None)
            if not callable(getattr(owner, method, None)):
                missing.append(f"{type(client).__name__}: {op_id} -> {target}")
    assert missing == []
    assert len(gen.operations()) >= 40


def test_publish_and_unpublish_a_property_page(lb: Lightbox) -> None:
    draft = lb.listings.create(address="4 Draft Lane")
    try:
        lb.listings.publish_property_page(draft.id)
    except lightbox.ConflictError as err:
        assert err.status == 409 and err.code == "conflict"
    else:
        raise AssertionError("a draft gallery was published")

    gallery = lb.listings.create(address="5 Lantern Row", status="active")
    assert gallery.property_page is None
    published = lb.listings.publish_property_page(gallery.id)
    page = published.property_page
    assert page is not None and page.views == 0
    assert "/p/" in page.url and "/p/" in page.unbranded_url and page.url != page.unbranded_url
    assert lb.listings.get(gallery.id).to_dict() == published.to_dict()

    assert lb.listings.unpublish_property_page(gallery.id) is None
    assert lb.listings.get(gallery.id).property_page is None
    again = lb.listings.publish_property_page(gallery.id).property_page
    assert again is not None and again.url != page.url


def test_the_async_client_has_the_sync_clients_surface() -> None:
    """One surface: every public attribute of Lightbox and of each of its resources exists on
    AsyncLightbox with the same parameters (names, kinds, defaults), coroutine for function."""
    import inspect
    import typing

    sync = Lightbox(api_key="lbx_x", base_url="http://127.0.0.1:9")
    asyn = AsyncLightbox(api_key="lbx_x", base_url="http://127.0.0.1:9")

    def public(obj: object) -> dict[str, object]:
        return {n: getattr(obj, n) for n in dir(obj) if not n.startswith("_")}

    def shape(fn: object) -> list[tuple[str, object, object]]:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
        return [(p.name, p.kind, p.default) for p in sig.parameters.values()]

    compared = 0
    pairs: list[tuple[str, object, object]] = [("client", sync, asyn)]
    sync_names, async_names = set(public(sync)), set(public(asyn))
    assert sync_names == async_names, sync_names ^ async_names
    for name, value in public(sync).items():
        if hasattr(value, "_http"):
            pairs.append((name, value, getattr(asyn, name)))
    assert {p[0] for p in pairs} >= {"listings", "clients", "media", "notifications", "webhook_endpoints", "events", "account"}
    for owner, left, right in pairs:
        lpub, rpub = public(left), public(right)
        assert set(lpub) == set(rpub), f"{owner}: {set(lpub) ^ set(rpub)}"
        for name, fn in lpub.items():
            if not callable(fn) or hasattr(fn, "_http"):
                continue
            other = rpub[name]
            if name in ("close", "verify") or owner == "webhooks":
                continue
            # A walk (lb.reso.iter_media) is an async generator there: `async for`, not `await`.
            awaited = inspect.iscoroutinefunction(other) or inspect.isasyncgenfunction(other)
            assert awaited, f"{owner}.{name} is not async on AsyncLightbox"
            assert not inspect.iscoroutinefunction(fn), f"{owner}.{name} is async on Lightbox"
            assert not inspect.isasyncgenfunction(fn), f"{owner}.{name} is async on Lightbox"
            assert shape(fn) == shape(other), f"{owner}.{name}: {shape(fn)} != {shape(other)}"
            overloads = typing.get_overloads(getattr(type(left), name))
            assert len(overloads) == len(typing.get_overloads(getattr(type(right), name))), f"{owner}.{name} overloads"
            compared += 1
    assert compared >= 56, compared  # 47 generated methods, 8 hand-written media methods, openapi()
    assert inspect.iscoroutinefunction(asyn.close) and not inspect.iscoroutinefunction(sync.close)
    assert sync.webhooks.verify.__func__ is asyn.webhooks.verify.__func__  # no network: shared


def test_webhook_verification_uses_the_standard_library_alone() -> None:
    """lightbox/_webhooks.py imports only standard modules (and the package's own)."""
    import ast
    import sys

    tree = ast.parse((ROOT / "src" / "lightbox" / "_webhooks.py").read_text())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
    assert {"hmac", "hashlib", "base64"} <= imported


def test_link_controls_favorites_client_changes_and_variants(lb: Lightbox, jpeg: bytes) -> None:
    """The methods no other test calls: update_client_link, favorites, clients.update and
    clients.delete, download_variant."""
    import time

    import httpx

    gallery = lb.listings.create(address="7 Favourite Mews", status="active")
    with pytest.raises(lightbox.ConflictError):
        lb.listings.update_client_link(gallery.id, downloads_enabled=False)  # no client yet
    first, second = lb.media.upload(gallery.id, [("porch.jpg", jpeg), ("hall.jpg", jpeg)])
    client = lb.clients.create(name="Grace Hopper", email="grace.resources@example.com")
    link = lb.clients.assign(client.id, gallery.id, notify=False).client_link
    assert link is not None and link.downloads_enabled is True and link.password_protected is False

    empty = lb.listings.favorites(gallery.id)
    assert isinstance(empty, lightbox.Favorites) and empty.media_ids == [] and empty.submitted_at is None
    # The client marks a photo and sends the selection from the gallery page's plain forms.
    with httpx.Client() as browser:
        assert browser.post(f"{link.url}/favorites/{second.id}", data={"on": "1"}).status_code == 303
        assert browser.post(f"{link.url}/favorites", data={"note": "The hall, please"}).status_code == 303
    chosen = lb.listings.favorites(gallery.id)
    assert chosen.media_ids == [second.id] and chosen.note == "The hall, please" and chosen.submitted_at
    assert lb.listings.get(gallery.id).client_link.favorites_count == 1

    controlled = lb.listings.update_client_link(
        gallery.id, downloads_enabled=False, password="a long gallery password", expires_at="2099-01-01T00:00:00.000Z"
    )
    assert controlled.client_link is not None
    assert controlled.client_link.downloads_enabled is False and controlled.client_link.password_protected is True
    assert controlled.client_link.expires_at == "2099-01-01T00:00:00.000Z"
    reopened = lb.listings.update_client_link(gallery.id, password=None, expires_at=None)
    assert reopened.client_link is not None and reopened.client_link.password_protected is False
    assert reopened.client_link.expires_at is None and reopened.client_link.downloads_enabled is False

    changed = lb.clients.update(client.id, phone="+44 20 7946 0000", company="Hopper & Co")
    assert changed.phone == "+44 20 7946 0000" and changed.company == "Hopper & Co"
    assert lb.clients.delete(client.id) is None
    with pytest.raises(lightbox.NotFoundError):
        lb.clients.get(client.id)

    deadline = time.monotonic() + 60
    while lb.media.get(gallery.id, first.id).variants.status == "pending" and time.monotonic() < deadline:
        time.sleep(0.2)
    variants = lb.media.get(gallery.id, first.id).variants
    assert isinstance(variants, lightbox.MediaVariants)  # a photo's: a model, by attribute
    assert variants.status == "ready" and variants.large is not None and variants.thumb is not None
    assert isinstance(variants.large, lightbox.MediaVariant) and variants.large.content_type == "image/jpeg"
    large = lb.media.download_variant(gallery.id, first.id, "large")
    assert large[:2] == b"\xff\xd8" and len(large) == variants.large.size


def test_share_links_and_proofing(lb: Lightbox, jpeg: bytes) -> None:
    """docs/api.md §28: every share link method, the selection bounds on the client link, the
    comments in both favorites reads, and a share link's email (share_link_id set, no client)."""
    import httpx

    gallery = lb.listings.create(address="8 Proofing Yard", status="active")
    first, second = lb.media.upload(gallery.id, [("kitchen.jpg", jpeg), ("garden.jpg", jpeg)])

    share = lb.listings.create_share_link(gallery.id, label="Agent team", email="agents.resources@example.com", selection_max=1)
    assert isinstance(share, lightbox.ShareLink) and share.id.startswith("shl_")
    assert share.last_response is not None and share.last_response.status == 201
    assert share.listing_id == gallery.id and share.email == "agents.resources@example.com"
    assert share.selection_min is None and share.selection_max == 1 and share.views == 0
    assert lb.listings.get_share_link(gallery.id, share.id).label == "Agent team"
    page = lb.listings.list_share_links(gallery.id, limit=10)
    assert isinstance(page, lightbox.SyncPage) and [s.id for s in page.data] == [share.id]

    # The email the link was created with, then one more: both carry the link and no client.
    emailed = [n for n in lb.notifications.list(limit=20).data if n.share_link_id == share.id]
    assert len(emailed) == 1 and emailed[0].client_id is None and emailed[0].to == share.email
    again = lb.listings.notify_share_link(gallery.id, share.id)
    assert isinstance(again, lightbox.Notification) and again.share_link_id == share.id and again.client_id is None
    assert again.last_response is not None and again.last_response.status == 202

    # A visitor marks a photo and comments on another from the page's plain forms.
    with httpx.Client() as browser:
        assert browser.post(f"{share.url}/favorites/{second.id}", data={"on": "1"}).status_code == 303
        assert browser.post(f"{share.url}/comments/{first.id}", data={"comment": "Brighter, please"}).status_code == 303
    chosen = lb.listings.share_link_favorites(gallery.id, share.id)
    assert isinstance(chosen, lightbox.Favorites) and chosen.media_ids == [second.id]
    assert [(c.media_id, c.text) for c in chosen.comments] == [(first.id, "Brighter, please")]
    assert isinstance(chosen.comments[0], lightbox.Comment)
    assert lb.listings.favorites(gallery.id).comments == []  # the client link's are its own

    renamed = lb.listings.update_share_link(gallery.id, share.id, label="Sellers", selection_min=1)
    assert (renamed.label, renamed.selection_min, renamed.selection_max) == ("Sellers", 1, 1)
    with pytest.raises(lightbox.ValidationError):
        lb.listings.update_share_link(gallery.id, share.id, selection_min=2)  # above the maximum
    rotated = lb.listings.rotate_share_link(gallery.id, share.id)
    assert rotated.url != share.url and rotated.favorites_count == 1

    silent = lb.listings.create_share_link(gallery.id, label="No email")
    with pytest.raises(lightbox.ConflictError):
        lb.listings.notify_share_link(gallery.id, silent.id)  # nobody to send it to
    assert lb.listings.delete_share_link(gallery.id, share.id) is None
    with pytest.raises(lightbox.NotFoundError):
        lb.listings.get_share_link(gallery.id, share.id)
    assert [s.id for s in lb.listings.list_share_links(gallery.id)] == [silent.id]

    # The client link takes the same bounds.
    client = lb.clients.create(name="Edith Clarke", email="edith.resources@example.com")
    lb.clients.assign(client.id, gallery.id, notify=False)
    bounded = lb.listings.update_client_link(gallery.id, selection_min=1, selection_max=2)
    assert bounded.client_link is not None
    assert (bounded.client_link.selection_min, bounded.client_link.selection_max) == (1, 2)
    cleared = lb.listings.update_client_link(gallery.id, selection_min=None)
    assert cleared.client_link is not None and cleared.client_link.selection_min is None


def test_products_and_invoices(lb: Lightbox, tmp_path: Path) -> None:
    """docs/api.md §29: every product and invoice method; amounts are integers in minor units."""
    product = lb.products.create(name="Twilight photos", unit_amount=15000)
    assert isinstance(product, lightbox.Product) and product.id.startswith("prd_")
    assert product.last_response is not None and product.last_response.status == 201
    repriced = lb.products.update(product.id, unit_amount=12500, description="At dusk")
    assert (repriced.unit_amount, repriced.description) == (12500, "At dusk")
    assert lb.products.get(product.id).unit_amount == 12500
    assert product.id in [p.id for p in lb.products.list(limit=100)]  # iterating walks every page

    gallery = lb.listings.create(address="9 Invoice Street")
    with pytest.raises(lightbox.ConflictError):
        lb.invoices.create(listing_id=gallery.id, items=[{"product_id": product.id}])  # no client yet
    client = lb.clients.create(name="Bea Invoice", email="bea.invoices@example.com")
    lb.clients.assign(client.id, gallery.id, notify=False)
    draft = lb.invoices.create(
        listing_id=gallery.id,
        items=[{"product_id": product.id, "quantity": 2}, {"description": "Drone", "unit_amount": 9999}],
        discount=999,
        tax_rate_bps=825,
    )
    assert isinstance(draft, lightbox.Invoice) and draft.id.startswith("ivc_")
    assert isinstance(draft.items[0], lightbox.InvoiceItem) and draft.items[0].description == "Twilight photos"
    # 25000 + 9999 - 999 = 34000; tax 34000 x 8.25 % = 2805.
    assert (draft.status, draft.number, draft.subtotal, draft.tax, draft.total) == ("draft", None, 34999, 2805, 36805)
    assert all(isinstance(v, int) for v in (draft.subtotal, draft.discount, draft.tax, draft.total, draft.amount_due))
    noted = lb.invoices.update(draft.id, note="Thank you", discount=0)
    assert (noted.note, noted.tax, noted.total) == ("Thank you", 2887, 37886)  # 2887.4175 rounds to 2887
    assert lb.invoices.get(draft.id).note == "Thank you"

    issued = lb.invoices.issue(draft.id)
    assert issued.status == "open" and issued.number is not None and issued.number.startswith("INV-")
    with pytest.raises(lightbox.ConflictError):
        lb.invoices.update(draft.id, note="too late")
    with pytest.raises(lightbox.ConflictError):
        lb.invoices.delete(draft.id)
    assert [i.id for i in lb.invoices.list(listing_id=gallery.id, status="open")] == [draft.id]
    assert list(lb.invoices.list(client_id=client.id, status="paid")) == []

    pdf = lb.invoices.download_pdf(draft.id)
    assert pdf.startswith(b"%PDF-")
    assert lb.invoices.download_pdf_to(draft.id, tmp_path / "invoice.pdf") == len(pdf)
    assert (tmp_path / "invoice.pdf").read_bytes()[:5] == b"%PDF-"

    with pytest.raises(lightbox.ValidationError):
        lb.invoices.create_payment(draft.id, amount=37887, method="cash")  # more than is due
    part = lb.invoices.create_payment(draft.id, amount=7886, method="check", reference="No. 12")
    assert isinstance(part, lightbox.Payment) and part.id.startswith("pay_") and part.invoice_id == draft.id
    assert lb.invoices.get(draft.id).amount_due == 30000
    rest = lb.invoices.create_payment(draft.id, amount=30000, method="bank_transfer")
    paid = lb.invoices.get(draft.id)
    assert (paid.status, paid.amount_paid, paid.amount_due) == ("paid", 37886, 0) and paid.paid_at
    assert sorted(p.id for p in lb.invoices.list_payments(draft.id)) == sorted([part.id, rest.id])
    with pytest.raises(lightbox.ConflictError):
        lb.invoices.void(draft.id)  # paid: only an open invoice is voided

    second = lb.invoices.create(listing_id=gallery.id, items=[{"description": "Floor plan", "unit_amount": 5000}])
    assert lb.invoices.void(lb.invoices.issue(second.id).id).status == "void"
    spare = lb.invoices.create(listing_id=gallery.id, items=[{"description": "Spare", "unit_amount": 1}])
    assert lb.invoices.delete(spare.id) is None
    with pytest.raises(lightbox.NotFoundError):
        lb.invoices.get(spare.id)
    assert sorted(i.id for i in lb.invoices.list(listing_id=gallery.id)) == sorted([draft.id, second.id])

    assert lb.products.delete(product.id) is None
    with pytest.raises(lightbox.NotFoundError):
        lb.products.get(product.id)
    assert lb.invoices.get(draft.id).items[0].description == "Twilight photos"  # the invoice kept its copy


def test_mls_profiles_and_compliance(lb: Lightbox) -> None:
    """docs/api.md §31: every MLS profile method, and a gallery's compliance report."""
    profile = lb.mls_profiles.create(name="Bright MLS", max_photos=25)
    assert isinstance(profile, lightbox.MlsProfile) and profile.id.startswith("mlp_")
    assert (profile.max_long_edge, profile.max_photos, profile.forbid_text) == (2048, 25, True)
    changed = lb.mls_profiles.update(profile.id, forbid_people=False)
    assert changed.forbid_people is False
    assert lb.mls_profiles.get(profile.id).name == "Bright MLS"
    assert profile.id in [p.id for p in lb.mls_profiles.list(limit=100)]
    with pytest.raises(lightbox.ValidationError):
        lb.mls_profiles.create(name="Crossed", max_long_edge=1000, min_long_edge=1200)

    gallery = lb.listings.create(address="31 Compliance Court")
    with pytest.raises(lightbox.ValidationError):
        lb.listings.get_compliance(gallery.id)  # no profile, none named
    named = lb.listings.get_compliance(gallery.id, profile_id=profile.id)
    assert isinstance(named, lightbox.ComplianceReport)
    assert (named.profile_id, named.status, named.photos) == (profile.id, "pass", [])
    lb.listings.update(gallery.id, mls_profile_id=profile.id)
    assert lb.listings.get_compliance(gallery.id).profile_id == profile.id

    assert lb.mls_profiles.delete(profile.id) is None
    assert lb.listings.get(gallery.id).mls_profile_id is None


def test_reso_media(lb: Lightbox) -> None:
    """docs/api.md §33: the RESO Media feed, one page at a time, the filter in OData."""
    page = lb.reso.media(top=1, filter="MediaModificationTimestamp gt 2000-01-01T00:00:00Z")
    assert isinstance(page, lightbox.ResoMediaFeed)
    assert len(page.value) <= 1
    with pytest.raises(lightbox.ValidationError):
        lb.reso.media(filter="MediaKey eq 'x'")
