"""Uploads from every kind of input, and resumable uploads cut, resumed and restarted."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import lightbox
from lightbox import Lightbox
from conftest import Keys
from support import Relay, Server

SRC = Path(__file__).resolve().parents[1] / "src"


def _video(size: int) -> bytes:
    """Bytes the server sniffs as MP4 (an ftyp box), padded with noise to ``size``."""
    head = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"
    return head + os.urandom(size - len(head))


def test_upload_from_paths_bytes_files_and_pairs(lb: Lightbox, jpeg: bytes, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Many Inputs")
    path = tmp_path / "front.jpg"
    path.write_bytes(jpeg)
    with open(path, "rb") as handle:
        made = lb.media.upload(
            gallery.id,
            [
                str(path),
                path,
                jpeg,
                handle,
                ("kitchen.jpg", jpeg),
                ("plan.jpg", io.BytesIO(jpeg)),
            ],
        )
    assert [m.filename for m in made] == ["front.jpg", "front.jpg", "upload", "front.jpg", "kitchen.jpg", "plan.jpg"]
    assert {m.sha256 for m in made} == {hashlib.sha256(jpeg).hexdigest()}
    assert all(m.kind == "photo" and m.width == 64 and m.height == 48 for m in made)
    single = lb.media.upload(gallery.id, ("one.jpg", jpeg))
    assert len(single) == 1 and single[0].position == 7


def test_download_to_streams_to_a_file(lb: Lightbox, jpeg: bytes, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Download Way")
    (media,) = lb.media.upload(gallery.id, [("d.jpg", jpeg)])
    target = tmp_path / "out.jpg"
    assert lb.media.download_to(gallery.id, media.id, target) == len(jpeg)
    assert target.read_bytes() == jpeg


def test_resumable_upload_with_progress(lb: Lightbox, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Resumable Rd")
    data = _video(700_000)
    path = tmp_path / "tour.mp4"
    path.write_bytes(data)
    progress: list[tuple[int, int]] = []
    urls: list[str] = []
    media = lb.media.upload_resumable(
        gallery.id, path, chunk_size=256 * 1024, on_progress=lambda s, t: progress.append((s, t)), on_upload_url=urls.append
    )
    assert media.kind == "video" and media.filename == "tour.mp4" and media.size == len(data)
    assert isinstance(media.variants, lightbox.MediaVideoVariants)  # a video's: poster and web
    assert media.variants.status in ("pending", "failed", "ready") and "poster" in media.variants.to_dict()
    assert media.sha256 == hashlib.sha256(data).hexdigest()
    assert progress == [(262144, 700000), (524288, 700000), (700000, 700000)]
    assert len(urls) == 1 and "/uploads/upl_" in urls[0]


@pytest.fixture
def relay(server: Server) -> Iterator[Relay]:
    r = Relay(server.port)
    yield r
    r.close()


def test_resumable_upload_cut_mid_chunk_resumes(keys: Keys, relay: Relay, tmp_path: Path) -> None:
    data = _video(1_000_000)
    path = tmp_path / "cut.mp4"
    path.write_bytes(data)
    # The second PATCH is cut after 100 kB of it reached the server.
    relay.cut_request = (b"PATCH ", 100_000)
    with Lightbox(api_key=keys.full, base_url=relay.url) as lb:
        lb._http.random = lambda: 0.0
        gallery = lb.listings.create(address="1 Cut Connection Ct")
        relay.cut_request = None
        progress: list[int] = []

        def on_progress(sent: int, total: int) -> None:
            progress.append(sent)
            if len(progress) == 1:
                relay.cut_request = (b"PATCH ", 100_000)

        media = lb.media.upload_resumable(gallery.id, path, chunk_size=400_000, on_progress=on_progress)
    assert relay.cut == 1
    assert media.sha256 == hashlib.sha256(data).hexdigest() and media.size == len(data)
    assert progress[0] == 400_000 and progress[-1] == 1_000_000
    assert progress == sorted(progress)


def test_resumable_upload_survives_a_process_restart(keys: Keys, lb: Lightbox, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Restart Row")
    data = _video(900_000)
    path = tmp_path / "restart.mp4"
    path.write_bytes(data)
    url_file = tmp_path / "upload-url"
    # A process that dies (os._exit, no clean-up) after its first acknowledged chunk.
    code = f"""
import os, sys
sys.path.insert(0, {str(SRC)!r})
from lightbox import Lightbox
lb = Lightbox(api_key={keys.full!r}, base_url={keys.url!r})
def save(url):
    open({str(url_file)!r}, "w").write(url)
def die(sent, total):
    os._exit(3)
lb.media.upload_resumable({gallery.id!r}, {str(path)!r}, chunk_size=300_000, on_upload_url=save, on_progress=die)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert done.returncode == 3, done.stderr.decode()
    upload_url = url_file.read_text()
    assert lb.media.list(gallery.id).data == []

    progress: list[int] = []
    media = lb.media.upload_resumable(
        gallery.id, path, upload_url=upload_url, chunk_size=300_000, on_progress=lambda s, t: progress.append(s)
    )
    assert progress[0] == 300_000, "the resumed upload started again from zero"
    assert media.sha256 == hashlib.sha256(data).hexdigest()
    assert [m.id for m in lb.media.list(gallery.id)] == [media.id]


