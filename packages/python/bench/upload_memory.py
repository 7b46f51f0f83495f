#!/usr/bin/env python3
"""The client's memory and speed on a big upload, against curl on the same file.

Starts a real Lightbox (SQLite, local disk, a temporary data directory), writes a file of SIZE
bytes (default 1 GiB: an MP4 header, then zeros), and uploads it to a gallery from a child
process each time, so each run's peak RSS (getrusage of the child) is its own:

- ``baseline``: the child imports lightbox and lists galleries (the interpreter + httpx floor);
- ``multipart``: ``lb.media.upload(gallery, [path])``, one streamed request;
- ``resumable``: ``lb.media.upload_resumable(gallery, path)``, tus in 8 MiB PATCHes;
- ``curl``: ``curl -F files=@path`` to the same endpoint.

    /usr/bin/python3 packages/python/bench/upload_memory.py [SIZE_MIB]

Run it on purpose (it moves gigabytes); CI does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from support import Server  # noqa: E402

MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"

CHILD = """
import sys, time
sys.path.insert(0, {src!r})
from lightbox import Lightbox
lb = Lightbox(api_key={key!r}, base_url={url!r}, timeout=600)
started = time.monotonic()
if {mode!r} == "baseline":
    lb.listings.list()
elif {mode!r} == "multipart":
    (m,) = lb.media.upload({gallery!r}, [{path!r}])
    assert m.size == {size}, m.size
else:
    m = lb.media.upload_resumable({gallery!r}, {path!r}, chunk_size=8 * 1024 * 1024)
    assert m.size == {size}, m.size
print(time.monotonic() - started)
"""


def _hwm(pid: int) -> int | None:
    """The process's peak resident set (VmHWM, kB): per address space, so not the parent's."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _cpu(pid: int) -> float | None:
    """User + system CPU seconds the process has used so far (/proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


CPU: dict[str, float] = {}


def child_run(argv: list[str]) -> tuple[float, float, str]:
    """Runs argv to completion: (wall seconds, its peak RSS in MiB, stdout).

    The peak is VmHWM read every 20 ms until the child exits (it only grows). getrusage's
    ru_maxrss would not do: a child starts from its parent's high-water mark at fork."""
    started = time.monotonic()
    peak = 0
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err)
        cpu = 0.0
        while process.poll() is None:
            peak = max(peak, _hwm(process.pid) or 0)
            cpu = max(cpu, _cpu(process.pid) or 0.0)
            time.sleep(0.02)
        CPU[argv[0]] = cpu
        wall = time.monotonic() - started
        if process.returncode != 0:
            err.seek(0)
            raise RuntimeError(err.read().decode())
        out.seek(0)
        return wall, peak / 1024, out.read().decode()


def main() -> int:
    size = int(sys.argv[1]) * 1024 * 1024 if len(sys.argv) > 1 else 1024 * 1024 * 1024
    server = Server(env={"MEDIA_MAX_FILE_BYTES": str(4 * 1024**3)}).start()
    try:
        server.account("bench@example.example")
        key = server.key("bench@example.example")
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "big.mp4")
            with open(path, "wb") as out:
                out.write(MP4)
                block = bytes(8 * 1024 * 1024)
                left = size - len(MP4)
                while left > 0:
                    left -= out.write(block[: min(left, len(block))])
            from lightbox import Lightbox

            lb = Lightbox(api_key=key, base_url=server.url)
            rows = []
            for mode in ("baseline", "multipart", "resumable"):
                gallery = lb.listings.create(address=f"bench {mode}").id
                code = CHILD.format(
                    src=str(ROOT / "src"), key=key, url=server.url, mode=mode, gallery=gallery, path=path, size=size
                )
                wall, rss, out = child_run([sys.executable, "-c", code])
                upload_seconds = float(out.strip().splitlines()[-1])
                rows.append((mode, rss, upload_seconds, CPU[sys.executable]))
                print(f"{mode:10s} peak RSS {rss:7.1f} MiB  {upload_seconds:7.2f} s  CPU {CPU[sys.executable]:.1f} s", flush=True)
            gallery = lb.listings.create(address="bench curl").id
            curl = [
                "curl", "-sS", "-f", "-o", "/dev/null", "-H", f"Authorization: Bearer {key}",
                "-F", f"files=@{path}", f"{server.url}/v1/listings/{gallery}/media",
            ]
            wall, rss, _ = child_run(curl)
            rows.append(("curl", rss, wall, CPU["curl"]))
            print(f"{'curl':10s} peak RSS {rss:7.1f} MiB  {wall:7.2f} s  CPU {CPU['curl']:.1f} s")
            mib = size / 1024 / 1024
            print(f"\n| {mib:.0f} MiB upload | client peak RSS | seconds | MiB/s | client CPU s |")
            print("| --- | --- | --- | --- | --- |")
            for mode, rss, seconds, cpu in rows:
                speed = "" if mode == "baseline" else f"{mib / seconds:.0f}"
                print(f"| {mode} | {rss:.0f} MiB | {seconds:.1f} | {speed} | {cpu:.1f} |")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
