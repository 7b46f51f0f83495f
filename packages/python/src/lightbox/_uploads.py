"""Files to upload, a streamed multipart body, and resumable uploads over tus 1.0.

A file is a path (``str`` or ``os.PathLike``), ``bytes``, an open binary file, or a
``(filename, data)`` pair whose data is any of those. Nothing is held whole in memory: paths and
files are read 1 MiB at a time as the request is sent. Paths, bytes and seekable files can be
sent again (a retry re-reads them from the start); a file that cannot seek is sent once.

Resumable uploads (docs/api.md §16): the upload is created (POST, ``Upload-Length``), then
the file is sent in PATCHes of ``chunk_size`` bytes, each streamed from the file. When a PATCH
fails (connection cut, timeout, 5xx, an offset the server disagrees with) the server is asked
where it is (HEAD) and the upload goes on from there; ``max_retries`` failures in a row without
progress end it. ``upload_url`` resumes an upload made earlier, by this process or another.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import mimetypes
import os
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Union

from . import _errors as errors
from ._generated.models import Media
from ._models import RequestOptions
from ._resource import _seg

if TYPE_CHECKING:
    from ._core import AsyncHTTP, SyncHTTP

CHUNK = 1024 * 1024
DEFAULT_CHUNK_SIZE = 8 * 1024 * 1024
TUS = {"tus-resumable": "1.0.0"}

FileData = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]
"""What a file's bytes can be given as."""
FileInput = Union[FileData, tuple[str, FileData]]
"""A file to upload: its data, or a ``(filename, data)`` pair."""
ProgressCallback = Callable[[int, int], object]