def test_abandon_upload(lb: Lightbox, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Abandoned Ave")
    path = tmp_path / "gone.mp4"
    path.write_bytes(_video(600_000))
    urls: list[str] = []

    class Stop(Exception):
        pass

    def stop(sent: int, total: int) -> None:
        raise Stop

    with pytest.raises(Stop):
        lb.media.upload_resumable(gallery.id, path, chunk_size=200_000, on_upload_url=urls.append, on_progress=stop)
    lb.media.abandon_upload(urls[0])
    with pytest.raises(lightbox.NotFoundError):
        lb.media.upload_resumable(gallery.id, path, upload_url=urls[0])


def test_a_file_that_cannot_seek_is_sent_once(lb: Lightbox, jpeg: bytes) -> None:
    gallery = lb.listings.create(address="1 Pipe St")
    read_end, write_end = os.pipe()
    os.write(write_end, jpeg)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        (media,) = lb.media.upload(gallery.id, [("piped.jpg", pipe)])
    assert media.size == len(jpeg)


def test_upload_from_url(lb: Lightbox, jpeg: bytes) -> None:
    """Section 21: the server fetches the file; one it cannot fetch is FetchFailedError (a 422)."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.endswith("/missing.jpg"):
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("content-length", str(len(jpeg)))
            self.end_headers()
            self.wfile.write(jpeg)

        def log_message(self, *args: object) -> None:
            pass

    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    try:
        gallery = lb.listings.create(address="1 Fetched Photo")
        url = f"http://127.0.0.1:{origin.server_address[1]}/photos/porch.jpg"
        (media,) = lb.media.upload_from_url(gallery.id, url)
        assert media.filename == "porch.jpg" and media.sha256 == hashlib.sha256(jpeg).hexdigest()
        (named,) = lb.media.upload_from_url(gallery.id, url, filename="front.jpg")
        assert named.filename == "front.jpg"
        with pytest.raises(lightbox.FetchFailedError) as caught:
            lb.media.upload_from_url(gallery.id, url.replace("porch.jpg", "missing.jpg"))
        assert isinstance(caught.value, lightbox.UnprocessableEntityError) and caught.value.status == 422 and caught.value.code == "fetch_failed" and caught.value.request_id
        with pytest.raises(lightbox.ValidationError) as refused:
            lb.media.upload_from_url(gallery.id, "ftp://127.0.0.1/porch.jpg")
        assert [d["field"] for d in refused.value.details] == ["url"]
        assert [m.id for m in lb.media.list(gallery.id)] == [media.id, named.id]
    finally:
        origin.shutdown()
        origin.server_close()


def test_resumable_upload_from_bytes_an_open_file_and_a_pair(lb: Lightbox, tmp_path: Path) -> None:
    gallery = lb.listings.create(address="1 Every Input Resumable")
    data = _video(450_000)
    path = tmp_path / "walkthrough.mp4"
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    from_bytes = lb.media.upload_resumable(gallery.id, data, filename="bytes.mp4", chunk_size=200_000)
    with open(path, "rb") as handle:
        from_file = lb.media.upload_resumable(gallery.id, handle, chunk_size=200_000)
    from_pair = lb.media.upload_resumable(gallery.id, ("pair.mp4", io.BytesIO(data)), chunk_size=200_000)
    assert [m.filename for m in (from_bytes, from_file, from_pair)] == ["bytes.mp4", "walkthrough.mp4", "pair.mp4"]
    assert {m.sha256 for m in (from_bytes, from_file, from_pair)} == {digest}
    read_end, write_end = os.pipe()
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe, pytest.raises(TypeError):
        lb.media.upload_resumable(gallery.id, pipe)  # a pipe cannot be resumed


def test_a_big_upload_refused_early_raises_the_servers_error(keys: Keys, lb: Lightbox, tmp_path: Path) -> None:
    """The server refuses a 64 MiB upload before reading it all (the bytes are not media; the key
    is unknown) and closes the connection: the client reports the server's answer, at once,
    rather than a ConnectionError after sending it again (httpcore 0.16 lost such answers)."""
    import time

    gallery = lb.listings.create(address="1 Refused Early")
    text = tmp_path / "notes.txt"
    with open(text, "wb") as out:
        for _ in range(64):
            out.write(b"just text, not a photo\n" * (1024 * 1024 // 23))
    started = time.monotonic()
    with pytest.raises(lightbox.UnsupportedMediaTypeError) as caught:
        lb.media.upload(gallery.id, [text])
    assert caught.value.status == 415 and caught.value.request_id
    with Lightbox(api_key="lbx_" + "z" * 40, base_url=keys.url) as stranger:
        with pytest.raises(lightbox.AuthenticationError):
            stranger.media.upload(gallery.id, [text])
    assert time.monotonic() - started < 20
    assert lb.media.list(gallery.id).data == []



async def test_a_big_upload_refused_early_async(keys: Keys, tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    with open(text, "wb") as out:
        for _ in range(64):
            out.write(b"just text, not a photo\n" * (1024 * 1024 // 23))
    async with lightbox.AsyncLightbox(api_key=keys.full, base_url=keys.url) as alb:
        gallery = await alb.listings.create(address="1 Refused Early Async")
        with pytest.raises(lightbox.UnsupportedMediaTypeError) as caught:
            await alb.media.upload(gallery.id, [text])
        assert caught.value.status == 415
        async with lightbox.AsyncLightbox(api_key="lbx_" + "z" * 40, base_url=keys.url) as stranger:
            with pytest.raises(lightbox.AuthenticationError):
                await stranger.media.upload(gallery.id, [text])
        assert (await alb.media.list(gallery.id)).data == []
