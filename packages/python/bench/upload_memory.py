#!/usr/bin/env python3
"""The client's memory and speed on a big upload, against curl on the same file.

Starts a real Lightbox (SQLite, local disk, a temporary data directory), writes a file of SIZE
bytes (default 1 GiB: an MP4 header, then zeros), and uploads it to a gallery from a child
process each time, so each run's peak RSS (getrusage of the child) is its own:

- ``baseline``: the child imports lightbox and lists galleries (the interpreter + httpx floor);
- ``multipart``: ``lb.media.upload(gallery, [path])``, one streamed request;
- ``resumable``: ``lb.media.upload_resumable(gallery, path)``, tus in 8 MiB PATCHes;
- ``async multipart`` and ``async resumable``: the same with AsyncLightbox;
- ``curl``: ``curl -F files=@path`` to the same endpoint.

    /usr/bin/python3 packages/python/bench/upload_memory.py [SIZE_MIB [ROUNDS]]

ROUNDS > 0 then alternates a multipart upload and curl that many times on the same file, for a
throughput comparison that a busy machine's drifting load skews less.

Run it on purpose (it moves gigabytes); CI does not.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from support import Server, measure, write_video  # noqa: E402

CHILD = """
import asyncio, sys, time
sys.path.insert(0, {src!r})
from lightbox import AsyncLightbox, Lightbox
mode, gallery, path, size = {mode!r}, {gallery!r}, {path!r}, {size}
lb = Lightbox(api_key={key!r}, base_url={url!r}, timeout=600)

async def run_async():
    async with AsyncLightbox(api_key={key!r}, base_url={url!r}, timeout=600) as alb:
        if mode == "async multipart":
            (m,) = await alb.media.upload(gallery, [path])
        else:
            m = await alb.media.upload_resumable(gallery, path, chunk_size=8 * 1024 * 1024)
        return m

started = time.monotonic()
if mode == "baseline":
    lb.listings.list()
elif mode == "multipart":
    (m,) = lb.media.upload(gallery, [path])
elif mode == "resumable":
    m = lb.media.upload_resumable(gallery, path, chunk_size=8 * 1024 * 1024)
else:
    m = asyncio.run(run_async())
if mode != "baseline":
    assert m.size == size, m.size
print(time.monotonic() - started)
"""


def main() -> int:
    size = int(sys.argv[1]) * 1024 * 1024 if len(sys.argv) > 1 else 1024 * 1024 * 1024
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = Server(env={"MEDIA_MAX_FILE_BYTES": str(4 * 1024**3)}).start()
    try:
        server.account("bench@example.example")
        key = server.key("bench@example.example")
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "big.mp4")
            write_video(path, size)
            from lightbox import Lightbox

            lb = Lightbox(api_key=key, base_url=server.url)
            rows = []
            for mode in ("baseline", "multipart", "resumable", "async multipart", "async resumable"):
                gallery = lb.listings.create(address=f"bench {mode}").id
                code = CHILD.format(
                    src=str(ROOT / "src"), key=key, url=server.url, mode=mode, gallery=gallery, path=path, size=size
                )
                run = measure([sys.executable, "-c", code])
                upload_seconds = float(run.stdout.strip().splitlines()[-1])
                rows.append((mode, run.peak_rss_mib, upload_seconds, run.cpu))
                print(f"{mode:16s} peak RSS {run.peak_rss_mib:7.1f} MiB  {upload_seconds:7.2f} s  CPU {run.cpu:.1f} s", flush=True)
            gallery = lb.listings.create(address="bench curl").id
            curl = [
                "curl", "-sS", "-f", "-o", "/dev/null", "-H", f"Authorization: Bearer {key}",
                "-F", f"files=@{path}", f"{server.url}/v1/listings/{gallery}/media",
            ]
            run = measure(curl)
            rows.append(("curl", run.peak_rss_mib, run.wall, run.cpu))
            print(f"{'curl':16s} peak RSS {run.peak_rss_mib:7.1f} MiB  {run.wall:7.2f} s  CPU {run.cpu:.1f} s")
            mib = size / 1024 / 1024
            print(f"\n| {mib:.0f} MiB upload | client peak RSS | seconds | MiB/s | client CPU s |")
            print("| --- | --- | --- | --- | --- |")
            for mode, rss, seconds, cpu in rows:
                speed = "" if mode == "baseline" else f"{mib / seconds:.0f}"
                print(f"| {mode} | {rss:.0f} MiB | {seconds:.1f} | {speed} | {cpu:.1f} |")
            # Throughput on a busy machine drifts with its load: alternate the two on the same file
            # so each pair saw about the same machine. Wall time of the whole process, both sides.
            if rounds:
                print(f"\nmultipart upload vs curl, alternating, {rounds} rounds (process wall time, load average):")
            for n in range(rounds):
                for who in ("lightbox", "curl"):
                    gallery = lb.listings.create(address=f"bench round {n} {who}").id
                    if who == "curl":
                        argv = curl[:-1] + [f"{server.url}/v1/listings/{gallery}/media"]
                    else:
                        code = CHILD.format(
                            src=str(ROOT / "src"), key=key, url=server.url, mode="multipart",
                            gallery=gallery, path=path, size=size,
                        )
                        argv = [sys.executable, "-c", code]
                    run = measure(argv)
                    print(
                        f"round {n + 1} {who:8s} {run.wall:6.1f} s {mib / run.wall:6.0f} MiB/s  "
                        f"peak RSS {run.peak_rss_mib:5.1f} MiB  load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
                    for media in lb.media.list(gallery):
                        lb.media.delete(gallery, media.id)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
