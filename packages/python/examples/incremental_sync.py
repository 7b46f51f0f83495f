"""Incremental sync (docs/api.md §19): what changed since the last run, and what was deleted.

Galleries are listed by ``updated_at`` from the last sync, walking by cursor (iterating a page
follows ``pagination.next_cursor``); deletions come from the ``listing.deleted`` events (kept 30
days). The state file keeps the time the previous run started.

    LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... python examples/incremental_sync.py state.txt
"""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

from lightbox import Lightbox


def sync(lb: Lightbox, state: Path) -> None:
    started = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    since = state.read_text().strip() if state.exists() else "1970-01-01T00:00:00.000Z"

    # The section 19 filters, passed as extra query parameters so this runs with any version of
    # the library (a library generated from a section 19 document takes them as keywords too).
    changed = lb.listings.list(
        limit=100, request_options={"extra_query": {"sort": "updated_at", "updated_since": since}}
    )
    for gallery in changed:
        print("upsert", gallery.id, gallery.address, gallery.status)

    deleted = lb.events.list(
        type="listing.deleted", limit=100, request_options={"extra_query": {"created_since": since}}
    )
    for event in deleted:
        print("delete", event.data.object.id)

    state.write_text(started)


if __name__ == "__main__":
    with Lightbox() as client:
        sync(client, Path(sys.argv[1] if len(sys.argv) > 1 else "lightbox-sync-state.txt"))
