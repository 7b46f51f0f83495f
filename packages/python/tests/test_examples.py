"""The README's recipes, run as the examples ship them, with exact expectations."""

from __future__ import annotations

import asyncio
import importlib.util
import time
from pathlib import Path
from types import ModuleType

import pytest

from conftest import Keys
from lightbox import Lightbox, ListingItem
from support import Server

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_incremental_sync_sees_changes_and_deletions_once(server: Server, keys: Keys, tmp_path: Path) -> None:
    example = _example("incremental_sync")
    server.account("owner@sync.example")
    state = tmp_path / "state"
    with Lightbox(api_key=server.key("owner@sync.example"), base_url=keys.url) as lb:
        upserted: list[str] = []
        removed: list[str] = []

        def run() -> tuple[list[str], list[str]]:
            upserted.clear()
            removed.clear()
            time.sleep(0.01)  # the run's start is a later millisecond than the writes before it
            example.sync(lb, state, upsert=lambda g: upserted.append(_checked(g)), remove=removed.append)
            time.sleep(0.01)
            return list(upserted), list(removed)

        # 120 galleries: the first run walks two pages by cursor.
        made = [lb.listings.create(address=f"{n} Sync St").id for n in range(120)]
        assert run() == (made, [])  # everything, oldest change first
        assert run() == ([], [])  # nothing changed

        lb.listings.update(made[5], status="active")
        lb.listings.delete(made[7])
        newest = lb.listings.create(address="121 Sync St").id
        assert run() == ([made[5], newest], [made[7]])
        assert run() == ([], [])


def _checked(gallery: ListingItem) -> str:
    assert isinstance(gallery, ListingItem)
    return gallery.id


README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_block(heading: str, index: int = 0) -> str:
    """The index-th ```python block of the README section under `## heading`, as written."""
    import re

    text = README.read_text()
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    return str(blocks[index])


def test_the_readme_quick_start_runs_as_written(
    server: Server, keys: Keys, jpeg: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.account("owner@quickstart.example")
    key = server.key("owner@quickstart.example")
    code = _readme_block("Quick start")
    assert 'base_url="https://lightbox.example.com"' in code
    (tmp_path / "front.jpg").write_bytes(jpeg)
    (tmp_path / "floorplan.pdf").write_bytes(b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LIGHTBOX_API_KEY", key)
    # Only the address of the server changes.
    exec(compile(code.replace("https://lightbox.example.com", keys.url), "README.md", "exec"), {})
    with Lightbox(api_key=key, base_url=keys.url) as lb:
        (gallery,) = lb.listings.list().data
        assert gallery.address == "12 Harbour Rd, Portsmouth" and gallery.beds == 3 and gallery.status == "active"
        assert [(m.filename, m.kind) for m in lb.media.list(gallery.id)] == [
            ("front.jpg", "photo"),
            ("floorplan.pdf", "document"),
        ]
        (client,) = lb.clients.list().data
        assert client.email == "ada@example.com"
        assert lb.listings.get(gallery.id).client_id == client.id

    # The asyncio version, under the same key (through LIGHTBOX_API_KEY and LIGHTBOX_BASE_URL).
    monkeypatch.setenv("LIGHTBOX_API_KEY", key)
    monkeypatch.setenv("LIGHTBOX_BASE_URL", keys.url)
    printed: list[str] = []
    body = "\n".join("    " + line for line in _readme_block("Quick start", 1).splitlines())
    namespace: dict[str, object] = {"print": printed.append}
    exec(compile(f"async def main():\n{body}\n", "README.md", "exec"), namespace)
    asyncio.run(namespace["main"]())  # type: ignore[operator]
    assert printed == ["12 Harbour Rd, Portsmouth"]  # the active one; the new gallery is a draft


def test_the_readme_incremental_sync_runs_as_written(server: Server, keys: Keys) -> None:
    from datetime import datetime, timezone

    server.account("owner@readme-sync.example")
    with Lightbox(api_key=server.key("owner@readme-sync.example"), base_url=keys.url) as lb:
        state = {"last": "1970-01-01T00:00:00.000Z"}
        upserted: list[str] = []
        removed: list[str] = []
        namespace = {
            "lb": lb,
            "datetime": datetime,
            "timezone": timezone,
            "load_last_sync": lambda: state["last"],
            "save_last_sync": lambda value: state.update(last=value),
            "upsert": lambda g: upserted.append(g.id),
            "remove": removed.append,
        }
        code = compile(_readme_block("Incremental sync"), "README.md", "exec")
        kept, gone = lb.listings.create(address="1 Readme Rd").id, lb.listings.create(address="2 Readme Rd").id
        time.sleep(0.01)
        exec(code, namespace)
        assert (upserted, removed) == ([kept, gone], [])
        time.sleep(0.01)
        lb.listings.delete(gone)
        lb.listings.update(kept, beds=2)
        upserted.clear()
        exec(code, namespace)
        assert (upserted, removed) == ([kept], [gone])
