"""Webhook signature verification (Standard Webhooks, contract section 15), standard library only.

A delivery carries ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature``
(``v1,<base64 HMAC-SHA256>``, several separated by spaces while a rotated secret still signs).
The signed content is ``{id}.{timestamp}.{raw body}`` and the key is the base64 after ``whsec_``.
Pass the raw body exactly as received: a re-serialised body does not verify.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import WebhookVerificationError
from ._generated.models import Event

__all__ = ["verify_webhook", "Webhooks", "TOLERANCE_SECONDS"]

TOLERANCE_SECONDS = 5 * 60
_NAMES = ("webhook-id", "webhook-timestamp", "webhook-signature")

Headers = Mapping[str, str] | Mapping[str, list[str]] | Iterable[tuple[str, str]]


def _fail(message: str) -> WebhookVerificationError:
    return WebhookVerificationError(message, code="webhook_verification_failed")


def _pick(headers: Any) -> dict[str, str]:
    """The three headers, whatever the mapping's case (dict, httpx/werkzeug/Django headers, pairs)."""
    pairs: Iterable[Any] = headers.items() if hasattr(headers, "items") else headers
    found: dict[str, str] = {}
    for key, value in pairs:
        name = key.decode("latin-1") if isinstance(key, bytes) else str(key)
        name = name.lower().replace("_", "-")
        if name.startswith("http-"):  # WSGI environ / Django META spelling
            name = name[5:]
        if name in _NAMES:
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            found[name] = " ".join(value) if isinstance(value, (list, tuple)) else str(value)
    for name in _NAMES:
        if not found.get(name):
            raise _fail(f"missing {name} header")
    return found


def _key(secret: str) -> bytes:
    raw = secret[len("whsec_") :] if secret.startswith("whsec_") else secret
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _fail("the secret is not a whsec_ base64 secret") from exc


def verify_webhook(
    payload: str | bytes,
    headers: Any,
    secret: str,
    *,
    tolerance: int = TOLERANCE_SECONDS,
    now: float | None = None,
) -> Event:
    """Verifies a delivery and answers its event; raises WebhookVerificationError when the
    signature, the secret (``whsec_...``) or the timestamp (more than 5 minutes off) is wrong."""
    body = payload if isinstance(payload, bytes) else payload.encode("utf-8")
    picked = _pick(headers)
    msg_id, stamp, signatures = picked["webhook-id"], picked["webhook-timestamp"], picked["webhook-signature"]
    try:
        timestamp = int(stamp)
    except ValueError as exc:
        raise _fail("invalid webhook-timestamp header") from exc
    current = time.time() if now is None else now
    if timestamp < current - tolerance:
        raise _fail("message timestamp too old")
    if timestamp > current + tolerance:
        raise _fail("message timestamp too new")
    signed = msg_id.encode("utf-8") + b"." + stamp.encode("ascii") + b"." + body
    expected = base64.b64encode(hmac.new(_key(secret), signed, hashlib.sha256).digest())
    for candidate in signatures.split(" "):
        version, _, signature = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(signature.encode("ascii", "replace"), expected):
            break
    else:
        raise _fail("no matching signature found")
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise _fail("the payload is not JSON") from exc
    if not isinstance(data, dict):
        raise _fail("the payload is not an event object")
    return Event.from_dict(data)


class Webhooks:
    """``lb.webhooks``: verification needs no network, so sync and async clients share it."""

    def verify(self, payload: str | bytes, headers: Any, secret: str, *, tolerance: int = TOLERANCE_SECONDS) -> Event:
        return verify_webhook(payload, headers, secret, tolerance=tolerance)
