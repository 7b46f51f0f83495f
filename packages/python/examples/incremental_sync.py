"""Incremental sync (docs/api.md §19): what changed since the last run, and what was deleted.

Galleries are listed by ``updated_at`` from the last sync, walking by cursor (iterating a page
follows ``pagination.next_cursor``); deletions come from the ``listing.deleted`` events (kept 30
days). The state file keeps the time the previous run started, so a change made while a run is
under way is picked up by the next one (a gallery may be upserted twice; never missed).

    LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... python examples/incremental_sync.py state.txt
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from lightbox import Lightbox, ListingItem


def sync(
    lb: Lightbox,
    state: Path,
    upsert: Callable[[ListingItem], object],
    remove: Callable[[str], object],
) -> None:
    last_sync = state.read_text().strip() if state.exists() else "1970-01-01T00:00:00.000Z"
    started = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    for gallery in lb.listings.list(sort="updated_at", updated_since=last_sync, limit=100):
        upsert(gallery)
    for event in lb.events.list(type="listing.deleted", created_since=last_sync, limit=100):
        remove(event.data.object.id)

    state.write_text(started)


def main(state: Path) -> None:
    with Lightbox() as lb:  # LIGHTBOX_API_KEY and LIGHTBOX_BASE_URL
        sync(
            lb,
            state,
            upsert=lambda g: print("upsert", g.id, g.address, g.status),
            remove=lambda gallery_id: print("delete", gallery_id),
        )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "lightbox-sync-state.txt"))
