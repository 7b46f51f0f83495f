from __future__ import annotations

from lightbox import AsyncLightbox, AsyncPage, Lightbox, SyncPage
from conftest import Keys
from support import Server


def test_iterating_a_page_walks_all_250_items(server: Server, keys: Keys) -> None:
    # A studio of its own, so every count below is exact.
    server.account("owner@pages.example")
    with Lightbox(api_key=server.key("owner@pages.example"), base_url=keys.url) as lb:
        made = [lb.listings.create(address=f"{n} Pagination St", status="active").id for n in range(250)]
        lb.listings.create(address="Draft only")  # filtered out below

        page = lb.listings.list(status="active", limit=100)
        assert isinstance(page, SyncPage) and len(page.data) == 100
        assert page.pagination.total == 250 and page.next_cursor is not None
        seen = [g.id for g in page]
        # Every item once, newest first (the list's order), and nothing the filter leaves out.
        assert seen == list(reversed(made))

        pages = list(lb.listings.list(status="active", limit=100).iter_pages())
        assert [len(p.data) for p in pages] == [100, 100, 50]
        assert pages[-1].next_cursor is None and not pages[-1].has_next_page()

        # A later page is reached by the server's cursor and keeps the filters and the limit.
        second = page.next_page()
        assert second is not None and len(second.data) == 100
        assert second.pagination.page is None and second.pagination.next_cursor is not None
        assert all(g.status == "active" for g in second.data)
        assert [g.id for g in second.data] == list(reversed(made))[100:200]

        # Items made during the walk do not disturb it (the cursor, not an offset, moves on).
        walk = iter(lb.listings.list(status="active", limit=100))
        first_part = [next(walk).id for _ in range(150)]
        lb.listings.create(address="Made mid-walk", status="active")
        assert first_part + [g.id for g in walk] == list(reversed(made))


async def test_async_iteration_walks_all_250_items(server: Server, keys: Keys) -> None:
    server.account("owner@async-pages.example")
    async with AsyncLightbox(api_key=server.key("owner@async-pages.example"), base_url=keys.url) as alb:
        made = [(await alb.listings.create(address=f"{n} Async Page Rd", status="archived")).id for n in range(250)]
        page = await alb.listings.list(status="archived", limit=100)
        assert isinstance(page, AsyncPage) and page.pagination.total == 250
        assert [g.id async for g in page] == list(reversed(made))
        assert [len(p.data) async for p in page.iter_pages()] == [100, 100, 50]


def test_a_whole_list_is_one_page(lb: Lightbox) -> None:
    gallery = lb.listings.create(address="1 Empty Gallery")
    page = lb.media.list(gallery.id)
    assert page.data == [] and list(page) == [] and not page.has_next_page()


def _json(body: str) -> bytes:
    return (
        f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        f"connection: close\r\n\r\n{body}"
    ).encode()


def _item(n: int) -> str:
    return (
        f'{{"id":"lst_{n}","address":"{n} Cursor Rd","beds":null,"baths":null,"sqft":null,'
        f'"status":"active","client_id":null,"created_at":"2026-11-27T10:00:00.000Z"}}'
    )


def test_the_walk_follows_next_cursor_when_the_server_sends_it() -> None:
    """Section 19 servers page by cursor: the next request carries `cursor` (and no `page`)."""
    from support import Canned

    canned = Canned(
        [
            _json(f'{{"data":[{_item(1)},{_item(2)}],"pagination":{{"page":1,"limit":2,"total":3,"next_cursor":"c2"}}}}'),
            _json(f'{{"data":[{_item(3)}],"pagination":{{"page":1,"limit":2,"total":3,"next_cursor":null}}}}'),
        ]
    )
    with Lightbox(api_key="lbx_x", base_url=canned.url) as lb:
        page = lb.listings.list(status="active", limit=2, page=1)
        assert page.next_cursor == "c2"
        assert [g.id for g in page] == ["lst_1", "lst_2", "lst_3"]
    first, second = (r.split(b" ")[1].decode() for r in canned.requests)
    assert first == "/v1/listings?page=1&limit=2&status=active"
    assert second == "/v1/listings?limit=2&status=active&cursor=c2"
