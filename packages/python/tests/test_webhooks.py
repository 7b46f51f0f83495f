"""Verification of a real delivery from the server to a receiver on loopback."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time

import pytest

import lightbox
from lightbox import Lightbox
from support import Receiver


def test_a_real_delivery_verifies(lb: Lightbox) -> None:
    receiver = Receiver()
    try:
        endpoint = lb.webhook_endpoints.create(url=receiver.url, events=["listing.created"])
        gallery = lb.listings.create(address="1 Webhook Wharf")
        receiver.wait(1)
        body, headers = receiver.deliveries[0]
        event = lb.webhooks.verify(body, headers, endpoint.secret)
        assert isinstance(event, lightbox.Event)
        assert event.type == "listing.created" and event.data.object.id == gallery.id
        assert event.id == headers["webhook-id"]
        # Headers matched case-insensitively, as frameworks spell them.
        upper = {k.upper(): v for k, v in headers.items()}
        assert lightbox.verify_webhook(body.decode(), upper, endpoint.secret).id == event.id
        environ = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}
        assert lb.webhooks.verify(body, environ, endpoint.secret).id == event.id

        with pytest.raises(lightbox.WebhookVerificationError) as caught:
            lb.webhooks.verify(body.replace(b"Wharf", b"Wharg"), headers, endpoint.secret)
        assert caught.value.code == "webhook_verification_failed" and caught.value.status is None
        other = lb.webhook_endpoints.rotate_secret(endpoint.id).secret
        with pytest.raises(lightbox.WebhookVerificationError):
            lb.webhooks.verify(body, headers, other)
        with pytest.raises(lightbox.WebhookVerificationError):
            lb.webhooks.verify(body, {k: v for k, v in headers.items() if k.lower() != "webhook-signature"}, endpoint.secret)

        deliveries = lb.webhook_endpoints.deliveries(endpoint.id)
        assert deliveries.data[0].event_id == event.id
        lb.webhook_endpoints.retry(endpoint.id, deliveries.data[0].id)
        lb.webhook_endpoints.test(endpoint.id)
        receiver.wait(3)
        types = {json.loads(b)["type"] for b, _ in receiver.deliveries}
        assert types == {"listing.created", "webhook.test"}
        lb.webhook_endpoints.delete(endpoint.id)
    finally:
        receiver.close()


def _sign(secret: str, msg_id: str, stamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    mac = hmac.new(key, f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def test_timestamps_outside_five_minutes_are_refused() -> None:
    secret = "whsec_" + base64.b64encode(b"k" * 24).decode()
    body = b'{"id":"evt_1","type":"listing.created","created_at":"2026-01-01T00:00:00.000Z","data":{"object":{"id":"lst_1"}}}'
    for offset in (-301, 301):
        stamp = int(time.time()) + offset
        headers = {"webhook-id": "evt_1", "webhook-timestamp": str(stamp), "webhook-signature": _sign(secret, "evt_1", stamp, body)}
        with pytest.raises(lightbox.WebhookVerificationError):
            lightbox.verify_webhook(body, headers, secret)
    stamp = int(time.time())
    good = _sign(secret, "evt_1", stamp, body)
    headers = {"webhook-id": "evt_1", "webhook-timestamp": str(stamp), "webhook-signature": "v1,bm9wZQ== " + good}
    assert lightbox.verify_webhook(body, headers, secret).data.object.id == "lst_1"
