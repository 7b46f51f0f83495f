"""Lightbox and AsyncLightbox: one surface, sync and async."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx

from ._core import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT, AsyncHTTP, SyncHTTP
from ._generated.resources import AsyncGeneratedResources, GeneratedResources
from ._models import RequestOptions
from ._webhooks import Webhooks
from ._reso import AsyncReso, Reso
from .resources import AsyncInvoices, AsyncListings, AsyncMedia, Invoices, Listings, Media

__all__ = ["Lightbox", "AsyncLightbox"]


def _settings(api_key: str | None, base_url: str | None) -> tuple[str, str]:
    return (
        api_key if api_key is not None else os.environ.get("LIGHTBOX_API_KEY", ""),
        base_url if base_url is not None else os.environ.get("LIGHTBOX_BASE_URL", ""),
    )


class Lightbox(GeneratedResources):
    """The Lightbox API, synchronously.

    ``Lightbox(api_key=..., base_url=..., max_retries=2, timeout=60.0)``; the key and URL default
    to ``LIGHTBOX_API_KEY`` and ``LIGHTBOX_BASE_URL``. ``timeout`` is seconds per attempt (connect,
    and each read or write of the answer). Use it as a context manager, or call ``close()``.
    """

    media: Media
    invoices: Invoices
    listings: Listings
    reso: Reso
    webhooks: Webhooks

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        key, url = _settings(api_key, base_url)
        self._http = SyncHTTP(
            api_key=key,
            base_url=url,
            max_retries=max_retries,
            timeout=timeout,
            headers=default_headers,
            http_client=http_client,
        )
        super().__init__(self._http)
        self.media = Media(self._http)
        self.invoices = Invoices(self._http)
        self.listings = Listings(self._http)
        self.reso = Reso(self._http)
        self.webhooks = Webhooks()

    @property
    def base_url(self) -> str:
        return self._http.base_url

    def openapi(self, *, request_options: RequestOptions | None = None) -> dict[str, Any]:
        """The API's OpenAPI 3.1 document (``GET /v1/openapi.json``)."""
        body: dict[str, Any] = self._http.send("GET", "/v1/openapi.json", options=request_options).json()
        return body

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Lightbox:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Lightbox(base_url={self.base_url!r})"


class AsyncLightbox(AsyncGeneratedResources):
    """The Lightbox API with ``await`` and ``async for``: the same surface as Lightbox."""

    media: AsyncMedia
    invoices: AsyncInvoices
    listings: AsyncListings
    reso: AsyncReso
    webhooks: Webhooks

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        key, url = _settings(api_key, base_url)
        self._http = AsyncHTTP(
            api_key=key,
            base_url=url,
            max_retries=max_retries,
            timeout=timeout,
            headers=default_headers,
            http_client=http_client,
        )
        super().__init__(self._http)
        self.media = AsyncMedia(self._http)
        self.invoices = AsyncInvoices(self._http)
        self.listings = AsyncListings(self._http)
        self.reso = AsyncReso(self._http)
        self.webhooks = Webhooks()

    @property
    def base_url(self) -> str:
        return self._http.base_url

    async def openapi(self, *, request_options: RequestOptions | None = None) -> dict[str, Any]:
        """The API's OpenAPI 3.1 document (``GET /v1/openapi.json``)."""
        body: dict[str, Any] = (await self._http.send("GET", "/v1/openapi.json", options=request_options)).json()
        return body

    async def close(self) -> None:
        await self._http.close()

    async def __aenter__(self) -> AsyncLightbox:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncLightbox(base_url={self.base_url!r})"
