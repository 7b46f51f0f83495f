"""Upload a large video resumably, and pick it up again after a crash or a restart.

The upload's URL is kept in ``<file>.upload-url`` as soon as it exists; run the script again
after an interruption and it continues from the bytes the server already holds.

    LIGHTBOX_API_KEY=... LIGHTBOX_BASE_URL=... python examples/resumable_upload.py lst_... tour.mp4
"""

from __future__ import annotations

import sys
from pathlib import Path

from lightbox import Lightbox, NotFoundError


def upload(lb: Lightbox, listing_id: str, path: Path) -> None:
    state = path.with_name(path.name + ".upload-url")
    resume = state.read_text().strip() if state.exists() else None

    def progress(sent: int, total: int) -> None:
        print(f"\r{path.name}: {100 * sent // max(total, 1)}% ({sent}/{total} bytes)", end="", flush=True)

    try:
        media = lb.media.upload_resumable(
            listing_id,
            path,
            chunk_size=8 * 1024 * 1024,  # at most this much is sent again after a cut
            on_progress=progress,
            upload_url=resume,
            on_upload_url=state.write_text,
        )
    except NotFoundError:
        if resume is None:
            raise
        state.unlink()  # the upload expired or was abandoned: start again
        return upload(lb, listing_id, path)
    state.unlink(missing_ok=True)
    print(f"\n{media.id}: {media.kind}, {media.size} bytes, sha256 {media.sha256}")


if __name__ == "__main__":
    with Lightbox() as client:
        upload(client, sys.argv[1], Path(sys.argv[2]))