@dataclass
class _Source:
    filename: str
    size: int | None
    replayable: bool
    path: str | None = None
    data: bytes | None = None
    stream: IO[bytes] | None = None
    start: int = 0

    def chunks(self, offset: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes from ``offset`` (relative to the source's start) to ``end``, 1 MiB at a time."""
        if self.data is not None:
            view = memoryview(self.data)[offset:end]
            for i in range(0, len(view), CHUNK):
                yield bytes(view[i : i + CHUNK])
            return
        if self.path is not None:
            with open(self.path, "rb") as handle:
                handle.seek(offset)
                yield from _read(handle, None if end is None else end - offset)
            return
        assert self.stream is not None
        if self.replayable:
            self.stream.seek(self.start + offset)
        yield from _read(self.stream, None if end is None else end - offset)


def _read(handle: IO[bytes], remaining: int | None) -> Iterator[bytes]:
    while remaining is None or remaining > 0:
        block = handle.read(CHUNK if remaining is None else min(CHUNK, remaining))
        if not block:
            return
        if remaining is not None:
            remaining -= len(block)
        yield block


def source(file: FileInput) -> _Source:
    name: str | None = None
    if isinstance(file, tuple):
        name, data = file
    else:
        data = file
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        return _Source(name or os.path.basename(path), os.stat(path).st_size, True, path=path)
    if isinstance(data, (bytes, bytearray, memoryview)):
        raw = bytes(data)
        return _Source(name or "upload", len(raw), True, data=raw)
    if hasattr(data, "read"):
        if name is None:
            own = getattr(data, "name", None)
            name = os.path.basename(own) if isinstance(own, str) else "upload"
        try:
            seekable = data.seekable()
        except (AttributeError, OSError, ValueError):
            seekable = False
        if seekable:
            start = data.tell()
            size = data.seek(0, os.SEEK_END) - start
            data.seek(start)
            return _Source(name, size, True, stream=data, start=start)
        return _Source(name, None, False, stream=data)
    raise TypeError(f"cannot upload {type(data).__name__}: pass a path, bytes, an open binary file or (filename, data)")


def _quote(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


class Multipart:
    """A multipart/form-data body of files, streamed; Content-Length is known when every size is."""

    def __init__(self, files: Sequence[FileInput], field: str = "files") -> None:
        if not files:
            raise ValueError("at least one file is required")
        self.sources = [source(f) for f in files]
        self.boundary = "lightbox-" + secrets.token_hex(16)
        self.heads: list[bytes] = []
        for src in self.sources:
            kind = mimetypes.guess_type(src.filename)[0] or "application/octet-stream"
            head = (
                f"--{self.boundary}\r\n"
                f'Content-Disposition: form-data; name="{field}"; filename="{_quote(src.filename)}"\r\n'
                f"Content-Type: {kind}\r\n\r\n"
            )
            self.heads.append(head.encode("utf-8"))
        self.tail = f"--{self.boundary}--\r\n".encode()
        self.replayable = all(s.replayable for s in self.sources)

    @property
    def headers(self) -> dict[str, str]:
        headers = {"content-type": f"multipart/form-data; boundary={self.boundary}"}
        if all(s.size is not None for s in self.sources):
            size = sum(len(h) + (s.size or 0) + 2 for h, s in zip(self.heads, self.sources)) + len(self.tail)
            headers["content-length"] = str(size)
        return headers

    def __iter__(self) -> Iterator[bytes]:
        for head, src in zip(self.heads, self.sources):
            yield head
            yield from src.chunks()
            yield b"\r\n"
        yield self.tail

    async def aiter(self) -> AsyncIterator[bytes]:
        for head, src in zip(self.heads, self.sources):
            yield head
            async for block in _in_thread(src.chunks()):
                yield block
            yield b"\r\n"
        yield self.tail


def _next(blocks: Iterator[bytes]) -> bytes | None:
    return next(blocks, None)


async def _in_thread(blocks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """Reads a blocking iterator of file blocks in a worker thread, so the event loop never waits on disk."""
    while True:
        block = await asyncio.to_thread(_next, blocks)
        if block is None:
            return
        yield block


def _async_chunks(src: _Source, offset: int, end: int) -> AsyncIterator[bytes]:
    return _in_thread(src.chunks(offset, end))


@dataclass(frozen=True)
class UploadCapabilities:
    """What ``OPTIONS /v1/listings/:id/uploads`` tells: the tus version, extensions and size limit."""

    version: str | None
    extensions: list[str]
    max_size: int | None


# -- resumable uploads -----------------------------------------------------------------------


def _retriable(exc: Exception) -> bool:
    if isinstance(exc, (errors.ConnectionError, errors.TimeoutError)):
        return True
    if isinstance(exc, errors.LightboxError) and exc.status is not None:
        return exc.status in (409, 429) or exc.status >= 500
    return False


def _creation_headers(src: _Source, filename: str | None) -> dict[str, str]:
    assert src.size is not None
    headers = {**TUS, "upload-length": str(src.size)}
    name = filename or src.filename
    if name and name != "upload":
        headers["upload-metadata"] = "filename " + base64.b64encode(name.encode("utf-8")).decode("ascii")
    return headers


def _resumable_source(file: FileInput) -> _Source:
    src = source(file)
    if not src.replayable or src.size is None:
        raise TypeError("a resumable upload needs a path, bytes or a seekable file")
    return src


def _no_retries(options: RequestOptions | None) -> RequestOptions:
    """A PATCH is never re-sent as is: after a failure the server is asked for its offset."""
    out: RequestOptions = {}
    out.update(options or {})
    out["max_retries"] = 0
    return out


def _patch_headers(offset: int, end: int) -> dict[str, str]:
    return {
        **TUS,
        "upload-offset": str(offset),
        "content-type": "application/offset+octet-stream",
        "content-length": str(end - offset),
    }


def _incomplete(total: int) -> errors.LightboxError:
    return errors.LightboxError(f"all {total} bytes were sent but no media was made", code="tus_incomplete")


def upload_resumable(
    http: SyncHTTP,
    listing_id: str,
    file: FileInput,
    *,
    filename: str | None,
    chunk_size: int,
    on_progress: ProgressCallback | None,
    upload_url: str | None,
    on_upload_url: Callable[[str], object] | None,
    options: RequestOptions | None,
) -> Media:
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    src = _resumable_source(file)
    total = src.size or 0
    base = f"/v1/listings/{_seg(listing_id)}/uploads"
    max_retries = http.attempts(options, True)
    patch_options = _no_retries(options)

    def head() -> tuple[int, str | None]:
        res = http.send("HEAD", url, headers=TUS, options=options)
        return int(res.headers.get("upload-offset", "0")), res.headers.get("lightbox-media-id")

    if upload_url is None:
        created = http.send("POST", base, headers=_creation_headers(src, filename), options=options)
        location = created.headers.get("location")
        if location is None:
            raise errors.LightboxError("the upload was created without a Location", code="tus_no_location")
        url = http.same_origin(location)
        if on_upload_url is not None:
            on_upload_url(url)
        offset, media_id = 0, None
    else:
        url = http.same_origin(upload_url)
        offset, media_id = head()
        if on_progress is not None and offset > 0:
            on_progress(offset, total)

    failures = 0
    while media_id is None:
        if offset >= total:
            offset, media_id = head()
            if media_id is None:
                raise _incomplete(total)
            break
        end = min(total, offset + chunk_size)
        try:
            res = http.send(
                "PATCH",
                url,
                headers=_patch_headers(offset, end),
                content=functools.partial(src.chunks, offset, end),
                options=patch_options,
            )
            offset = int(res.headers.get("upload-offset", str(end)))
            media_id = res.headers.get("lightbox-media-id")
            failures = 0
            if on_progress is not None:
                on_progress(offset, total)
        except errors.LightboxError as exc:
            if not _retriable(exc) or failures >= max_retries:
                raise
            failures += 1
            time.sleep(http.backoff(failures - 1))
            before = offset
            offset, media_id = head()
            if offset > before and on_progress is not None:
                on_progress(offset, total)
    return http.request_model(
        "GET", f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}", cast=Media, options=options
    )


async def upload_resumable_async(
    http: AsyncHTTP,
    listing_id: str,
    file: FileInput,
    *,
    filename: str | None,
    chunk_size: int,
    on_progress: ProgressCallback | None,
    upload_url: str | None,
    on_upload_url: Callable[[str], object] | None,
    options: RequestOptions | None,
) -> Media:
    if chunk_size <= 0:
        raise ValueError("chunk_size must be positive")
    src = _resumable_source(file)
    total = src.size or 0
    base = f"/v1/listings/{_seg(listing_id)}/uploads"
    max_retries = http.attempts(options, True)
    patch_options = _no_retries(options)

    async def head() -> tuple[int, str | None]:
        res = await http.send("HEAD", url, headers=TUS, options=options)
        return int(res.headers.get("upload-offset", "0")), res.headers.get("lightbox-media-id")

    if upload_url is None:
        created = await http.send("POST", base, headers=_creation_headers(src, filename), options=options)
        location = created.headers.get("location")
        if location is None:
            raise errors.LightboxError("the upload was created without a Location", code="tus_no_location")
        url = http.same_origin(location)
        if on_upload_url is not None:
            on_upload_url(url)
        offset, media_id = 0, None
    else:
        url = http.same_origin(upload_url)
        offset, media_id = await head()
        if on_progress is not None and offset > 0:
            on_progress(offset, total)

    failures = 0
    while media_id is None:
        if offset >= total:
            offset, media_id = await head()
            if media_id is None:
                raise _incomplete(total)
            break
        end = min(total, offset + chunk_size)
        try:
            res = await http.send(
                "PATCH",
                url,
                headers=_patch_headers(offset, end),
                content=functools.partial(_async_chunks, src, offset, end),
                options=patch_options,
            )
            offset = int(res.headers.get("upload-offset", str(end)))
            media_id = res.headers.get("lightbox-media-id")
            failures = 0
            if on_progress is not None:
                on_progress(offset, total)
        except errors.LightboxError as exc:
            if not _retriable(exc) or failures >= max_retries:
                raise
            failures += 1
            await asyncio.sleep(http.backoff(failures - 1))
            before = offset
            offset, media_id = await head()
            if offset > before and on_progress is not None:
                on_progress(offset, total)
    return await http.request_model(
        "GET", f"/v1/listings/{_seg(listing_id)}/media/{_seg(media_id)}", cast=Media, options=options
    )


def capabilities(headers: object) -> UploadCapabilities:
    get = getattr(headers, "get")
    extensions = [e.strip() for e in (get("tus-extension") or "").split(",") if e.strip()]
    size = get("tus-max-size")
    return UploadCapabilities(get("tus-version"), extensions, int(size) if size and size.isdigit() else None)
