"""Every error the library raises is a LightboxError.

An error answer of the API becomes the subclass of its ``error.code`` (NotFoundError for
``not_found``, ...), keeping the server's message, details and request id; a code this version
does not know falls back to the class of its HTTP status, else a plain LightboxError with that
code. Failures before any answer are ConnectionError and TimeoutError. The names follow the
TypeScript client's (ConnectionError, TimeoutError and PermissionError deliberately shadow the
builtins inside this namespace: use them as ``lightbox.ConnectionError``).
"""

from __future__ import annotations

import builtins
import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

import httpx

__all__ = [
    "LightboxError",
    "ValidationError",
    "AuthenticationError",
    "PermissionError",
    "NotFoundError",
    "MethodNotAllowedError",
    "RequestTimeoutError",
    "ConflictError",
    "PreconditionFailedError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "RangeNotSatisfiableError",
    "UnprocessableEntityError",
    "FetchFailedError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "ConnectionError",
    "TimeoutError",
    "WebhookVerificationError",
]


class LightboxError(Exception):
    """Base of every error: ``status`` (None when no answer came), ``code``, ``message``,
    ``details`` (one ``{"field", "message"}`` per refused field), ``request_id``."""

    status: int | None
    code: str
    message: str
    details: list[dict[str, Any]]
    request_id: str | None
    headers: httpx.Headers | None

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str = "error",
        details: list[dict[str, Any]] | None = None,
        request_id: str | None = None,
        headers: httpx.Headers | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details if details is not None else []
        self.request_id = request_id
        self.headers = headers

    def __str__(self) -> str:
        parts = [self.message]
        if self.status is not None:
            parts.append(f"(status {self.status}, code {self.code}")
            parts[-1] += f", request {self.request_id})" if self.request_id else ")"
        return " ".join(parts)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, request_id={self.request_id!r})"
        )


class ValidationError(LightboxError):
    """400 ``validation_error`` or ``invalid_json``: ``details`` names each refused field."""


class AuthenticationError(LightboxError):
    """401 ``unauthorized``: the API key is missing, unknown, revoked or expired."""


class PermissionError(LightboxError):  # noqa: A001 - the TypeScript client's name
    """403 ``forbidden``: the key's scope does not allow this (a read-only key on a write)."""


class NotFoundError(LightboxError):
    """404 ``not_found``: no such resource in this account."""


class MethodNotAllowedError(LightboxError):
    """405 ``method_not_allowed``."""


class RequestTimeoutError(LightboxError):
    """408 ``request_timeout``: the server gave up waiting for the request's body."""


class ConflictError(LightboxError):
    """409 ``conflict``: a duplicate email, an Idempotency-Key reused or still running, a tus offset."""


class PreconditionFailedError(LightboxError):
    """412 ``precondition_failed``."""


class PayloadTooLargeError(LightboxError):
    """413 ``payload_too_large``."""


class UnsupportedMediaTypeError(LightboxError):
    """415 ``unsupported_media_type``: not a photo, video or document, or a wrong content type."""


class RangeNotSatisfiableError(LightboxError):
    """416 ``range_not_satisfiable``."""


class UnprocessableEntityError(LightboxError):
    """422: a well-formed request the server cannot carry out (a 422 code this version does not know)."""


class FetchFailedError(UnprocessableEntityError):
    """422 ``fetch_failed``: media from a URL whose fetch failed (no answer, a non-2xx, a cut, a stall)."""


class RateLimitError(LightboxError):
    """429 ``rate_limited`` after the retries: ``retry_after`` is the server's wait in seconds."""

    @property
    def retry_after(self) -> float | None:
        return retry_after_seconds(self.headers)


class InternalServerError(LightboxError):
    """500 ``internal_error`` (and other 5xx without a code of their own)."""


class ServiceUnavailableError(LightboxError):
    """503 ``unavailable``: shutting down, or the database is unreachable."""


class ConnectionError(LightboxError):  # noqa: A001
    """No answer: the connection was refused, reset or cut (``code`` ``connection_error``)."""


class TimeoutError(LightboxError):  # noqa: A001
    """No answer within the timeout (``code`` ``timeout``)."""


class WebhookVerificationError(LightboxError):
    """A webhook delivery whose signature, secret or timestamp is wrong (``webhook_verification_failed``)."""


_BY_CODE: dict[str, type[LightboxError]] = {
    "validation_error": ValidationError,
    "invalid_json": ValidationError,
    "headers_too_large": ValidationError,
    "unauthorized": AuthenticationError,
    "forbidden": PermissionError,
    "not_found": NotFoundError,
    "method_not_allowed": MethodNotAllowedError,
    "request_timeout": RequestTimeoutError,
    "conflict": ConflictError,
    "precondition_failed": PreconditionFailedError,
    "payload_too_large": PayloadTooLargeError,
    "unsupported_media_type": UnsupportedMediaTypeError,
    "range_not_satisfiable": RangeNotSatisfiableError,
    "fetch_failed": FetchFailedError,
    "rate_limited": RateLimitError,
    "internal_error": InternalServerError,
    "unavailable": ServiceUnavailableError,
}

# Codes the API may add later, and bodies that are not the API's (a proxy's 502), by status.
_BY_STATUS: dict[int, type[LightboxError]] = {
    400: ValidationError,
    401: AuthenticationError,
    403: PermissionError,
    404: NotFoundError,
    405: MethodNotAllowedError,
    408: RequestTimeoutError,
    409: ConflictError,
    412: PreconditionFailedError,
    413: PayloadTooLargeError,
    415: UnsupportedMediaTypeError,
    416: RangeNotSatisfiableError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    503: ServiceUnavailableError,
}


def error_class(code: str, status: int) -> type[LightboxError]:
    cls = _BY_CODE.get(code) or _BY_STATUS.get(status)
    if cls is None and status >= 500:
        return InternalServerError
    return cls or LightboxError


def error_from_response(status: int, headers: httpx.Headers, content: bytes) -> LightboxError:
    """The error for an answer of status >= 400, from its body (which may not be JSON)."""
    body: Any
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    err: Mapping[str, Any] = {}
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
    code = err.get("code") if isinstance(err.get("code"), str) else f"http_{status}"
    text = content[:200].decode("utf-8", "replace")
    message = err.get("message")
    if not isinstance(message, str) or message == "":
        message = f"HTTP {status}" + (f": {text}" if text else "")
    request_id = err.get("request_id")
    if not isinstance(request_id, str):
        request_id = headers.get("x-request-id")
    details = err.get("details")
    cls = error_class(str(code), status)
    return cls(
        message,
        status=status,
        code=str(code),
        details=list(details) if isinstance(details, builtins.list) else [],
        request_id=request_id,
        headers=headers,
    )


def retry_after_seconds(headers: httpx.Headers | Mapping[str, str] | None) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date), or None."""
    if headers is None:
        return None
    value = headers.get("retry-after")
    if value is None or value.strip() == "":
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - time.time())
