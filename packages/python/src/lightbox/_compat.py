"""Early answers to uploads on httpcore older than 0.17 (Debian 12 ships httpx 0.23 on httpcore 0.16).

A server may refuse a request before it has read the body (a key it does not know, a rate limit,
a file that is not a photo, a file over the size limit) and close the connection. httpcore 0.17
and later then read the answer the server sent; httpcore 0.16 raises a WriteError instead, so a
refused 1 GiB upload surfaced as ConnectionError ("could not reach") and was retried, never as the
server's UnsupportedMediaTypeError or AuthenticationError.

``early_answers(client)`` and ``async_early_answers(client)`` give, on httpcore < 0.17 only, the
default transport of a client this library made HTTP/1.1 connections that do what later httpcore
does: a write error while sending the request is set aside and the answer is read (the async one
also keeps reading while it sends: anyio would otherwise leave the answer unread in a socket that
asyncio closes on the write error). On newer httpcore they change nothing. They reach into
httpcore 0.16's classes, which is why they are gated to those versions, and never touch a client
the caller passed in.
"""

from __future__ import annotations

from typing import Any

import httpcore
import httpx

__all__ = ["early_answers", "async_early_answers", "NEEDED"]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


NEEDED = _version(httpcore.__version__) < (0, 17)


def _wrap_connections(pool: Any, connection_cls: type, http11_cls: type, early_cls: type) -> None:
    """Makes ``pool`` hand out connections whose HTTP/1.1 side is ``early_cls``."""

    class Connection(connection_cls):  # type: ignore[misc]
        # HTTPConnection.handle_request assigns its HTTP11Connection here: swap in the subclass.
        @property
        def _connection(self) -> Any:
            return self.__dict__.get("_lightbox_connection")

        @_connection.setter
        def _connection(self, value: Any) -> None:
            if type(value) is http11_cls:
                value.__class__ = early_cls
            self.__dict__["_lightbox_connection"] = value

    class Pool(type(pool)):  # type: ignore[misc]
        def create_connection(self, origin: Any) -> Any:
            made = super().create_connection(origin)
            if type(made) is connection_cls:
                made.__class__ = Connection
            return made

    pool.__class__ = Pool


def early_answers(client: httpx.Client) -> bool:
    """Gives ``client``'s default transport httpcore 0.17's handling of early answers, on httpcore
    < 0.17; answers whether it did. (Its proxy transports, if any, are left as they are.)"""
    if not NEEDED:
        return False
    from httpcore._sync.connection import HTTPConnection
    from httpcore._sync.http11 import HTTP11Connection

    class EarlyAnswer(HTTP11Connection):
        def _send_request_body(self, request: Any) -> None:
            try:
                super()._send_request_body(request)
            except httpcore.WriteError:
                pass  # the server stopped reading: its answer follows (as httpcore >= 0.17 does)

    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if type(pool) is not httpcore.ConnectionPool:
        return False
    _wrap_connections(pool, HTTPConnection, HTTP11Connection, EarlyAnswer)
    return True


def async_early_answers(client: httpx.AsyncClient) -> bool:
    """early_answers for an httpx.AsyncClient on asyncio. anyio stops reading a socket while it
    is not asked for data, and asyncio closes it on a write error, which would lose the answer:
    so reading is resumed while the body is sent (the answer, if one comes early, is buffered)."""
    if not NEEDED:
        return False
    from httpcore._async.connection import AsyncHTTPConnection
    from httpcore._async.http11 import AsyncHTTP11Connection

    class EarlyAnswer(AsyncHTTP11Connection):
        async def _send_request_body(self, request: Any) -> None:
            transport = getattr(getattr(self._network_stream, "_stream", None), "_transport", None)
            if transport is not None and hasattr(transport, "resume_reading"):
                transport.resume_reading()
            try:
                await super()._send_request_body(request)
            except httpcore.WriteError:
                pass  # the server stopped reading: its answer follows (as httpcore >= 0.17 does)

    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if type(pool) is not httpcore.AsyncConnectionPool:
        return False
    _wrap_connections(pool, AsyncHTTPConnection, AsyncHTTP11Connection, EarlyAnswer)
    return True
