"""Hand-written methods: the operations whose transport is not plain JSON.

The generated classes (``_generated/resources.py``) carry every JSON operation; the classes here
extend them with multipart uploads, media from a URL, resumable (tus) uploads and byte downloads
(a medium's bytes, an invoice's PDF, a listing kit's items). The RESO feed's walk is in ``_reso.py``.
To add a hand-written operation: write the sync and the async method here, and name it in
HAND_WRITTEN in ``scripts/generate.py`` (the generator's check fails until both exist).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Literal

from ._generated.models import Media as MediaObject
from ._generated.resources import (
    AsyncInvoicesResource,
    AsyncListingsResource,
    AsyncMediaResource,
    InvoicesResource,
    ListingsResource,
    MediaResource,
)
from ._models import NOT_GIVEN, NotGiven, RequestOptions
from ._resource import _body, _seg
from ._uploads import (
    DEFAULT_CHUNK_SIZE,
    TUS,
    FileInput,
    Multipart,
    ProgressCallback,
    UploadCapabilities,
    capabilities,
    upload_resumable,
    upload_resumable_async,
)

__all__ = ["Media", "AsyncMedia", "Invoices", "AsyncInvoices", "Listings", "AsyncListings"]

VariantName = Literal["thumb", "large", "mls", "poster", "web"]
KitItemName = Literal[
    "mls_zip",
    "flyer",
    "social_square",
    "social_portrait",
    "social_story",
    "slideshow",
    "slideshow_unbranded",
    "reel",
    "teaser",
]
Destination = str | os.PathLike[str] | IO[bytes]


def _files(files: Sequence[FileInput] | FileInput) -> list[FileInput]:
    if isinstance(files, list):
        return files
    if isinstance(files, (str, bytes, bytearray, memoryview, os.PathLike, tuple)) or hasattr(files, "read"):
        return [files]  # type: ignore[list-item]
    return list(files)


def _write(destination: Destination, blocks: Iterator[bytes]) -> int:
    written = 0
    if isinstance(destination, (str, os.PathLike)):
        with open(destination, "wb") as out:
            for block in blocks:
                written += out.write(block)
    else:
        for block in blocks:
            written += destination.write(block)
    return written


def _media_list(body: object) -> list[MediaObject]:
    data = body.get("data", []) if isinstance(body, dict) else []
    return [MediaObject.from_dict(m) for m in data]


class Media(MediaResource):
    """``lb.media``: a gallery's photos, videos and documents."""

    def upload(
        self,
        listing_id: str,
        files: Sequence[FileInput] | FileInput,
        *,
        request_options: RequestOptions | None = None,
    ) -> list[MediaObject]:
        """Uploads files in one multipart request, all or nothing, streamed (``POST /v1/listings/{id}/media``).

        Each file is a path, bytes, an open binary file or a ``(filename, data)`` pair.
        """
        body = Multipart(_files(files))
        res = self._http.send(
            "POST",
            f"/v1/listings/{_seg(listing_id)}/media",
            headers=body.headers,
            content=lambda: iter(body),
            options=request_options,
            replayable=body.replayable,
        )
        return _media_list(res.json())

    def upload_from_url(
        self,
        listing_id: str,
        url: str,
        *,
        filename: str | NotGiven = NOT_GIVEN,
        request_options: RequestOptions | None = None,
    ) -> list[MediaObject]:
        """Makes the service fetch a file from ``url`` (docs/api.md §21; servers without it refuse)."""
        res = self._http.send(
            "POST",
            f"/v1/listings/{_seg(listing_id)}/media",
            body=_body({"url": url, "filename": filename}),
            options=request_options,
        )
        return _media_list(res.json())

    def upload_resumable(
        self,
        listing_id: str,
        file: FileInput,
        *,
        filename: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_progress: ProgressCallback | None = None,
        upload_url: str | None = None,
        on_upload_url: Callable[[str], object] | None = None,
        request_options: RequestOptions | None = None,
    ) -> MediaObject:
        """Uploads one file over tus 1.0, resuming after cut connections; answers the media made.

        ``on_progress(sent, total)`` is called after each acknowledged chunk. ``on_upload_url(url)``
        hands out the upload's URL: pass it back as ``upload_url`` to resume after a restart.
        """
        return upload_resumable(
            self._http,
            listing_id,
            file,
            filename=filename,
            chunk_size=chunk_size,
            on_progress=on_progress,
            upload_url=upload_url,
            on_upload_url=on_upload_url,
            options=request_options,
        )

    def abandon_upload(self, upload_url: str, *, request_options: RequestOptions | None = None) -> None:
        """Removes an unfinished resumable upload (tus termination): its URL answers 404 from then on."""
        self._http.send("DELETE", self._http.same_origin(upload_url), headers=TUS, options=request_options)

    def describe_uploads(
        self, listing_id: str, *, request_options: RequestOptions | None = None
    ) -> UploadCapabilities:
        """The server's tus version, extensions and per-file size limit (``OPTIONS .../uploads``)."""
        res = self._http.send("OPTIONS", f"/v1/listings/{_seg(listing_id)}/uploads", options=request_options)
        return capabilities(res.headers)

    def download(
        self,
        listing_id: str,
        media_id: str,
        *,
        range: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """The media's bytes (or the ``range``, e.g. ``"bytes=0-99"``), in memory: see ``download_to``."""
        headers = {"range": range} if range else None
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/content"
        return self._http.send("GET", path, headers=headers, options=request_options).content

    def download_to(
        self,
        listing_id: str,
        media_id: str,
        destination: Destination,
        *,
        request_options: RequestOptions | None = None,
    ) -> int:
        """Streams the media's bytes to a path or an open binary file; answers the number written."""
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/content"
        res = self._http.send("GET", path, options=request_options, stream=True)
        written = 0
        try:
            if isinstance(destination, (str, os.PathLike)):
                with open(destination, "wb") as out:
                    for block in res.iter_bytes():
                        written += out.write(block)
            else:
                for block in res.iter_bytes():
                    written += destination.write(block)
        finally:
            res.close()
        return written

    def download_variant(
        self,
        listing_id: str,
        media_id: str,
        name: VariantName,
        *,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """A photo's ``thumb``, ``large`` or ``mls`` variant, a video's ``poster`` or ``web``.

        NotFoundError until it is ready."""
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/variants/{_seg(name)}"
        return self._http.send("GET", path, options=request_options).content


class AsyncMedia(AsyncMediaResource):
    """``lb.media`` of AsyncLightbox: the same methods as Media, awaited."""

    async def upload(
        self,
        listing_id: str,
        files: Sequence[FileInput] | FileInput,
        *,
        request_options: RequestOptions | None = None,
    ) -> list[MediaObject]:
        """Uploads files in one multipart request, all or nothing, streamed."""
        body = Multipart(_files(files))
        res = await self._http.send(
            "POST",
            f"/v1/listings/{_seg(listing_id)}/media",
            headers=body.headers,
            content=body.aiter,
            options=request_options,
            replayable=body.replayable,
        )
        return _media_list(res.json())

    async def upload_from_url(
        self,
        listing_id: str,
        url: str,
        *,
        filename: str | NotGiven = NOT_GIVEN,
        request_options: RequestOptions | None = None,
    ) -> list[MediaObject]:
        """Makes the service fetch a file from ``url`` (docs/api.md §21)."""
        res = await self._http.send(
            "POST",
            f"/v1/listings/{_seg(listing_id)}/media",
            body=_body({"url": url, "filename": filename}),
            options=request_options,
        )
        return _media_list(res.json())

    async def upload_resumable(
        self,
        listing_id: str,
        file: FileInput,
        *,
        filename: str | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        on_progress: ProgressCallback | None = None,
        upload_url: str | None = None,
        on_upload_url: Callable[[str], object] | None = None,
        request_options: RequestOptions | None = None,
    ) -> MediaObject:
        """Uploads one file over tus 1.0, resuming after cut connections; answers the media made."""
        return await upload_resumable_async(
            self._http,
            listing_id,
            file,
            filename=filename,
            chunk_size=chunk_size,
            on_progress=on_progress,
            upload_url=upload_url,
            on_upload_url=on_upload_url,
            options=request_options,
        )

    async def abandon_upload(self, upload_url: str, *, request_options: RequestOptions | None = None) -> None:
        """Removes an unfinished resumable upload (tus termination)."""
        await self._http.send("DELETE", self._http.same_origin(upload_url), headers=TUS, options=request_options)

    async def describe_uploads(
        self, listing_id: str, *, request_options: RequestOptions | None = None
    ) -> UploadCapabilities:
        """The server's tus version, extensions and per-file size limit."""
        res = await self._http.send("OPTIONS", f"/v1/listings/{_seg(listing_id)}/uploads", options=request_options)
        return capabilities(res.headers)

    async def download(
        self,
        listing_id: str,
        media_id: str,
        *,
        range: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """The media's bytes (or the ``range``), in memory: see ``download_to``."""
        headers = {"range": range} if range else None
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/content"
        return (await self._http.send("GET", path, headers=headers, options=request_options)).content

    async def download_to(
        self,
        listing_id: str,
        media_id: str,
        destination: Destination,
        *,
        request_options: RequestOptions | None = None,
    ) -> int:
        """Streams the media's bytes to a path or an open binary file; answers the number written."""
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/content"
        res = await self._http.send("GET", path, options=request_options, stream=True)
        written = 0
        try:
            if isinstance(destination, (str, os.PathLike)):
                with open(destination, "wb") as out:
                    async for block in res.aiter_bytes():
                        written += out.write(block)
            else:
                async for block in res.aiter_bytes():
                    written += destination.write(block)
        finally:
            await res.aclose()
        return written

    async def download_variant(
        self,
        listing_id: str,
        media_id: str,
        name: VariantName,
        *,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """A photo's ``thumb``, ``large`` or ``mls`` variant, a video's ``poster`` or ``web``."""
        path = f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}/variants/{_seg(name)}"
        return (await self._http.send("GET", path, options=request_options)).content


PDF = {"accept": "application/pdf"}


class Invoices(InvoicesResource):
    """``lb.invoices``: invoices of a gallery's client, their payments and PDF (docs/api.md §29).

    Every amount is an integer in the account currency's minor unit (2500 is 25.00)."""

    def download_pdf(self, id: str, *, request_options: RequestOptions | None = None) -> bytes:
        """The invoice as a PDF (``GET /v1/invoices/{id}/pdf``), in memory: see ``download_pdf_to``."""
        return self._http.send("GET", f"/v1/invoices/{_seg(id)}/pdf", headers=PDF, options=request_options).content

    def download_pdf_to(
        self, id: str, destination: Destination, *, request_options: RequestOptions | None = None
    ) -> int:
        """Streams the invoice's PDF to a path or an open binary file; answers the number written."""
        res = self._http.send("GET", f"/v1/invoices/{_seg(id)}/pdf", headers=PDF, options=request_options, stream=True)
        try:
            return _write(destination, res.iter_bytes())
        finally:
            res.close()


class AsyncInvoices(AsyncInvoicesResource):
    """``lb.invoices`` of AsyncLightbox: the same methods as Invoices, awaited."""

    async def download_pdf(self, id: str, *, request_options: RequestOptions | None = None) -> bytes:
        """The invoice as a PDF (``GET /v1/invoices/{id}/pdf``), in memory: see ``download_pdf_to``."""
        path = f"/v1/invoices/{_seg(id)}/pdf"
        return (await self._http.send("GET", path, headers=PDF, options=request_options)).content

    async def download_pdf_to(
        self, id: str, destination: Destination, *, request_options: RequestOptions | None = None
    ) -> int:
        """Streams the invoice's PDF to a path or an open binary file; answers the number written."""
        path = f"/v1/invoices/{_seg(id)}/pdf"
        res = await self._http.send("GET", path, headers=PDF, options=request_options, stream=True)
        written = 0
        try:
            if isinstance(destination, (str, os.PathLike)):
                with open(destination, "wb") as out:
                    async for block in res.aiter_bytes():
                        written += out.write(block)
            else:
                async for block in res.aiter_bytes():
                    written += destination.write(block)
        finally:
            await res.aclose()
        return written


def _kit_item(id: str, name: str) -> str:
    return f"/v1/listings/{_seg(id)}/kit/{_seg(name)}"


class Listings(ListingsResource):
    """``lb.listings``: galleries, their links, compliance and listing kit (docs/api.md §32)."""

    def download_kit_item(
        self,
        id: str,
        name: KitItemName,
        *,
        range: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """A built kit item's bytes (``GET /v1/listings/{id}/kit/{name}``), in memory: see ``download_kit_item_to``.

        ``name`` is ``mls_zip``, ``flyer``, ``social_square``, ``social_portrait``, ``social_story``,
        ``slideshow``, ``slideshow_unbranded``, ``reel`` or ``teaser``; NotFoundError until it is made."""
        headers = {"range": range} if range else None
        return self._http.send("GET", _kit_item(id, name), headers=headers, options=request_options).content

    def download_kit_item_to(
        self,
        id: str,
        name: KitItemName,
        destination: Destination,
        *,
        request_options: RequestOptions | None = None,
    ) -> int:
        """Streams a kit item (a video may be large) to a path or an open binary file; answers the number written."""
        res = self._http.send("GET", _kit_item(id, name), options=request_options, stream=True)
        try:
            return _write(destination, res.iter_bytes())
        finally:
            res.close()


class AsyncListings(AsyncListingsResource):
    """``lb.listings`` of AsyncLightbox: the same methods as Listings, awaited."""

    async def download_kit_item(
        self,
        id: str,
        name: KitItemName,
        *,
        range: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> bytes:
        """A built kit item's bytes, in memory: see ``download_kit_item_to``."""
        headers = {"range": range} if range else None
        return (await self._http.send("GET", _kit_item(id, name), headers=headers, options=request_options)).content

    async def download_kit_item_to(
        self,
        id: str,
        name: KitItemName,
        destination: Destination,
        *,
        request_options: RequestOptions | None = None,
    ) -> int:
        """Streams a kit item to a path or an open binary file; answers the number written."""
        res = await self._http.send("GET", _kit_item(id, name), options=request_options, stream=True)
        written = 0
        try:
            if isinstance(destination, (str, os.PathLike)):
                with open(destination, "wb") as out:
                    async for block in res.aiter_bytes():
                        written += out.write(block)
            else:
                async for block in res.aiter_bytes():
                    written += destination.write(block)
        finally:
            await res.aclose()
        return written
