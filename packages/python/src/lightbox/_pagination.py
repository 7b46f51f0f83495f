"""Pages of a list, and iteration across every page.

``lb.listings.list(...)`` answers one page (``.data``, ``.pagination``); iterating the page walks
every matching item, fetching the next page only when the loop needs it, with the same filters.

The next page is found by the cursor the server hands out (``pagination.next_cursor``, contract
section 19): a cursor walk sees every item that exists for the whole walk exactly once. While a
server does not send ``next_cursor`` at all (an older Lightbox), the walk falls back to page
numbers. TRANSITIONAL: the page-number fallback can go once every supported server sends cursors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Mapping
from typing import Any, Generic, TypeVar

from ._models import Model, ResponseInfo
from ._generated.models import Pagination

__all__ = ["SyncPage", "AsyncPage"]

T = TypeVar("T", bound=Model)


def _next_query(query: Mapping[str, Any], pagination: Pagination, count: int) -> dict[str, Any] | None:
    """The query of the page after this one, or None when this is the last."""
    raw = pagination.to_dict()
    if "next_cursor" in raw:
        cursor = raw["next_cursor"]
        if not isinstance(cursor, str) or cursor == "":
            return None
        following = {k: v for k, v in query.items() if k != "page"}
        following["cursor"] = cursor
        return following
    # TRANSITIONAL: page numbers, for servers without cursors.
    page = int(raw.get("page") or 1)
    limit = int(raw.get("limit") or 0)
    total = int(raw.get("total") or 0)
    if count == 0 or limit <= 0 or page * limit >= total:
        return None
    return {**query, "page": page + 1}


class _Page(Generic[T]):
    data: list[T]
    pagination: Pagination
    last_response: ResponseInfo | None

    def __init__(
        self,
        data: list[T],
        pagination: Pagination,
        query: Mapping[str, Any],
        last_response: ResponseInfo | None,
    ) -> None:
        self.data = data
        self.pagination = pagination
        self.last_response = last_response
        self._query = dict(query)

    @property
    def next_cursor(self) -> str | None:
        value = self.pagination.to_dict().get("next_cursor")
        return value if isinstance(value, str) else None

    def has_next_page(self) -> bool:
        return _next_query(self._query, self.pagination, len(self.data)) is not None

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data=<{len(self.data)} items>, pagination={self.pagination!r})"


class SyncPage(_Page[T]):
    """One page; ``for item in page`` walks this page and every following one."""

    def __init__(
        self,
        data: list[T],
        pagination: Pagination,
        query: Mapping[str, Any],
        last_response: ResponseInfo | None,
        fetch: Callable[[dict[str, Any]], SyncPage[T]],
    ) -> None:
        super().__init__(data, pagination, query, last_response)
        self._fetch = fetch

    def next_page(self) -> SyncPage[T] | None:
        query = _next_query(self._query, self.pagination, len(self.data))
        return None if query is None else self._fetch(query)

    def iter_pages(self) -> Iterator[SyncPage[T]]:
        page: SyncPage[T] | None = self
        while page is not None:
            yield page
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.data


class AsyncPage(_Page[T]):
    """One page; ``async for item in page`` walks this page and every following one."""

    def __init__(
        self,
        data: list[T],
        pagination: Pagination,
        query: Mapping[str, Any],
        last_response: ResponseInfo | None,
        fetch: Callable[[dict[str, Any]], Coroutine[Any, Any, AsyncPage[T]]],
    ) -> None:
        super().__init__(data, pagination, query, last_response)
        self._fetch = fetch

    async def next_page(self) -> AsyncPage[T] | None:
        query = _next_query(self._query, self.pagination, len(self.data))
        return None if query is None else await self._fetch(query)

    async def iter_pages(self) -> AsyncIterator[AsyncPage[T]]:
        page: AsyncPage[T] | None = self
        while page is not None:
            yield page
            page = await page.next_page()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.data:
                yield item
