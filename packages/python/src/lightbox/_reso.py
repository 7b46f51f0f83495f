"""``lb.reso``: the studio's photos as a RESO Media feed (contract section 33), page after page.

``lb.reso.media(...)`` answers one page in OData JSON; ``iter_media`` walks every record, and
``iter_media_pages`` every page, by following ``@odata.nextLink`` until the feed has no more, with
the same ``filter``. The feed's one order is oldest change first, so a photo changed during a walk
comes again later in it, never skipped: keep the last ``MediaModificationTimestamp`` seen and ask
for ``MediaModificationTimestamp gt <it>`` next time to sync only what changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Literal
from urllib.parse import parse_qs, urlsplit

from ._generated.models import ResoMedia, ResoMediaFeed
from ._generated.resources import AsyncResoResource, ResoResource
from ._models import RequestOptions

__all__ = ["Reso", "AsyncReso"]

Order = Literal["MediaModificationTimestamp", "MediaModificationTimestamp asc"]


def next_cursor(feed: ResoMediaFeed) -> str | None:
    """The cursor of ``feed``'s ``@odata.nextLink``, or None after the last page."""
    link = feed.to_dict().get("@odata.nextLink")
    if not isinstance(link, str) or not feed.value:
        return None
    cursor = parse_qs(urlsplit(link).query).get("cursor")
    return cursor[0] if cursor else None


class Reso(ResoResource):
    """``lb.reso``: the RESO Media feed, one page (``media``) or every record (``iter_media``)."""

    def iter_media_pages(
        self,
        *,
        filter: str | None = None,
        top: int | None = None,
        orderby: Order | None = None,
        request_options: RequestOptions | None = None,
    ) -> Iterator[ResoMediaFeed]:
        """Every page of the feed, the next one fetched only when the loop reaches it."""
        page = self.media(filter=filter, top=top, orderby=orderby, request_options=request_options)
        while True:
            yield page
            cursor = next_cursor(page)
            if cursor is None:
                return
            page = self.media(filter=filter, top=top, orderby=orderby, cursor=cursor, request_options=request_options)

    def iter_media(
        self,
        *,
        filter: str | None = None,
        top: int | None = None,
        orderby: Order | None = None,
        request_options: RequestOptions | None = None,
    ) -> Iterator[ResoMedia]:
        """Every record of the feed (``top`` is the page size), following ``@odata.nextLink``."""
        for page in self.iter_media_pages(filter=filter, top=top, orderby=orderby, request_options=request_options):
            yield from page.value


class AsyncReso(AsyncResoResource):
    """``lb.reso`` of AsyncLightbox: the same methods as Reso, with ``async for``."""

    async def iter_media_pages(
        self,
        *,
        filter: str | None = None,
        top: int | None = None,
        orderby: Order | None = None,
        request_options: RequestOptions | None = None,
    ) -> AsyncIterator[ResoMediaFeed]:
        """Every page of the feed, the next one fetched only when the loop reaches it."""
        page = await self.media(filter=filter, top=top, orderby=orderby, request_options=request_options)
        while True:
            yield page
            cursor = next_cursor(page)
            if cursor is None:
                return
            page = await self.media(
                filter=filter, top=top, orderby=orderby, cursor=cursor, request_options=request_options
            )

    async def iter_media(
        self,
        *,
        filter: str | None = None,
        top: int | None = None,
        orderby: Order | None = None,
        request_options: RequestOptions | None = None,
    ) -> AsyncIterator[ResoMedia]:
        """Every record of the feed (``top`` is the page size), following ``@odata.nextLink``."""
        async for page in self.iter_media_pages(filter=filter, top=top, orderby=orderby, request_options=request_options):
            for record in page.value:
                yield record
