"""The README's recipes, run as the examples ship them, with exact expectations."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

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
