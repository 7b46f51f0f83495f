"""The HTTP engine under every resource, sync (SyncHTTP) and async (AsyncHTTP), on httpx.

One request per attempt; typed errors; bounded retries. Retried: connection failures, timeouts,
429 and 503 (after ``Retry-After`` when the server sends one, up to a minute; a longer wait is
raised at once) and other 5xx (exponential backoff from 0.5 s, doubling, capped at 8 s, scaled by
a random 50-100%). Other 4xx are never retried. A POST is retried only with an Idempotency-Key:
one is generated for every POST unless the caller passes one, and the same key is sent on every
attempt, so a POST whose answer was lost is replayed by the server, not done twice. PATCH, PUT
and DELETE are idempotent in this API. A body that can only be read once (a stream that cannot be
rewound) is never retried.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import urljoin, urlsplit

import httpx

from . import _errors as errors
from ._compat import async_early_answers, early_answers
from ._generated.models import Pagination
from ._models import Model, NotModified, RequestOptions, ResponseInfo
from ._pagination import AsyncPage, SyncPage

M = TypeVar("M", bound=Model)

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2
MAX_RETRY_AFTER_SECONDS = 60.0
VERSION = "0.1.0"

SyncContent = Callable[[], bytes | Iterable[bytes]]
AsyncContent = Callable[[], bytes | AsyncIterable[bytes]]


def _query(query: Mapping[str, Any] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in (query or {}).items():
        if value is None:
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out


class _Base:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        max_retries: int,
        timeout: float,
        headers: Mapping[str, str] | None,
    ) -> None:
        if not api_key:
            raise ValueError("an API key is required: pass api_key= or set LIGHTBOX_API_KEY")
        if not base_url:
            raise ValueError("a base URL is required: pass base_url= or set LIGHTBOX_BASE_URL")
        self._api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.default_headers = dict(headers or {})
        self.random: Callable[[], float] = random.random

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}(base_url={self.base_url!r})"

    def url(self, path: str) -> str:
        if path.startswith(("http://", "https://")):
            return path
        return self.base_url + path

    def same_origin(self, location: str) -> str:
        """A URL the server handed out (a Location), resolved; refused unless on the API's origin."""
        url = urljoin(self.base_url + "/", location)
        mine, theirs = urlsplit(self.base_url), urlsplit(url)
        if (mine.scheme, mine.netloc) != (theirs.scheme, theirs.netloc):
            raise ValueError(f"refusing to send the API key to {theirs.scheme}://{theirs.netloc}")
        return url

    def headers(
        self, method: str, options: RequestOptions | None, extra: Mapping[str, str] | None
    ) -> dict[str, str]:
        headers = {
            "accept": "application/json",
            "user-agent": f"lightbox-python/{VERSION} httpx/{httpx.__version__}",
            **self.default_headers,
            **(extra or {}),
        }
        headers.update((options or {}).get("headers", {}))
        headers["authorization"] = f"Bearer {self._api_key}"
        lower = {k.lower() for k in headers}
        if method == "POST" and "idempotency-key" not in lower:
            headers["idempotency-key"] = (options or {}).get("idempotency_key") or str(uuid.uuid4())
        return headers

    def attempts(self, options: RequestOptions | None, replayable: bool) -> int:
        if not replayable:
            return 0
        value = (options or {}).get("max_retries")
        return self.max_retries if value is None else value

    def attempt_timeout(self, options: RequestOptions | None) -> float:
        value = (options or {}).get("timeout")
        return self.timeout if value is None else value

    def backoff(self, attempt: int) -> float:
        """0.5 s, 1 s, 2 s ... capped at 8 s, each scaled by a random 50-100% (jitter)."""
        return float(min(8.0, 0.5 * 2**attempt) * (0.5 + self.random() / 2))

    def retry_delay(self, status: int, headers: httpx.Headers, attempt: int) -> float | None:
        """Seconds to wait before retrying an answer of ``status``, or None when it is final."""
        if status in (429, 503):
            after = errors.retry_after_seconds(headers)
            if after is not None:
                return None if after > MAX_RETRY_AFTER_SECONDS else after
            return self.backoff(attempt)
        if status >= 500:
            return self.backoff(attempt)
        return None

    def transport_error(self, exc: Exception, timeout: float) -> errors.LightboxError:
        if isinstance(exc, httpx.TimeoutException):
            return errors.TimeoutError(f"no answer within {timeout} s ({type(exc).__name__})", code="timeout")
        return errors.ConnectionError(
            f"could not reach {self.base_url}: {type(exc).__name__}: {exc}", code="connection_error"
        )

    def _parse_page(self, response: httpx.Response, item: type[M]) -> tuple[list[M], Pagination, ResponseInfo]:
        body = response.json()
        info = ResponseInfo.of(response)
        data = [item.from_dict(x) for x in body.get("data", [])]
        return data, Pagination.from_dict(body.get("pagination", {})), info

    @staticmethod
    def _model(response: httpx.Response, cast: type[M]) -> M:
        value = cast.from_dict(response.json())
        object.__setattr__(value, "last_response", ResponseInfo.of(response))
        return value


