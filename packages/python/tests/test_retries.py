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
