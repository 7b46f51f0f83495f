"""One real Lightbox for the whole session, with two studios and their keys.

On SQLite by default; with LIGHTBOX_PY_DATABASE_URL=postgres://... every server the tests start
runs on a fresh PostgreSQL database instead (scripts/ci.sh runs the suite both ways when CI gives
it a PostgreSQL URL). The library only speaks HTTP, so the second pass is about the server
behaviours the library leans on (cursors, idempotency keys, tus offsets, deliveries) meeting it
on both dialects.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from support import Server, database_name  # noqa: E402

from lightbox import AsyncLightbox, Lightbox  # noqa: E402


def pytest_report_header() -> str:
    return f"lightbox servers on {database_name()}"


@dataclass
class Keys:
    url: str
    full: str
    read_only: str
    other: str
    """A full key of another studio (its own empty lists: exact counts)."""


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    srv = Server().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def keys(server: Server) -> Keys:
    # Each CLI call starts node: run them side by side.
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(server.account, ["owner@harbour.example", "owner@other.example"]))
        full, read_only, other = pool.map(
            lambda args: server.key(*args),
            [("owner@harbour.example", "full"), ("owner@harbour.example", "read_only"), ("owner@other.example", "full")],
        )
    return Keys(url=server.url, full=full, read_only=read_only, other=other)


@pytest.fixture
def lb(keys: Keys) -> Iterator[Lightbox]:
    with Lightbox(api_key=keys.full, base_url=keys.url) as client:
        yield client


@pytest.fixture
async def alb(keys: Keys) -> AsyncIterator[AsyncLightbox]:
    async with AsyncLightbox(api_key=keys.full, base_url=keys.url) as client:
        yield client


@pytest.fixture
def jpeg() -> bytes:
    """A small real JPEG (64x48), made by the server's own sharp so no image library is needed here."""
    return _JPEG


def _make_jpeg() -> bytes:
    import subprocess

    from support import REPO, node_env

    code = (
        "const sharp=require('sharp');sharp({create:{width:64,height:48,channels:3,background:'#3a7'}})"
        ".jpeg().toBuffer().then(b=>process.stdout.write(b))"
    )
    out = subprocess.run(["node", "-e", code], cwd=REPO, env=node_env({}), capture_output=True, check=True)
    return out.stdout


_JPEG = _make_jpeg() if os.environ.get("LIGHTBOX_NO_SHARP") is None else b""
