#!/usr/bin/env python3
"""Runs the examples with a given interpreter (the venv the built wheel went into) against a real
Lightbox started here, from a directory outside the source tree so the installed package is the
one imported. Used by scripts/ci.sh; standard library plus httpx (the test helper waits for the server with it)."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support import Server, free_port  # noqa: E402

PDF = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"


def webhook_receiver(python: str, url: str, key: str, env: dict[str, str], work: str) -> None:
    """examples/webhook_receiver.py verifies a real delivery, and refuses a forged one."""
    port = free_port()
    hook = f"http://127.0.0.1:{port}/hooks/lightbox"
    # The endpoint first: its secret is the receiver's configuration.
    made = subprocess.run(
        [python, "-c", f"from lightbox import Lightbox; print(Lightbox().webhook_endpoints.create(url={hook!r}, events=['listing.created']).secret)"],
        cwd=work, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()
    receiver = subprocess.Popen(
        [python, "-u", str(ROOT / "examples" / "webhook_receiver.py"), str(port)],
        cwd=work, env={**env, "LIGHTBOX_WEBHOOK_SECRET": made}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # until it listens
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        forged = urllib.request.Request(
            hook, data=b'{"id":"evt_x"}', method="POST",
            headers={"webhook-id": "evt_x", "webhook-timestamp": str(int(time.time())), "webhook-signature": "v1,Zm9yZ2Vk"},
        )
        try:
            urllib.request.urlopen(forged, timeout=10)
            raise SystemExit("examples/webhook_receiver.py accepted a forged delivery")
        except urllib.error.HTTPError as err:
            if err.code != 400:
                raise
        gallery = subprocess.run(
            [python, "-c", "from lightbox import Lightbox; print(Lightbox().listings.create(address='1 Hook Lane').id)"],
            cwd=work, env=env, capture_output=True, text=True, check=True,
        ).stdout.strip()
        assert receiver.stdout is not None
        if not select.select([receiver.stdout], [], [], 30)[0]:
            raise SystemExit("no webhook delivery reached examples/webhook_receiver.py in 30 s")
        line = receiver.stdout.readline().strip()
        print(f"webhook_receiver.py: {line}")
        if line != f"listing.created {gallery}":
            raise SystemExit(f"the receiver printed {line!r}, expected listing.created {gallery}")
    finally:
        receiver.terminate()
        receiver.wait(10)


def main() -> int:
    python = sys.argv[1]
    server = Server().start()
    try:
        server.account("owner@example.example")
        key = server.key("owner@example.example")
        env = {**os.environ, "LIGHTBOX_API_KEY": key, "LIGHTBOX_BASE_URL": server.url}
        env.pop("PYTHONPATH", None)
        with tempfile.TemporaryDirectory() as work:
            where = subprocess.run(
                [python, "-c", "import lightbox; print(lightbox.__file__)"], cwd=work, env=env,
                capture_output=True, text=True, check=True,
            ).stdout.strip()
            if str(ROOT / "src") in where:
                raise SystemExit(f"the example would use the source tree ({where}), not the installed wheel")
            print(f"lightbox imported from {where}")
            plan = Path(work, "floorplan.pdf")
            plan.write_bytes(PDF)
            subprocess.run([python, str(ROOT / "examples" / "quickstart.py"), str(plan)], cwd=work, env=env, check=True)
            video = Path(work, "tour.mp4")
            video.write_bytes(MP4 + os.urandom(3 * 1024 * 1024))
            gallery = subprocess.run(
                [python, "-c", "from lightbox import Lightbox; print(Lightbox().listings.create(address='1 Example St').id)"],
                cwd=work, env=env, capture_output=True, text=True, check=True,
            ).stdout.strip()
            subprocess.run(
                [python, str(ROOT / "examples" / "resumable_upload.py"), gallery, str(video)], cwd=work, env=env, check=True
            )
            # The incremental sync recipe: the first run sees both galleries, the second none.
            state = Path(work, "sync-state")
            sync = [python, str(ROOT / "examples" / "incremental_sync.py"), str(state)]
            first = subprocess.run(sync, cwd=work, env=env, capture_output=True, text=True, check=True).stdout
            print(first, end="")
            if first.count("upsert ") != 2 or not state.exists():
                raise SystemExit("examples/incremental_sync.py did not see the two galleries")
            again = subprocess.run(sync, cwd=work, env=env, capture_output=True, text=True, check=True).stdout
            if again.strip():
                raise SystemExit(f"a second sync with nothing changed printed {again!r}")
            webhook_receiver(python, server.url, key, env, work)
    finally:
        server.stop()
    print("the examples ran against a real server with the installed wheel")
    return 0


if __name__ == "__main__":
    sys.exit(main())