class SyncHTTP(_Base):
    def __init__(self, *, http_client: httpx.Client | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        self.client = http_client or httpx.Client(timeout=self.timeout, follow_redirects=False)
        if http_client is None:
            early_answers(self.client)

    def close(self) -> None:
        if self._owns_client:
            self.client.close()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content: SyncContent | None = None,
        headers: Mapping[str, str] | None = None,
        options: RequestOptions | None = None,
        accept: tuple[int, ...] = (),
        stream: bool = False,
        replayable: bool = True,
    ) -> httpx.Response:
        """Sends a request with its retries and answers the final response; errors are raised."""
        all_headers = self.headers(method, options, headers)
        max_retries = self.attempts(options, replayable)
        timeout = self.attempt_timeout(options)
        url, params = self.url(path), _query({**(query or {}), **(options or {}).get("extra_query", {})})
        attempt = 0
        while True:
            try:
                request = self.client.build_request(
                    method,
                    url,
                    params=params,
                    headers=all_headers,
                    json=body,
                    content=None if content is None else content(),
                    timeout=timeout,
                )
                response = self.client.send(request, stream=stream)
            except httpx.TransportError as exc:
                error = self.transport_error(exc, timeout)
                if attempt >= max_retries:
                    raise error from exc
                time.sleep(self.backoff(attempt))
                attempt += 1
                continue
            if response.status_code < 400 or response.status_code in accept:
                return response
            response.read()
            response.close()
            error = errors.error_from_response(response.status_code, response.headers, response.content)
            wait = self.retry_delay(response.status_code, response.headers, attempt)
            if wait is None or attempt >= max_retries:
                raise error
            time.sleep(wait)
            attempt += 1

    def request_model(
        self,
        method: str,
        path: str,
        *,
        cast: type[M],
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> M:
        return self._model(self.send(method, path, query=query, body=body, options=options), cast)

    def get_model(
        self,
        path: str,
        *,
        cast: type[M],
        query: Mapping[str, Any] | None = None,
        options: RequestOptions | None = None,
        if_none_match: str | None = None,
    ) -> M | NotModified:
        extra = {"if-none-match": if_none_match} if if_none_match is not None else None
        response = self.send("GET", path, query=query, headers=extra, options=options, accept=(304,))
        if response.status_code == 304:
            return NotModified(ResponseInfo.of(response))
        return self._model(response, cast)

    def request_none(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> None:
        self.send(method, path, query=query, body=body, options=options)

    def _page(
        self,
        method: str,
        path: str,
        item: type[M],
        query: Mapping[str, Any],
        body: Any,
        options: RequestOptions | None,
        if_none_match: str | None,
    ) -> SyncPage[M] | NotModified:
        extra = {"if-none-match": if_none_match} if if_none_match is not None else None
        response = self.send(method, path, query=query, body=body, headers=extra, options=options, accept=(304,))
        if response.status_code == 304:
            return NotModified(ResponseInfo.of(response))
        data, pagination, info = self._parse_page(response, item)

        def fetch(next_query: dict[str, Any]) -> SyncPage[M]:
            page = self._page("GET", path, item, next_query, None, options, None)
            assert isinstance(page, SyncPage)
            return page

        return SyncPage(data, pagination, query, info, fetch)

    def get_page(
        self,
        path: str,
        *,
        item: type[M],
        query: Mapping[str, Any] | None = None,
        options: RequestOptions | None = None,
        if_none_match: str | None = None,
    ) -> SyncPage[M] | NotModified:
        return self._page("GET", path, item, _query(query), None, options, if_none_match)

    def request_page(
        self,
        method: str,
        path: str,
        *,
        item: type[M],
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> SyncPage[M]:
        page = self._page(method, path, item, _query(query), body, options, None)
        assert isinstance(page, SyncPage)
        return page


class AsyncHTTP(_Base):
    def __init__(self, *, http_client: httpx.AsyncClient | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._owns_client = http_client is None
        self.client = http_client or httpx.AsyncClient(timeout=self.timeout, follow_redirects=False)
        if http_client is None:
            async_early_answers(self.client)

    async def close(self) -> None:
        if self._owns_client:
            await self.client.aclose()

    async def send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content: AsyncContent | None = None,
        headers: Mapping[str, str] | None = None,
        options: RequestOptions | None = None,
        accept: tuple[int, ...] = (),
        stream: bool = False,
        replayable: bool = True,
    ) -> httpx.Response:
        """Sends a request with its retries and answers the final response; errors are raised."""
        all_headers = self.headers(method, options, headers)
        max_retries = self.attempts(options, replayable)
        timeout = self.attempt_timeout(options)
        url, params = self.url(path), _query({**(query or {}), **(options or {}).get("extra_query", {})})
        attempt = 0
        while True:
            try:
                request = self.client.build_request(
                    method,
                    url,
                    params=params,
                    headers=all_headers,
                    json=body,
                    content=None if content is None else content(),
                    timeout=timeout,
                )
                response = await self.client.send(request, stream=stream)
            except httpx.TransportError as exc:
                error = self.transport_error(exc, timeout)
                if attempt >= max_retries:
                    raise error from exc
                await asyncio.sleep(self.backoff(attempt))
                attempt += 1
                continue
            if response.status_code < 400 or response.status_code in accept:
                return response
            await response.aread()
            await response.aclose()
            error = errors.error_from_response(response.status_code, response.headers, response.content)
            wait = self.retry_delay(response.status_code, response.headers, attempt)
            if wait is None or attempt >= max_retries:
                raise error
            await asyncio.sleep(wait)
            attempt += 1

    async def request_model(
        self,
        method: str,
        path: str,
        *,
        cast: type[M],
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> M:
        return self._model(await self.send(method, path, query=query, body=body, options=options), cast)

    async def get_model(
        self,
        path: str,
        *,
        cast: type[M],
        query: Mapping[str, Any] | None = None,
        options: RequestOptions | None = None,
        if_none_match: str | None = None,
    ) -> M | NotModified:
        extra = {"if-none-match": if_none_match} if if_none_match is not None else None
        response = await self.send("GET", path, query=query, headers=extra, options=options, accept=(304,))
        if response.status_code == 304:
            return NotModified(ResponseInfo.of(response))
        return self._model(response, cast)

    async def request_none(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> None:
        await self.send(method, path, query=query, body=body, options=options)

    async def _page(
        self,
        method: str,
        path: str,
        item: type[M],
        query: Mapping[str, Any],
        body: Any,
        options: RequestOptions | None,
        if_none_match: str | None,
    ) -> AsyncPage[M] | NotModified:
        extra = {"if-none-match": if_none_match} if if_none_match is not None else None
        response = await self.send(
            method, path, query=query, body=body, headers=extra, options=options, accept=(304,)
        )
        if response.status_code == 304:
            return NotModified(ResponseInfo.of(response))
        data, pagination, info = self._parse_page(response, item)

        async def fetch(next_query: dict[str, Any]) -> AsyncPage[M]:
            page = await self._page("GET", path, item, next_query, None, options, None)
            assert isinstance(page, AsyncPage)
            return page

        return AsyncPage(data, pagination, query, info, fetch)

    async def get_page(
        self,
        path: str,
        *,
        item: type[M],
        query: Mapping[str, Any] | None = None,
        options: RequestOptions | None = None,
        if_none_match: str | None = None,
    ) -> AsyncPage[M] | NotModified:
        return await self._page("GET", path, item, _query(query), None, options, if_none_match)

    async def request_page(
        self,
        method: str,
        path: str,
        *,
        item: type[M],
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        options: RequestOptions | None = None,
    ) -> AsyncPage[M]:
        page = await self._page(method, path, item, _query(query), body, options, None)
        assert isinstance(page, AsyncPage)
        return page
