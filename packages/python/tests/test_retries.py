"""A POST whose answer is lost is retried with the same Idempotency-Key: one resource, not two."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import lightbox
from lightbox import Lightbox
from conftest import Keys
from support import Relay, Server


@pytest.fixture
def relay(server: Server) -> Iterator[Relay]:
    r = Relay(server.port)
    yield r
    r.close()


def test_a_retried_post_makes_one_resource(keys: Keys, relay: Relay) -> None:
    relay.drop_response_to = b"POST /v1/clients "
    with Lightbox(api_key=keys.full, base_url=relay.url) as lb:
        lb._http.random = lambda: 0.0
        client = lb.clients.create(name="Once Only", email="once.retry@example.com")
        assert relay.dropped == 1, "the first answer was not dropped"
        assert client.last_response is not None
        assert client.last_response.headers.get("idempotent-replayed") == "true"
        matches = lb.clients.list(search="once.retry@example.com")
        assert [c.id for c in matches] == [client.id]


def test_without_retries_the_lost_answer_is_a_connection_error(keys: Keys, relay: Relay) -> None:
    relay.drop_response_to = b"POST /v1/listings "
    with Lightbox(api_key=keys.full, base_url=relay.url, max_retries=0) as lb:
        with pytest.raises(lightbox.ConnectionError):
            lb.listings.create(address="1 Lost Answer Rd")


def test_a_given_idempotency_key_replays(lb: Lightbox) -> None:
    first = lb.listings.create(address="1 Replay Rd", request_options={"idempotency_key": "py-replay-1"})
    again = lb.listings.create(address="1 Replay Rd", request_options={"idempotency_key": "py-replay-1"})
    assert again.id == first.id
    with pytest.raises(lightbox.ConflictError):
        lb.listings.create(address="2 Other Rd", request_options={"idempotency_key": "py-replay-1"})


def test_a_retried_upload_from_a_path_makes_one_media(keys: Keys, relay: Relay, jpeg: bytes, tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    path = tmp_path / "retried.jpg"
    path.write_bytes(jpeg)
    with Lightbox(api_key=keys.full, base_url=relay.url) as lb:
        lb._http.random = lambda: 0.0
        gallery = lb.listings.create(address="1 Retried Upload")
        relay.drop_response_to = f"POST /v1/listings/{gallery.id}/media ".encode()
        (media,) = lb.media.upload(gallery.id, [path])
        assert relay.dropped == 1
        assert [m.id for m in lb.media.list(gallery.id)] == [media.id]


def _raw(status: int, body: str, extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        f"connection: close\r\n{extra}\r\n{body}"
    ).encode()


def _header(request: bytes, name: str) -> str | None:
    for line in request.split(b"\r\n\r\n", 1)[0].split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name.encode():
            return value.strip().decode()
    return None


def test_every_attempt_of_a_post_carries_one_generated_key_and_waits_for_an_http_date() -> None:
    """The same Idempotency-Key on each attempt (a fresh one per call), none on a GET, and a
    Retry-After given as an HTTP date is waited for."""
    import email.utils
    import time

    from support import Canned

    listing = (
        '{"id":"lst_1","address":"1 Key Rd","beds":null,"baths":null,"sqft":null,"description":null,'
        '"mls_number":null,"status":"draft","client_id":null,"client_link":null,"cover_media_id":null,'
        '"media_count":0,"created_at":"2026-11-27T10:00:00.000Z","updated_at":"2026-11-27T10:00:00.000Z"}'
    )
    error = '{"error":{"code":"unavailable","message":"restarting","request_id":"req_1"}}'
    later = email.utils.formatdate(time.time() + 2, usegmt=True)
    canned = Canned(
        [
            _raw(503, error, f"retry-after: {later}\r\n"),
            _raw(500, error.replace("unavailable", "internal_error")),
            _raw(201, listing),
            _raw(201, listing),
            _raw(200, '{"data":[],"pagination":{"page":1,"limit":20,"total":0,"next_cursor":null}}'),
        ]
    )
    with Lightbox(api_key="lbx_x", base_url=canned.url, max_retries=2) as lb:
        lb._http.random = lambda: 0.0
        started = time.monotonic()
        assert lb.listings.create(address="1 Key Rd").id == "lst_1"
        assert time.monotonic() - started >= 1.0  # the HTTP date, a second or two away
        lb.listings.create(address="1 Key Rd")
        lb.listings.list()
    keys = [_header(r, "idempotency-key") for r in canned.requests]
    assert keys[0] and keys[0] == keys[1] == keys[2], keys  # one call, three attempts, one key
    assert keys[3] and keys[3] != keys[0]  # another call, another key
    assert keys[4] is None  # a GET needs none
