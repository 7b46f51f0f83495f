"""Uploads are streamed: a big upload does not hold the file in the client's memory.

Each upload runs in a child process of its own whose peak resident set (VmHWM) is compared with
a child that only imports the library and makes one small request. A 256 MiB file held whole
would add at least 256 MiB; streaming adds about a chunk (1 MiB for multipart, ``chunk_size``
for tus). bench/upload_memory.py runs the same children on 1 GiB and against curl.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import Keys
from lightbox import Lightbox
from support import MP4_HEAD, measure, write_video

SRC = Path(__file__).resolve().parents[1] / "src"
SIZE = 256 * 1024 * 1024
ALLOWED_MIB = 48  # above the baseline: an 8 MiB tus chunk, buffers, and slack; far below SIZE

CHILD = """
import asyncio, sys
sys.path.insert(0, {src!r})
from lightbox import AsyncLightbox, Lightbox
key, url, gallery, path, size, mode = {key!r}, {url!r}, {gallery!r}, {path!r}, {size}, {mode!r}

async def run_async():
    async with AsyncLightbox(api_key=key, base_url=url, timeout=300) as alb:
        if mode == "async multipart":
            (m,) = await alb.media.upload(gallery, [path])
        else:
            m = await alb.media.upload_resumable(gallery, path, chunk_size=8 * 1024 * 1024)
        return m

with Lightbox(api_key=key, base_url=url, timeout=300) as lb:
    if mode == "baseline":
        lb.listings.list(limit=1)
        m = None
    elif mode == "multipart path":
        (m,) = lb.media.upload(gallery, [path])
    elif mode == "multipart open file in a pair":
        with open(path, "rb") as handle:
            (m,) = lb.media.upload(gallery, [("tour.mp4", handle)])
    elif mode == "resumable path":
        m = lb.media.upload_resumable(gallery, path, chunk_size=8 * 1024 * 1024)
    else:
        m = asyncio.run(run_async())
if m is not None:
    assert m.size == size, m.size
    print(m.id)
"""

MODES = ["multipart path", "multipart open file in a pair", "resumable path", "async multipart", "async resumable"]


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "tour.mp4"
    write_video(str(path), SIZE)
    return path


@pytest.fixture(scope="module")
def baseline_mib(keys: Keys, big_file: Path) -> float:
    code = CHILD.format(src=str(SRC), key=keys.full, url=keys.url, gallery="", path="", size=0, mode="baseline")
    return measure([sys.executable, "-c", code]).peak_rss_mib


@pytest.mark.parametrize("mode", MODES)
def test_a_256_mib_upload_does_not_hold_the_file_in_memory(
    mode: str, keys: Keys, big_file: Path, baseline_mib: float
) -> None:
    with Lightbox(api_key=keys.full, base_url=keys.url) as lb:
        gallery = lb.listings.create(address=f"1 Memory Lane ({mode})")
        code = CHILD.format(
            src=str(SRC), key=keys.full, url=keys.url, gallery=gallery.id, path=str(big_file), size=SIZE, mode=mode
        )
        run = measure([sys.executable, "-c", code])
        media_id = run.stdout.strip()
        media = lb.media.get(gallery.id, media_id)
        assert media.size == SIZE and media.kind == "video"
        assert lb.media.download(gallery.id, media_id, range=f"bytes=0-{len(MP4_HEAD) - 1}") == MP4_HEAD
        lb.media.delete(gallery.id, media_id)  # give the disk back
    grown = run.peak_rss_mib - baseline_mib
    print(f"{mode}: peak RSS {run.peak_rss_mib:.1f} MiB (baseline {baseline_mib:.1f} MiB), {run.wall:.1f} s")
    assert grown < ALLOWED_MIB, f"{mode}: the child grew {grown:.0f} MiB for a {SIZE >> 20} MiB upload"
